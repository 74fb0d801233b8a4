/**
 * Responses the server writes itself: an error code, or address records from a local decision.
 * The question bytes are echoed exactly (a client's mixed case, the "0x20" defence, survives), and
 * answers name it by a pointer to offset 12. Too large for the client: TC and no records.
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
  fields: { flags: number; questions: number; answers: number; additionals: number },
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
  out[9] = 0;
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
    readonly recordCount: number;
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
    (truncated ? FLAG_TC : 0) | (options.rcode & 0xf);
  writeHeader(out, query, {
    flags,
    questions: echo > 0 ? 1 : 0,
    answers: truncated ? 0 : options.recordCount,
    additionals: opt > 0 ? 1 : 0,
  });
  out.set(query.bytes.subarray(12, query.echoEnd), 12);
  let offset = 12 + echo;
  if (!truncated && options.writeRecords !== undefined) {
    options.writeRecords(out, offset);
    offset += options.recordOctets;
  }
  if (opt > 0) writeOpt(out, offset, query, { ...options, extendedRcode: options.rcode >> 4 });
  return { bytes: out, truncated };
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

/** An authoritative NOERROR response with one record per address. */
export function buildAddressResponse(query: ParsedQuery, options: AddressResponseOptions): BuiltResponse {
  const ttl = Math.min(MAX_TTL, Math.max(0, Math.floor(options.ttl)));
  const { type, addresses } = options;
  let recordOctets = 0;
  for (const address of addresses) recordOctets += 12 + address.length;
  const writeRecords = (out: Uint8Array, start: number) => {
    let offset = start;
    for (const address of addresses) {
      out[offset] = 0xc0;
      out[offset + 1] = 12;
      out[offset + 2] = type >> 8;
      out[offset + 3] = type & 0xff;
      out[offset + 4] = 0;
      out[offset + 5] = 1;
      out[offset + 6] = ttl >>> 24;
      out[offset + 7] = (ttl >>> 16) & 0xff;
      out[offset + 8] = (ttl >>> 8) & 0xff;
      out[offset + 9] = ttl & 0xff;
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
    recordCount: addresses.length,
    recordOctets,
    writeRecords,
  });
}
