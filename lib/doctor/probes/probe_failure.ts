/**
 * How a network probe of the doctor can fail, and the one place that turns what a socket threw
 * into that: Deno's own errors (`Deno.errors.ConnectionRefused`, …) and `node:tls`'s
 * (`code: "ECONNRESET"`, …) carry the same `code` strings, so the code decides first and the
 * error's class name second.
 *
 * Decisions: a connection that ends before any byte came back is `closed` (an orderly EOF) or
 * `reset` (an RST); both mean "the other side hung up without answering", which is what an
 * ingress does with a PROXY header it does not expect, or a missing one it insists on. Time-outs
 * are told apart by phase: not connected in time (the address is not reachable from here) versus
 * connected but no answer in time (something took the connection and kept silent).
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Where a probe was when it failed. */
export type ProbePhase = "connect" | "answer";

/** A probe that got no answer, and why. */
export type ProbeFailure =
  /** Nothing listens there (an RST to the SYN; kube-proxy also rejects a Service without endpoints so). */
  | { readonly kind: "refused" }
  /** No route to the address (ICMP unreachable, or no route in this network at all). */
  | { readonly kind: "unreachable"; readonly detail: string }
  /** The connection was not set up within the probe's time. */
  | { readonly kind: "connect-timeout" }
  /** Connected, but nothing came back within the probe's time. */
  | { readonly kind: "answer-timeout" }
  /** Connected, then the other side closed (EOF) before answering. */
  | { readonly kind: "closed" }
  /** Connected, then the other side reset the connection before answering. */
  | { readonly kind: "reset" }
  /** Connected, and the other side answered the TLS handshake with an error (an alert, or bytes that are not TLS). */
  | { readonly kind: "handshake-failed"; readonly message: string }
  /** The check's own deadline ran out before the probe finished. */
  | { readonly kind: "aborted" }
  /** Anything else, with its message. */
  | { readonly kind: "error"; readonly message: string };

const BY_CODE: Readonly<Record<string, ProbeFailure["kind"]>> = {
  ECONNREFUSED: "refused",
  ECONNRESET: "reset",
  ECONNABORTED: "reset",
  EPIPE: "reset",
  EHOSTUNREACH: "unreachable",
  ENETUNREACH: "unreachable",
  EHOSTDOWN: "unreachable",
  ENETDOWN: "unreachable",
  EADDRNOTAVAIL: "unreachable",
};

const BY_NAME: Readonly<Record<string, ProbeFailure["kind"]>> = {
  ConnectionRefused: "refused",
  ConnectionReset: "reset",
  ConnectionAborted: "reset",
  BrokenPipe: "reset",
  UnexpectedEof: "closed",
  NetworkUnreachable: "unreachable",
  AddrNotAvailable: "unreachable",
};

function stringField(value: unknown, key: string): string | undefined {
  if (typeof value !== "object" || value === null || !(key in value)) return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === "string" ? field : undefined;
}

/**
 * What a socket error means for a probe that was in `phase`. A time-out (`ETIMEDOUT`, `TimedOut`)
 * is a connect or answer time-out by phase.
 *
 * @example
 * ```ts
 * import { classifyProbeFailure } from "./probe_failure.ts";
 *
 * classifyProbeFailure(new Deno.errors.ConnectionRefused("connection refused"), "connect"); // { kind: "refused" }
 * classifyProbeFailure(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }), "answer"); // { kind: "reset" }
 * ```
 */
export function classifyProbeFailure(error: unknown, phase: ProbePhase): ProbeFailure {
  const code = stringField(error, "code") ?? "";
  const name = stringField(error, "name") ?? "";
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ETIMEDOUT" || name === "TimedOut" || name === "TimeoutError") {
    return { kind: phase === "connect" ? "connect-timeout" : "answer-timeout" };
  }
  const kind = BY_CODE[code] ?? BY_NAME[name];
  switch (kind) {
    case "unreachable":
      return { kind, detail: message };
    case "refused":
    case "reset":
    case "closed":
      return { kind };
    default:
      return { kind: "error", message };
  }
}

/**
 * One sentence for a failure, naming the address (`host:port`) and the time allowed.
 *
 * @example
 * ```ts
 * import { describeProbeFailure } from "./probe_failure.ts";
 *
 * describeProbeFailure({ kind: "refused" }, { address: "10.96.0.50:80", timeoutMs: 5000 }); // "connection to 10.96.0.50:80 refused"
 * ```
 */
export function describeProbeFailure(
  failure: ProbeFailure,
  options: { readonly address: string; readonly timeoutMs: number },
): string {
  const { address } = options;
  const seconds = `${options.timeoutMs / 1000}s`;
  switch (failure.kind) {
    case "refused":
      return `connection to ${address} refused`;
    case "unreachable":
      return `${address} is unreachable (${failure.detail})`;
    case "connect-timeout":
      return `could not connect to ${address} within ${seconds}`;
    case "answer-timeout":
      return `connected to ${address}, but no answer came within ${seconds}`;
    case "closed":
      return `connected to ${address}, then the connection was closed without an answer`;
    case "reset":
      return `connected to ${address}, then the connection was reset without an answer`;
    case "handshake-failed":
      return `connected to ${address}, then the TLS handshake failed: ${failure.message}`;
    case "aborted":
      return `the probe of ${address} did not finish before the check's time ran out (--check-timeout)`;
    case "error":
      return `probing ${address} failed: ${failure.message}`;
  }
}
