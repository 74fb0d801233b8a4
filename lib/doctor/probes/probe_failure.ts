/**
 * How a doctor probe can fail, and the one place that turns a socket error into that: the error
 * `code` decides first (Deno and `node:tls` share them), the class name second. `closed` and
 * `reset` both mean "hung up without answering", which is how an ingress treats a PROXY header
 * mismatch.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Where a probe was when it failed. */
export type ProbePhase = "connect" | "answer";

/** A probe that got no answer, and why. */
export type ProbeFailure =
  /** Nothing listens (kube-proxy also refuses so for a Service without endpoints). */
  | { readonly kind: "refused" }
  | { readonly kind: "unreachable"; readonly detail: string }
  | { readonly kind: "connect-timeout" }
  | { readonly kind: "answer-timeout" }
  /** Connected, then EOF before answering. */
  | { readonly kind: "closed" }
  /** Connected, then an RST before answering. */
  | { readonly kind: "reset" }
  /** The TLS handshake got an alert or non-TLS bytes. */
  | { readonly kind: "handshake-failed"; readonly message: string }
  /** The check's deadline, not the probe's, ran out. */
  | { readonly kind: "aborted" }
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
 * What a socket error means for a probe that was in `phase`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { classifyProbeFailure } from "./probe_failure.ts";
 *
 * const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
 * assert.deepEqual(classifyProbeFailure(reset, "answer"), { kind: "reset" });
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

/** One sentence for a failure, naming the address (`host:port`) and the time allowed. */
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
