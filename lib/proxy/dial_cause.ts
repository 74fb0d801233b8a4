/**
 * Classifies a failed backend dial, so `/readyz`, logs and metrics say *why* it failed.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { errorMessage } from "../util/error_message.ts";

/** The cause tokens, as documented for `/readyz` and the `cause` metric label. */
export const DIAL_CAUSES = [
  "dns-nxdomain",
  "dns-timeout",
  "dns-error",
  "connection-refused",
  "timeout",
  "unreachable",
] as const;

/** One cause token. */
export type DialCause = (typeof DIAL_CAUSES)[number];

/** Name of the error a dialer throws when its deadline passes. */
export const DIAL_TIMEOUT_ERROR = "TimeoutError";

/** getaddrinfo failures carry no error code: the runtime's message is the only signal. */
const LOOKUP_FAILED = "failed to lookup address information";

/** getaddrinfo texts (glibc's `gai_strerror`, plus musl's and BSD's) meaning "no such name". */
const NO_SUCH_NAME = [
  "Name or service not known",
  "No address associated with hostname",
  "nodename nor servname provided",
  "Name does not resolve",
  "no such host",
];

/** getaddrinfo texts meaning "the resolver did not answer in time, try again". */
const RESOLVER_TIMEOUT = ["Temporary failure in name resolution", "Try again"];

/** Error names and codes meaning the operating system gave up on the connection attempt. */
const TIMED_OUT = new Set(["TimedOut", "ETIMEDOUT", DIAL_TIMEOUT_ERROR]);

/**
 * Maps a dial error to a cause token; `unreachable` covers the rest (no route, reset, …).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyDialError } from "./dial_cause.ts";
 *
 * const error = new Error("failed to lookup address information: Name or service not known");
 * assert.equal(classifyDialError(error), "dns-nxdomain");
 * ```
 */
export function classifyDialError(error: unknown): DialCause {
  const name = error instanceof Error ? error.name : "";
  const message = errorMessage(error);
  const code = typeof (error as { code?: unknown })?.code === "string"
    ? (error as { code: string }).code
    : "";
  if (message.includes(LOOKUP_FAILED)) {
    if (NO_SUCH_NAME.some((text) => message.includes(text))) return "dns-nxdomain";
    if (RESOLVER_TIMEOUT.some((text) => message.includes(text))) return "dns-timeout";
    return "dns-error";
  }
  if (name === "ConnectionRefused" || code === "ECONNREFUSED") return "connection-refused";
  if (TIMED_OUT.has(name) || TIMED_OUT.has(code)) return "timeout";
  return "unreachable";
}
