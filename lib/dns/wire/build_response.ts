/**
 * Responses the server writes itself: an error code, or address records from a local decision.
 * The question bytes are echoed exactly (a client's mixed case, the "0x20" defence, survives), and
 * answers name it by a pointer to offset 12. Address records beyond the client's limit are left
 * out with TC set, the ones that fit kept (RFC 2181 §9), whatever the limit. A NODATA answer
 * carries a synthesized SOA for the asked name in its authority section, with the answer TTL as
 * TTL and minimum, so resolvers may cache the negative answer (RFC 2308 §3).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { ParsedQuery } from "./classify_query.ts";
import { TYPE_OPT } from "./read_message.ts";

const FLAG_QR = 0x8000;
const FLAG_AA = 0x0400;
const FLAG_TC = 0x0200;
const FLAG_RA = 0x0080;
/** Opcode, RD and CD: the query bits a response keeps. */
const ECHOED_FLAGS = 0x7800 | 0x0100 | 0x0010;
const OPT_OCTETS = 11;
const MAX_TTL = 0x7fffffff;

/** Options shared by the builders. */
export interface ResponseOptions {
  /** The UDP payload size our OPT record advertises. */
  readonly maxUdpPayload: number;
}

/** A response and whether it had to be truncated to the client's limit. */
export interface BuiltResponse {
  readonly bytes: Uint8Array;
  readonly truncated: boolean;
}

function writeHeader(
  out: Uint8Array,
  query: ParsedQuery,
  fields: { flags: number; questions: number; answers: number; authorities: number; additionals: number },
): void {
  out[0] = query.id >> 8;
  out[1] = query.id & 0xff;
  out[2] = fields.flags >> 8;
  out[3] = fields.flags & 0xff;
  out[4] = 0;
  out[5] = fields.questions;
  out[6] = fields.answers >> 8;
  out[7] = fields.answers & 0xff;
  out[8] = 0;
  out[9] = fields.authorities;
  out[10] = 0;
  out[11] = fields.additionals;
}

function writeOpt(
  out: Uint8Array,
  offset: number,
  query: ParsedQuery,
  options: ResponseOptions & {
    readonly extendedRcode: number;
  },
): void {
  const size = Math.min(0xffff, Math.max(512, options.maxUdpPayload));
  out[offset] = 0;
  out[offset + 1] = 0;
  out[offset + 2] = TYPE_OPT;
  out[offset + 3] = size >> 8;
  out[offset + 4] = size & 0xff;
  out[offset + 5] = options.extendedRcode;
  out[offset + 6] = 0;
  out[offset + 7] = query.opt?.dnssecOk ? 0x80 : 0;
  out.fill(0, offset + 8, offset + OPT_OCTETS);
}

/** Header, echoed question, records and OPT, or the truncated form beyond the client's limit. */
function assemble(
  query: ParsedQuery,
  options: ResponseOptions & {
    readonly rcode: number;
    readonly authoritative: boolean;
    /** Truncate whatever the size (a relayed reply too large for the client). */
    readonly truncate?: boolean;
    /** Records were left out to fit: TC, with the records given. */
    readonly partial?: boolean;
    readonly recordCount: number;
    /** Of `recordCount`, how many are in the authority section (after the answers). */
    readonly authorityCount?: number;
    readonly recordOctets: number;
    readonly writeRecords?: (out: Uint8Array, offset: number) => void;
  },
): BuiltResponse {
  const echo = query.echoEnd - 12;
  const opt = query.opt === undefined ? 0 : OPT_OCTETS;
  const full = 12 + echo + options.recordOctets + opt;
  const truncated = options.truncate === true || full > query.limit;
  const size = truncated ? 12 + echo + opt : full;
  const out = new Uint8Array(size);
  const flags = FLAG_QR | (query.flags & ECHOED_FLAGS) | FLAG_RA | (options.authoritative ? FLAG_AA : 0) |
    (truncated || options.partial === true ? FLAG_TC : 0) | (options.rcode & 0xf);
  const authorities = truncated ? 0 : options.authorityCount ?? 0;
  writeHeader(out, query, {
    flags,
    questions: echo > 0 ? 1 : 0,
    answers: truncated ? 0 : options.recordCount - authorities,
    authorities,
    additionals: opt > 0 ? 1 : 0,
  });
  out.set(query.bytes.subarray(12, query.echoEnd), 12);
  let offset = 12 + echo;
  if (!truncated && options.writeRecords !== undefined) {
    options.writeRecords(out, offset);
    offset += options.recordOctets;
  }
  if (opt > 0) writeOpt(out, offset, query, { ...options, extendedRcode: options.rcode >> 4 });
  return { bytes: out, truncated: truncated || options.partial === true };
}

