/**
 * The cache of forwarded answers (`--cache-size`): an upstream's reply, as relayed, is kept for its
 * TTL and answers the same question again without a round trip, with its TTLs counted down.
 *
 * Decisions a reader could not guess:
 * - The key is the question with its name's case folded, plus what changes the reply: whether the
 *   query carried an OPT record, its DO bit and its CD flag. The asker's ID, name case and
 *   advertised size are patched into each hit.
 * - What is kept: NOERROR with answers for the smallest TTL of its records (OPT aside); NXDOMAIN
 *   and NODATA only with an SOA in the authority section, for the smaller of the SOA's TTL and its
 *   MINIMUM field (RFC 2308 §5). Nothing else (SERVFAIL, REFUSED, a reply truncated for the asker,
 *   a TTL of 0). TTLs are capped at {@linkcode MAX_TTL_SECONDS}, as CoreDNS's `cache` caps them.
 * - Bounded by entries and by bytes, least recently used first out; both in `/metrics`.
 * - A hit larger than the asker's limit is answered truncated (TC), as a fresh reply would be.
 *
 * Pure but for the injected clock: no I/O.
 *
 * @module
 */

import { buildTruncatedResponse } from "../wire/build_response.ts";
import type { ParsedQuery } from "../wire/classify_query.ts";
import { nameEnd, readMessage, TYPE_OPT } from "../wire/read_message.ts";
import type { Clock } from "../../util/clock.ts";

/** The longest a reply is kept, whatever its TTL says (seconds). */
export const MAX_TTL_SECONDS = 3_600;

/** The most bytes the cache keeps, whatever `--cache-size` allows. */
export const MAX_CACHE_BYTES = 16 * 1024 * 1024;

const TYPE_SOA = 6;
const RCODE_NXDOMAIN = 3;
const FLAG_AA = 0x0400;
const FLAG_CD = 0x0010;

/** Where a reply's TTLs are and how long it may be kept. Pure. */
export interface ReplyLifetime {
  /** Seconds to keep it (0: not at all). */
  readonly ttl: number;
  /** Offsets of every TTL field but the OPT record's. */
  readonly ttlOffsets: readonly number[];
}

function u16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! << 8) | bytes[offset + 1]!;
}

function u32(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset]! << 24) >>> 0) + (bytes[offset + 1]! << 16) + (bytes[offset + 2]! << 8) +
    bytes[offset + 3]!;
}

/** How long `reply` (a relayed, well-formed reply) may be cached, and where its TTLs are. Pure. */
export function replyLifetime(reply: Uint8Array): ReplyLifetime {
  const none = { ttl: 0, ttlOffsets: [] };
  const view = readMessage(reply);
  if ("malformed" in view || view.questionCount !== 1) return none;
  const rcode = view.flags & 0xf;
  if ((view.opt?.extendedRcode ?? 0) !== 0 || (rcode !== 0 && rcode !== RCODE_NXDOMAIN)) return none;
  const negative = rcode === RCODE_NXDOMAIN || view.answerCount === 0;
  const ttlOffsets: number[] = [];
  let smallest = MAX_TTL_SECONDS;
  let soa: number | undefined;
  let offset = view.questionEnd;
  const records = view.answerCount + view.authorityCount + view.additionalCount;
  for (let i = 0; i < records; i++) {
    offset = nameEnd(reply, offset);
    const type = u16(reply, offset);
    const dataLength = u16(reply, offset + 8);
    if (type !== TYPE_OPT) {
      const ttl = u32(reply, offset + 4);
      ttlOffsets.push(offset + 4);
      smallest = Math.min(smallest, ttl > 0x7fffffff ? 0 : ttl);
      const inAuthority = i >= view.answerCount && i < view.answerCount + view.authorityCount;
      if (negative && inAuthority && type === TYPE_SOA && soa === undefined) {
        // MINIMUM is the last 32 bits of the SOA's data (RFC 1035 §3.3.13).
        soa = Math.min(ttl > 0x7fffffff ? 0 : ttl, u32(reply, offset + 10 + dataLength - 4));
      }
    }
    offset += 10 + dataLength;
  }
  if (negative) {
    if (soa === undefined) return none;
    return { ttl: Math.min(soa, MAX_TTL_SECONDS), ttlOffsets };
  }
  return { ttl: smallest, ttlOffsets };
}

