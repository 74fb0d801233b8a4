/**
 * Turns an upstream's reply into the client's response, or rejects it as stray or spoofed unless
 * it answers our ID and question (name case-insensitive, RFC 5452 §9.1). Some servers send error
 * codes without a question: accepted. The client gets its own ID and question bytes back.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { buildErrorResponse, buildTruncatedResponse } from "./build_response.ts";
import { MIN_UDP_PAYLOAD, type ParsedQuery, RCODE } from "./classify_query.ts";
import { readMessage } from "./read_message.ts";

/** Why a reply was not relayed. */
export type RejectedReply = "malformed" | "mismatch";

/** What to do with one upstream reply. */
export type ReplyVerdict =
  | {
    readonly kind: "relay";
    readonly bytes: Uint8Array;
    /** The upstream set TC: the full answer needs TCP. */
    readonly upstreamTruncated: boolean;
    /** We truncated it to the client's limit. */
    readonly truncated: boolean;
    /** The full RCODE. */
    readonly rcode: number;
  }
  | { readonly kind: "reject"; readonly reason: RejectedReply; readonly detail: string };

/** Options for {@linkcode relayReply}. */
export interface RelayOptions {
  readonly query: ParsedQuery;
  readonly sentId: number;
  /** The UDP payload size our OPT record advertises. */
  readonly maxUdpPayload: number;
}

const FLAG_TC = 0x0200;
const FLAG_AA = 0x0400;
const ERROR_RCODES_WITHOUT_QUESTION: ReadonlySet<number> = new Set([
  RCODE.FORMERR,
  RCODE.SERVFAIL,
  RCODE.NOTIMP,
  RCODE.REFUSED,
]);

function foldCase(byte: number): number {
  return byte >= 0x41 && byte <= 0x5a ? byte + 0x20 : byte;
}

/** Whether the questions at offset 12 are the same, the name ignoring ASCII case. */
function sameQuestion(a: Uint8Array, aEnd: number, b: Uint8Array, bEnd: number): boolean {
  if (aEnd !== bEnd) return false;
  const nameEnd = aEnd - 4;
  for (let i = 12; i < nameEnd; i++) if (foldCase(a[i]!) !== foldCase(b[i]!)) return false;
  for (let i = nameEnd; i < aEnd; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Checks `reply` against the query we sent and builds the client's response from it. */
export function relayReply(reply: Uint8Array, options: RelayOptions): ReplyVerdict {
  const { query, sentId, maxUdpPayload } = options;
  const view = readMessage(reply);
  if ("malformed" in view) return { kind: "reject", reason: "malformed", detail: view.malformed };
  if ((view.flags & 0x8000) === 0) return { kind: "reject", reason: "mismatch", detail: "not a response" };
  if (view.id !== sentId) return { kind: "reject", reason: "mismatch", detail: "another ID" };
  if (((view.flags >> 11) & 0xf) !== 0) return { kind: "reject", reason: "mismatch", detail: "not a QUERY" };
  const rcode = (view.flags & 0xf) | ((view.opt?.extendedRcode ?? 0) << 4);
  const upstreamTruncated = (view.flags & FLAG_TC) !== 0;
  if (view.questionCount === 0 && ERROR_RCODES_WITHOUT_QUESTION.has(rcode)) {
    const bytes = buildErrorResponse(query, { rcode, maxUdpPayload });
    return { kind: "relay", bytes, upstreamTruncated, truncated: false, rcode };
  }
  if (view.questionCount !== 1 || !sameQuestion(reply, view.questionEnd, query.bytes, query.echoEnd)) {
    return { kind: "reject", reason: "mismatch", detail: "another question" };
  }
  if (reply.length > query.limit) {
    const bytes = buildTruncatedResponse(query, {
      rcode,
      authoritative: (view.flags & FLAG_AA) !== 0,
      maxUdpPayload,
    });
    return { kind: "relay", bytes, upstreamTruncated, truncated: true, rcode };
  }
  const bytes = reply.slice();
  bytes[0] = query.id >> 8;
  bytes[1] = query.id & 0xff;
  bytes.set(query.bytes.subarray(12, query.echoEnd), 12);
  if (view.opt !== undefined && query.opt !== undefined) {
    const size = Math.min(0xffff, Math.max(MIN_UDP_PAYLOAD, maxUdpPayload));
    bytes[view.opt.offset + 3] = size >> 8;
    bytes[view.opt.offset + 4] = size & 0xff;
  }
  return { kind: "relay", bytes, upstreamTruncated, truncated: false, rcode };
}
