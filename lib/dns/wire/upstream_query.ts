/**
 * The bytes sent to an upstream: the client's query with a fresh ID and our OPT payload size. We
 * are the upstream's UDP client, and a client's 65,535 would invite fragmented replies (lost or
 * spoofable: DNS Flag Day 2020).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { MIN_UDP_PAYLOAD, type ParsedQuery } from "./classify_query.ts";

/** Options for {@linkcode upstreamQuery}. */
export interface UpstreamQueryOptions {
  readonly id: number;
  /** Our receive size, written into the query's OPT record when it has one. */
  readonly maxUdpPayload: number;
}

/** A copy of the client's query with `options.id` and our payload size. */
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

/** The largest UDP reply the upstream may send to `query` as forwarded. */
export function upstreamUdpLimit(query: ParsedQuery, maxUdpPayload: number): number {
  return query.opt === undefined ? MIN_UDP_PAYLOAD : Math.max(MIN_UDP_PAYLOAD, maxUdpPayload);
}

/** The readiness probe: root NS without EDNS, which any resolver answers (from its hints). */
export function rootProbeQuery(id: number): Uint8Array {
  return new Uint8Array([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 1]);
}
