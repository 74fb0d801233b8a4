/**
 * Typed errors for API failures, with predicates so callers branch on code and reason, not text.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { errorMessage } from "../util/error_message.ts";

/** The fields of a `metav1.Status` failure that callers use. */
export interface StatusDetails {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  /** From `Retry-After` or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds?: number;
  /** `details.causes[].reason`, e.g. `ResourceVersionTooLarge`. */
  readonly causes?: readonly string[];
}

/** A failure answered by the API server (an error status, or a watch's `ERROR` event). */
export class KubeApiError extends Error {
  readonly status: StatusDetails;
  readonly request: string;

  constructor(request: string, status: StatusDetails) {
    super(`${request}: ${status.code} ${status.reason}: ${status.message}`);
    this.name = "KubeApiError";
    this.status = status;
    this.request = request;
  }
}

/**
 * The messages of an error and its causes, outermost first, each said once: `fetch` says only
 * "fetch failed" and keeps what went wrong (rustls's words) in its causes.
 */
function causeChain(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current !== undefined && current !== null; depth++) {
    const message = errorMessage(current).trim();
    if (message !== "" && !messages.some((seen) => seen.includes(message))) messages.push(message);
    current = current instanceof Error ? current.cause : undefined;
  }
  return messages.join(": ");
}

/** What an operator can do about a TLS failure, for the words rustls used. */
function tlsHint(text: string): string {
  if (/CaUsedAsEndEntity/i.test(text)) {
    return " (the API server presents a CA certificate as its own, which kubectl accepts and rustls refuses: " +
      "serve a leaf certificate signed by that CA, or trust the CA that signed it in certificate-authority)";
  }
  if (/UnknownIssuer|BadSignature/i.test(text)) {
    return " (the kubeconfig's certificate-authority did not sign the API server's certificate: give the CA " +
      "that did)";
  }
  if (/NotValidForName/i.test(text)) {
    return " (the API server's certificate does not name the host of the server URL: use a URL whose host it " +
      "names)";
  }
  return "";
}

/** The API server could not be reached or did not answer in time; no Status exists. */
export class KubeTransportError extends Error {
  readonly kind: "refused" | "timeout" | "reset" | "tls" | "dns" | "other";
  readonly request: string;

  constructor(request: string, kind: KubeTransportError["kind"], cause: unknown) {
    const text = causeChain(cause);
    super(`${request}: ${kind}: ${text}${kind === "tls" ? tlsHint(text) : ""}`, { cause });
    this.name = "KubeTransportError";
    this.kind = kind;
    this.request = request;
  }
}

/** A write stopped before it was sent, as this process is not surely the leader. */
export class WriteFencedError extends Error {
  readonly request: string;

  constructor(request: string, reason: string) {
    super(`${request}: not sent: ${reason}`);
    this.name = "WriteFencedError";
    this.request = request;
  }
}

function statusOf(error: unknown): StatusDetails | undefined {
  return error instanceof KubeApiError ? error.status : undefined;
}

/** 404: the object (or the resource type) does not exist. */
export function isNotFound(error: unknown): boolean {
  return statusOf(error)?.code === 404;
}

/** 409 with reason `Conflict`: a stale resourceVersion on update. */
export function isConflict(error: unknown): boolean {
  const status = statusOf(error);
  return status?.code === 409 && status.reason !== "AlreadyExists";
}

/** 409 with reason `AlreadyExists`: a create for a name that is taken. */
export function isAlreadyExists(error: unknown): boolean {
  return statusOf(error)?.reason === "AlreadyExists";
}

/** 410 (`Expired`, or `Gone` before 1.18): the resourceVersion is too old; relist. */
export function isGone(error: unknown): boolean {
  const status = statusOf(error);
  return status?.code === 410 || status?.reason === "Expired" || status?.reason === "Gone";
}

/** 504 with cause `ResourceVersionTooLarge`: this API server is behind the version asked for. */
export function isResourceVersionTooLarge(error: unknown): boolean {
  return statusOf(error)?.causes?.includes("ResourceVersionTooLarge") === true;
}

/** 403: RBAC does not allow the request. */
export function isForbidden(error: unknown): boolean {
  return statusOf(error)?.code === 403;
}

/** 401: the credentials were refused (an expired token, usually). */
export function isUnauthorized(error: unknown): boolean {
  return statusOf(error)?.code === 401;
}

/** 429: throttled; honour {@linkcode retryAfterMs}. */
export function isTooManyRequests(error: unknown): boolean {
  return statusOf(error)?.code === 429;
}

/** 422: the object failed validation (for example a ConfigMap over 1 MiB). */
export function isInvalid(error: unknown): boolean {
  return statusOf(error)?.code === 422;
}

/** 5xx: worth retrying with backoff. */
export function isServerError(error: unknown): boolean {
  const code = statusOf(error)?.code;
  return code !== undefined && code >= 500;
}

/** The wait the server asked for, in milliseconds, or `undefined`. */
export function retryAfterMs(error: unknown): number | undefined {
  const seconds = statusOf(error)?.retryAfterSeconds;
  return seconds === undefined ? undefined : seconds * 1000;
}

/** What {@linkcode statusFromResponse} reads besides the status code. */
export interface StatusAnswer {
  readonly body?: unknown;
  readonly retryAfter?: string | null;
}

/**
 * {@linkcode StatusDetails} from an answer: the body when it is a `Status`, else the status line.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { statusFromResponse } from "./errors.ts";
 *
 * assert.deepEqual(statusFromResponse(404, { body: undefined }), {
 *   code: 404,
 *   reason: "NotFound",
 *   message: "HTTP 404",
 * });
 * assert.equal(statusFromResponse(429, { body: undefined, retryAfter: "3" }).retryAfterSeconds, 3);
 * ```
 */
export function statusFromResponse(code: number, answer: StatusAnswer): StatusDetails {
  const { body, retryAfter } = answer;
  const object = typeof body === "object" && body !== null ? body as Record<string, unknown> : {};
  const isStatus = object.kind === "Status";
  const details = typeof object.details === "object" && object.details !== null
    ? object.details as Record<string, unknown>
    : {};
  const causes = Array.isArray(details.causes)
    ? details.causes.map((
      c,
    ) => (typeof c === "object" && c !== null ? String((c as { reason?: unknown }).reason ?? "") : ""))
      .filter((c) => c !== "")
    : [];
  const header = retryAfter ?? "";
  const headerSeconds = /^\d+$/.test(header) ? Number(header) : undefined;
  const bodySeconds = typeof details.retryAfterSeconds === "number" ? details.retryAfterSeconds : undefined;
  const retryAfterSeconds = headerSeconds ?? bodySeconds;
  return {
    code: isStatus && typeof object.code === "number" ? object.code : code,
    reason: isStatus && typeof object.reason === "string" && object.reason !== ""
      ? object.reason
      : reasonFor(code),
    message: isStatus && typeof object.message === "string" ? object.message : `HTTP ${code}`,
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    ...(causes.length === 0 ? {} : { causes }),
  };
}

function reasonFor(code: number): string {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 410:
      return "Expired";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}
