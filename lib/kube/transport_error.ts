/**
 * Sorts the errors `fetch` throws into {@linkcode KubeTransportError} kinds. Deno gives no error
 * codes, only hyper/rustls text in `cause`, so this is the one place that reads that wording.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { KubeTransportError } from "./errors.ts";

/** Most specific match first. */
const PATTERNS: readonly [KubeTransportError["kind"], RegExp][] = [
  ["dns", /dns error|failed to lookup address|name or service not known|no such host/i],
  ["refused", /connection refused|os error 111\b/i],
  [
    "tls",
    /invalid peer certificate|certificate|tls|handshake|unknownissuer|badsignature|notvalidforname|invalid HTTP version parsed/i,
  ],
  ["timeout", /timed out|deadline|os error 110\b/i],
  [
    "reset",
    /connection reset|broken pipe|connection closed|connection aborted|unexpected eof|error reading a body|incomplete message|os error 104\b|os error 32\b/i,
  ],
];

/** Deno's typed network errors (by `name`, so this module needs no runtime API) and deadlines. */
const ERROR_NAMES: Readonly<Record<string, KubeTransportError["kind"]>> = {
  TimeoutError: "timeout",
  TimedOut: "timeout",
  ConnectionRefused: "refused",
  ConnectionReset: "reset",
  ConnectionAborted: "reset",
  BrokenPipe: "reset",
  UnexpectedEof: "reset",
};

function texts(error: unknown): string[] {
  const found: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      found.push(`${current.name}: ${current.message}`);
      current = current.cause;
    } else {
      found.push(String(current));
      break;
    }
  }
  return found;
}

/** The kind of a network failure: by Deno's typed error name first, else by its text. */
export function transportErrorKind(error: unknown): KubeTransportError["kind"] {
  const name = error instanceof Error ? error.name : "";
  const byName = ERROR_NAMES[name];
  if (byName !== undefined) return byName;
  const all = texts(error).join(" | ");
  for (const [kind, pattern] of PATTERNS) if (pattern.test(all)) return kind;
  return "other";
}
