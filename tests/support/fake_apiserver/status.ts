/**
 * `metav1.Status` failures as the real API server words them, and the error type the fake's
 * store throws so the HTTP layer can answer with the exact Status body.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type KindInfo, qualifiedResource } from "./kinds.ts";

/** One `details.causes[]` entry. */
export interface StatusCause {
  readonly reason: string;
  readonly message?: string;
  readonly field?: string;
}

/** The `details` of a Status. */
export interface StatusDetailsBody {
  readonly name?: string;
  readonly group?: string;
  readonly kind?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/** A failure `Status` object, exactly as serialised on the wire. */
export interface StatusBody {
  readonly kind: "Status";
  readonly apiVersion: "v1";
  readonly metadata: Record<string, never>;
  readonly status: "Failure";
  readonly message: string;
  readonly reason: string;
  readonly details?: StatusDetailsBody;
  readonly code: number;
}

/** A failure the fake answers with a Status body (thrown by the store, caught by the HTTP layer). */
export class FakeApiError extends Error {
  readonly body: StatusBody;

  /** Wraps a Status body. */
  constructor(body: StatusBody) {
    super(`${body.code} ${body.reason}: ${body.message}`);
    this.name = "FakeApiError";
    this.body = body;
  }

  /** The HTTP status code. */
  get code(): number {
    return this.body.code;
  }
}

/** Builds a failure Status body. */
export function statusBody(
  code: number,
  reason: string,
  message: string,
  details?: StatusDetailsBody,
): StatusBody {
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message,
    reason,
    ...(details === undefined ? {} : { details }),
    code,
  };
}

function resourceDetails(info: KindInfo, name: string): StatusDetailsBody {
  return info.group === "" ? { name, kind: info.plural } : { name, group: info.group, kind: info.plural };
}

/** 404 for a named object: `configmaps "x" not found`. */
export function notFound(info: KindInfo, name: string): FakeApiError {
  return new FakeApiError(
    statusBody(
      404,
      "NotFound",
      `${qualifiedResource(info)} "${name}" not found`,
      resourceDetails(info, name),
    ),
  );
}

/** 404 for a path the server does not serve. */
export function pathNotFound(): FakeApiError {
  return new FakeApiError(
    statusBody(404, "NotFound", "the server could not find the requested resource", {}),
  );
}

/** 409 AlreadyExists on create. */
export function alreadyExists(info: KindInfo, name: string): FakeApiError {
  return new FakeApiError(
    statusBody(
      409,
      "AlreadyExists",
      `${qualifiedResource(info)} "${name}" already exists`,
      resourceDetails(info, name),
    ),
  );
}

/** 409 Conflict for a stale resourceVersion (or a uid precondition). */
export function conflict(info: KindInfo, name: string, why: string): FakeApiError {
  return new FakeApiError(
    statusBody(
      409,
      "Conflict",
      `Operation cannot be fulfilled on ${qualifiedResource(info)} "${name}": ${why}`,
      resourceDetails(info, name),
    ),
  );
}

/** The real server's explanation for a stale resourceVersion. */
export const STALE_OBJECT =
  "the object has been modified; please apply your changes to the latest version and try again";

/**
 * 422 Invalid: `ConfigMap "x" is invalid: field: message` (`Lease.coordination.k8s.io "x"` in a
 * named group). The registry's own refusals (an update without resourceVersion) name the
 * resource instead, `leases.coordination.k8s.io "x"`: pass `{ resource: true }`.
 */
export function invalid(
  info: KindInfo,
  name: string,
  options: { readonly causes: readonly Required<StatusCause>[]; readonly resource?: boolean },
): FakeApiError {
  const { causes } = options;
  const kind = options.resource === true ? info.plural : info.kind;
  const qualified = info.group === "" ? kind : `${kind}.${info.group}`;
  const list = causes.map((cause) => `${cause.field}: ${cause.message}`);
  const summary = list.length === 1 ? list[0] : `[${list.join(", ")}]`;
  return new FakeApiError(
    statusBody(422, "Invalid", `${qualified} "${name}" is invalid: ${summary}`, {
      name,
      ...(info.group === "" ? {} : { group: info.group }),
      kind,
      causes,
    }),
  );
}

/** 400 BadRequest. */
export function badRequest(message: string): FakeApiError {
  return new FakeApiError(statusBody(400, "BadRequest", message));
}

/** 405 for a verb the path does not support. */
export function methodNotAllowed(): FakeApiError {
  return new FakeApiError(
    statusBody(
      405,
      "MethodNotAllowed",
      "the server does not allow this method on the requested resource",
      {},
    ),
  );
}

/** 410 Expired for a resourceVersion older than the retained history. */
export function tooOldResourceVersion(requested: number, oldest: number): FakeApiError {
  return new FakeApiError(statusBody(410, "Expired", `too old resource version: ${requested} (${oldest})`));
}

/** 410 Expired for a continue token whose snapshot is gone. */
export function continueExpired(): FakeApiError {
  return new FakeApiError(
    statusBody(
      410,
      "Expired",
      "The provided continue parameter is too old to display a consistent list result. " +
        "You can start a new list without the continue parameter.",
    ),
  );
}

/** 504 with cause `ResourceVersionTooLarge`: the client asked for a version this server has not reached. */
export function resourceVersionTooLarge(requested: number, current: number): FakeApiError {
  return new FakeApiError(
    statusBody(504, "Timeout", `Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
      retryAfterSeconds: 1,
    }),
  );
}