/** The cache key of `query`: its question, name case folded, and what changes the reply. Pure. */
export function cacheKey(query: ParsedQuery): string {
  const { bytes, echoEnd } = query;
  let key = "";
  for (let i = 12; i < echoEnd; i++) {
    const byte = bytes[i]!;
    key += String.fromCharCode(byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte);
  }
  const opt = query.opt === undefined ? "-" : query.opt.dnssecOk ? "d" : "o";
  return `${key}${opt}${(query.flags & FLAG_CD) !== 0 ? "c" : "-"}`;
}

interface Entry {
  readonly bytes: Uint8Array;
  readonly storedAt: number;
  readonly ttl: number;
  readonly ttlOffsets: readonly number[];
  readonly rcode: number;
}

/** What a lookup found. */
export type CacheLookup =
  | { readonly kind: "hit"; readonly bytes: Uint8Array; readonly truncated: boolean; readonly rcode: number }
  | { readonly kind: "miss" };

/** Options for {@linkcode AnswerCache}. */
export interface AnswerCacheOptions {
  /** Entries at most (at least 1). */
  readonly maxEntries: number;
  /** Bytes of replies at most (default {@linkcode MAX_CACHE_BYTES}). */
  readonly maxBytes?: number;
  readonly clock: Clock;
  /** The UDP payload size our OPT records advertise. */
  readonly maxUdpPayload: number;
}

/** A bounded, TTL-respecting cache of relayed upstream replies. */
export class AnswerCache {
  readonly #options: AnswerCacheOptions;
  readonly #maxBytes: number;
  /** In least recently used order. */
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  constructor(options: AnswerCacheOptions) {
    this.#options = options;
    this.#maxBytes = options.maxBytes ?? MAX_CACHE_BYTES;
  }

  /** Entries kept now. */
  get size(): number {
    return this.#entries.size;
  }

  /** Bytes of replies kept now. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The answer for `query` from the cache, patched for its asker, or a miss. */
  lookup(query: ParsedQuery): CacheLookup {
    const key = cacheKey(query);
    const entry = this.#entries.get(key);
    if (entry === undefined) return { kind: "miss" };
    const elapsed = Math.floor((this.#options.clock.now() - entry.storedAt) / 1000);
    if (elapsed >= entry.ttl) {
      this.#delete(key, entry);
      return { kind: "miss" };
    }
    // Most recently used goes last.
    this.#entries.delete(key);
    this.#entries.set(key, entry);
    if (entry.bytes.length > query.limit) {
      const bytes = buildTruncatedResponse(query, {
        rcode: entry.rcode,
        authoritative: (u16(entry.bytes, 2) & FLAG_AA) !== 0,
        maxUdpPayload: this.#options.maxUdpPayload,
      });
      return { kind: "hit", bytes, truncated: true, rcode: entry.rcode };
    }
    const bytes = entry.bytes.slice();
    bytes[0] = query.id >> 8;
    bytes[1] = query.id & 0xff;
    bytes.set(query.bytes.subarray(12, query.echoEnd), 12);
    if (elapsed > 0) {
      for (const offset of entry.ttlOffsets) {
        const ttl = Math.max(0, u32(bytes, offset) - elapsed);
        bytes[offset] = ttl >>> 24;
        bytes[offset + 1] = (ttl >>> 16) & 0xff;
        bytes[offset + 2] = (ttl >>> 8) & 0xff;
        bytes[offset + 3] = ttl & 0xff;
      }
    }
    return { kind: "hit", bytes, truncated: false, rcode: entry.rcode };
  }

  /** Keeps `reply` (relayed for `query`, not truncated) for as long as its records allow. */
  store(query: ParsedQuery, reply: Uint8Array, rcode: number): void {
    const lifetime = replyLifetime(reply);
    if (lifetime.ttl <= 0 || reply.length > this.#maxBytes) return;
    const key = cacheKey(query);
    const old = this.#entries.get(key);
    if (old !== undefined) this.#delete(key, old);
    const entry: Entry = {
      bytes: reply.slice(),
      storedAt: this.#options.clock.now(),
      ttl: lifetime.ttl,
      ttlOffsets: lifetime.ttlOffsets,
      rcode,
    };
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes.length;
    for (const [oldestKey, oldest] of this.#entries) {
      if (this.#entries.size <= this.#options.maxEntries && this.#bytes <= this.#maxBytes) break;
      this.#delete(oldestKey, oldest);
    }
  }

  #delete(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes.length;
  }
}
