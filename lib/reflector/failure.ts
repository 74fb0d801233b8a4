/**
 * Why a reflector restarted a list or a watch, from typed errors only (status codes and
 * reasons, never message text).
 *
 * Pure: no I/O.
 *
 * @module
 */

import {
  isForbidden,
  isGone,
  isNotFound,
  isResourceVersionTooLarge,
  isServerError,
  isTooManyRequests,
  isUnauthorized,
  KubeApiError,
  KubeTransportError,
  retryAfterMs,
} from "../kube/errors.ts";
import { errorMessage } from "../util/error_message.ts";

/** Every reason a list or watch is restarted; the label of the restart counters. */
export const RESTART_REASONS = [
  /** The server ended a watch cleanly (its `timeoutSeconds`): re-watch at once, no relist. */
  "server-timeout",
  /** A watch ended cleanly in under a second with no events: a hot-loop signal, backed off. */
  "short-watch",
  /** No byte for the idle timeout: the connection is presumed dead and the watch aborted. */
  "idle-timeout",
  /** 410: the resourceVersion is out of the server's history (or a `continue` token expired). */
  "expired",
  /** 504 with cause `ResourceVersionTooLarge`: this server is behind the version asked for. */
  "too-large",
  /** 429: throttled; waits at least `Retry-After`. */
  "throttled",
  /** 403: RBAC refuses list or watch. */
  "forbidden",
  /** 401: credentials refused (the client re-reads its token). */
  "unauthorized",
  /** 404: the resource type is not served (a CRD not installed). */
  "not-found",
  /** 5xx, or an in-stream ERROR event with such a status. */
  "server-error",
  /** Another status (400, 409, …): unexpected; retried with backoff. */
  "api-error",
  /** No answer: refused, reset, timed out, TLS or DNS failure. */
  "transport",
  /** Anything else (a bug or a protocol violation). */
  "error",
] as const;

/** One of {@linkcode RESTART_REASONS}. */
export type RestartReason = (typeof RESTART_REASONS)[number];

/** A failed list or watch, classified. */
export interface Failure {
  readonly reason: RestartReason;
  readonly message: string;
  /** The wait the server asked for (429 `Retry-After`), in milliseconds. */
  readonly retryAfterMs?: number;
}

/** Classifies an error of a list or watch (or of an in-stream ERROR event) for the reflector. */
export function classifyFailure(error: unknown): Failure {
  const message = errorMessage(error);
  if (error instanceof KubeApiError) {
    const reason: RestartReason = isGone(error)
      ? "expired"
      : isResourceVersionTooLarge(error)
      ? "too-large"
      : isTooManyRequests(error)
      ? "throttled"
      : isForbidden(error)
      ? "forbidden"
      : isUnauthorized(error)
      ? "unauthorized"
      : isNotFound(error)
      ? "not-found"
      : isServerError(error)
      ? "server-error"
      : "api-error";
    const wait = retryAfterMs(error);
    return wait === undefined ? { reason, message } : { reason, message, retryAfterMs: wait };
  }
  if (error instanceof KubeTransportError) return { reason: "transport", message };
  return { reason: "error", message };
}
