/**
 * Classifies a failed backend dial into one short cause token, so `/readyz`, logs and metrics
 * say *why* the ingress controller cannot be reached (a misspelled Service name reads very
 * differently from a refused port).
 *
 * Pure: inspects error values only.
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

/**
 * Prefix of the error message the runtime gives when the system resolver (getaddrinfo) fails.
 * That error carries no code, so the resolver's own wording is the only signal there is.
 */
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
 * Maps a dial error to a cause token, most specific first: resolver failures, refused, timed
 * out, and `unreachable` for everything else (no route, network down, reset during connect).
 *
 * @example
 * ```ts
 * import { classifyDialError } from "./dial_cause.ts";
 *
 * classifyDialError(new Deno.errors.ConnectionRefused("Connection refused (os error 111)"));
 * // "connection-refused"
 * classifyDialError(new Error("failed to lookup address information: Name or service not known"));
 * // "dns-nxdomain"
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