/** A response carrying only `rcode` (BADVERS's upper bits go in the OPT record). */
export function buildErrorResponse(
  query: ParsedQuery,
  options: ResponseOptions & { readonly rcode: number },
): Uint8Array {
  return assemble(query, { ...options, authoritative: false, recordCount: 0, recordOctets: 0 }).bytes;
}

/** Options for {@linkcode buildTruncatedResponse}. */
export interface TruncatedResponseOptions extends ResponseOptions {
  /** The full RCODE (extended bits included) of the response being truncated. */
  readonly rcode: number;
  readonly authoritative: boolean;
}

/** What a relayed reply too large for the client becomes: header, question and OPT, with TC. */
export function buildTruncatedResponse(query: ParsedQuery, options: TruncatedResponseOptions): Uint8Array {
  return assemble(query, { ...options, truncate: true, recordCount: 0, recordOctets: 0 }).bytes;
}

/** Options for {@linkcode buildAddressResponse}. */
export interface AddressResponseOptions extends ResponseOptions {
  /** The question's type, A or AAAA. */
  readonly type: number;
  /** Seconds, clamped to 0 … 2^31−1. */
  readonly ttl: number;
  /** None means NOERROR with no data. */
  readonly addresses: readonly Uint8Array[];
}

/** The octets of the synthesized SOA: owner, MNAME and RNAME pointers to the question, five numbers. */
const SOA_OCTETS = 12 + 2 + 2 + 20;
const TYPE_SOA = 6;

/**
 * An authoritative NOERROR response with one record per address that fits the client's limit
 * (TC when some did not), or, for none, NODATA with the synthesized SOA.
 */
export function buildAddressResponse(query: ParsedQuery, options: AddressResponseOptions): BuiltResponse {
  const ttl = Math.min(MAX_TTL, Math.max(0, Math.floor(options.ttl)));
  const { type } = options;
  const fixed = query.echoEnd + (query.opt === undefined ? 0 : OPT_OCTETS);
  const room = Math.max(0, query.limit - fixed);
  const addresses: Uint8Array[] = [];
  let recordOctets = 0;
  for (const address of options.addresses) {
    if (recordOctets + 12 + address.length > room) break;
    addresses.push(address);
    recordOctets += 12 + address.length;
  }
  const soa = options.addresses.length === 0;
  if (soa) recordOctets = SOA_OCTETS;
  const writeTtl = (out: Uint8Array, offset: number) => {
    out[offset] = ttl >>> 24;
    out[offset + 1] = (ttl >>> 16) & 0xff;
    out[offset + 2] = (ttl >>> 8) & 0xff;
    out[offset + 3] = ttl & 0xff;
  };
  const writeRecords = (out: Uint8Array, start: number) => {
    let offset = start;
    if (soa) {
      out.set([0xc0, 12, 0, TYPE_SOA, 0, 1], offset);
      writeTtl(out, offset + 6);
      out.set([0, 24, 0xc0, 12, 0xc0, 12, 0, 0, 0, 1], offset + 10);
      // Refresh, retry and expire: plausible secondary timers; no secondary ever asks.
      for (const [at, value] of [[20, 7200], [24, 1800], [28, 86400]] as const) {
        out.set([value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff], offset + at);
      }
      writeTtl(out, offset + 32);
      return;
    }
    for (const address of addresses) {
      out[offset] = 0xc0;
      out[offset + 1] = 12;
      out[offset + 2] = type >> 8;
      out[offset + 3] = type & 0xff;
      out[offset + 4] = 0;
      out[offset + 5] = 1;
      writeTtl(out, offset + 6);
      out[offset + 10] = address.length >> 8;
      out[offset + 11] = address.length & 0xff;
      out.set(address, offset + 12);
      offset += 12 + address.length;
    }
  };
  return assemble(query, {
    ...options,
    rcode: 0,
    authoritative: true,
    partial: addresses.length < options.addresses.length,
    recordCount: soa ? 1 : addresses.length,
    authorityCount: soa ? 1 : 0,
    recordOctets,
    writeRecords,
  });
}
