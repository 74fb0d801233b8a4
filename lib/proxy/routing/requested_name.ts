/**
 * The hostname a new connection asks for, from the bytes received so far: the SNI on the HTTPS
 * listener, the request's host on the HTTP listener. One verdict shape for both, so the
 * connection code reads until it has one and the metrics count the same outcomes for both.
 *
 * Decisions a reader could not guess:
 * - `cap` bounds the bytes held per connection (16 KiB by default). A hello or head that needs
 *   more is `too-large` as soon as that is known, without reading up to the cap first.
 * - Every outcome but `found` sends the connection to the default target with the bytes read:
 *   the default backend answers a hello or head it cannot route exactly as it did before routing.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { ListenerName } from "../proxy_metrics.ts";
import { readClientHelloSni } from "./client_hello_sni.ts";
import { readRequestHost } from "./http_host.ts";

/** How a connection's first bytes ended, as the `outcome` label of the route-read counter. */
export const NAME_OUTCOMES = [
  "found",
  "no-name",
  "not-tls",
  "unroutable",
  "invalid",
  "too-large",
  "timeout",
  "closed",
] as const;

/** One of {@linkcode NAME_OUTCOMES}. */
export type NameOutcome = typeof NAME_OUTCOMES[number];

/** The verdict on the bytes so far. */
export type RequestedName =
  | { readonly kind: "found"; readonly name: string }
  /** Read more: the buffer must hold at least `atLeast` bytes (never more than the cap). */
  | { readonly kind: "need-more"; readonly atLeast: number }
  /** No name to route by: the default target. `reason` explains `invalid` and `unroutable`. */
  | {
    readonly kind: "default";
    readonly outcome: Exclude<NameOutcome, "found" | "timeout" | "closed">;
    readonly reason?: string;
  };

/** Where the bytes came from, and the most that may be held. */
export interface NameReading {
  readonly listener: ListenerName;
  readonly cap: number;
}

/**
 * The verdict on `bytes`, the first bytes a client sent to `listener`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { requestedName } from "./requested_name.ts";
 *
 * const head = new TextEncoder().encode("GET / HTTP/1.1\r\nHost: Shop.Example.com\r\n\r\n");
 * assert.deepEqual(requestedName(head, { listener: "http", cap: 16384 }), { kind: "found", name: "shop.example.com" });
 * assert.deepEqual(requestedName(head.subarray(0, 20), { listener: "http", cap: 16384 }), { kind: "need-more", atLeast: 21 });
 * assert.deepEqual(requestedName(head, { listener: "https", cap: 16384 }), { kind: "default", outcome: "not-tls" });
 * ```
 */
export function requestedName(bytes: Uint8Array, reading: NameReading): RequestedName {
  const { listener, cap } = reading;
  const verdict = listener === "https" ? fromHello(bytes) : fromHead(bytes);
  if (verdict.kind === "need-more" && (verdict.atLeast > cap || bytes.length >= cap)) {
    return { kind: "default", outcome: "too-large" };
  }
  return verdict;
}

function fromHello(bytes: Uint8Array): RequestedName {
  const sni = readClientHelloSni(bytes);
  switch (sni.kind) {
    case "sni":
      return { kind: "found", name: sni.name };
    case "need-more":
      return sni;
    case "no-sni":
      return { kind: "default", outcome: "no-name" };
    case "not-tls":
      return { kind: "default", outcome: "not-tls" };
    case "unroutable":
    case "invalid":
      return { kind: "default", outcome: sni.kind, reason: sni.reason };
  }
}

function fromHead(bytes: Uint8Array): RequestedName {
  const host = readRequestHost(bytes);
  switch (host.kind) {
    case "host":
      return { kind: "found", name: host.name };
    case "need-more":
      // A head has no length prefix: any one more byte may end it.
      return { kind: "need-more", atLeast: bytes.length + 1 };
    case "no-host":
      return { kind: "default", outcome: "no-name" };
    case "unroutable":
    case "invalid":
      return { kind: "default", outcome: host.kind, reason: host.reason };
  }
}
