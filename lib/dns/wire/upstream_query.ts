/**
 * The bytes sent to an upstream: the client's query with a fresh ID (so replies can be matched
 * and an off-path attacker cannot predict them), and with the OPT payload size set to ours. We
 * are the upstream's UDP client, so it is our receive size the upstream should respect; a
 * client that advertised 65,535 would otherwise invite fragmented replies, which are lost or
 * spoofable on many paths (the reason for the 1232 default, DNS Flag Day 2020). Also the probe
 * the readiness check sends.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { MIN_UDP_PAYLOAD, type ParsedQuery } from "./classify_query.ts";

/** Options for {@linkcode upstreamQuery}. */
export interface UpstreamQueryOptions {
  /** The ID the upstream sees. */
  readonly id: number;
  /** Our receive size, written into the query's OPT record when it has one. */
  readonly maxUdpPayload: number;
}

/**
 * A copy of the client's query with `options.id` and, when it has an OPT record, our payload
 * size.
 *
 * @example
 * ```ts
 * import { classifyQuery } from "./classify_query.ts";
 * import { upstreamQuery } from "./upstream_query.ts";
 *
 * const bytes = new Uint8Array([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x41, 0, 0, 1, 0, 1]);
 * const verdict = classifyQuery(bytes, { transport: "udp", maxUdpPayload: 1232 });
 * if (verdict.kind === "ask") upstreamQuery(verdict.query, { id: 0xbeef, maxUdpPayload: 1232 });
 * ```
 */
export function upstreamQuery(query: ParsedQuery, options: UpstreamQueryOptions): Uint8Array {
  const out = query.bytes.slice();
  out[0] = options.id >> 8;
  out[1] = options.id & 0xff;
  if (query.opt !== undefined) {
    const size = Math.min(0xffff, Math.max(MIN_UDP_PAYLOAD, options.maxUdpPayload));
    out[query.opt.offset + 3] = size >> 8;
    out[query.opt.offset + 4] = size & 0xff;
  }
  return out;
}

/**
 * The largest reply the upstream may send over UDP to `query` as forwarded: our size when the
 * query has EDNS, 512 without.
 */
export function upstreamUdpLimit(query: ParsedQuery, maxUdpPayload: number): number {
  return query.opt === undefined ? MIN_UDP_PAYLOAD : Math.max(MIN_UDP_PAYLOAD, maxUdpPayload);
}

/**
 * A query for the root's NS records, recursion desired, without EDNS: the cheapest question any
 * resolver answers (from its hints if need be). The readiness probe sends it.
 *
 * @example
 * ```ts
 * import { rootProbeQuery } from "./upstream_query.ts";
 *
 * rootProbeQuery(0x1234).length; // 17
 * ```
 */
export function rootProbeQuery(id: number): Uint8Array {
  return new Uint8Array([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1]);
}
