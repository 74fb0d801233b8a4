/**
 * The addresses a reply gives for an A or AAAA question, from a reply already matched to its query.
 * Records of the type asked count whatever their owner name, as a resolver following a CNAME chain
 * puts the final addresses there. A TTL with the top bit set counts as 0 (RFC 2181 §8).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { formatIp } from "../../util/ip.ts";
import { nameEnd, readMessage } from "./read_message.ts";
import { TYPE_A, TYPE_AAAA } from "./record_type_name.ts";

/** What a reply says about the addresses of the name asked. */
export interface AnswerAddresses {
  /** The full RCODE (the OPT record's upper bits included). */
  readonly rcode: number;
  /** In the order given, without repeats, spelt as `formatIp` does. */
  readonly addresses: readonly string[];
  /** The smallest TTL of those records, in seconds; absent without any. */
  readonly ttl?: number;
  /** TC was set: the records may be incomplete. */
  readonly truncated: boolean;
}

/** Why a reply was not read as an answer. */
export interface UnreadableAnswer {
  readonly unreadable: string;
}

const FLAG_QR = 0x8000;
const FLAG_TC = 0x0200;

function u16(bytes: Uint8Array, offset: number): number {
  return (bytes[offset]! << 8) | bytes[offset + 1]!;
}

/**
 * Reads `reply`, a response to one A or AAAA question.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readAnswerAddresses } from "./read_answer_addresses.ts";
 *
 * const reply = new Uint8Array([0, 0, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0x61, 0, 0, 1, 0, 1,
 *   0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 30, 0, 4, 10, 96, 0, 7]);
 * assert.deepEqual(readAnswerAddresses(reply), {
 *   rcode: 0,
 *   addresses: ["10.96.0.7"],
 *   ttl: 30,
 *   truncated: false,
 * });
 * ```
 */
export function readAnswerAddresses(reply: Uint8Array): AnswerAddresses | UnreadableAnswer {
  const view = readMessage(reply);
  if ("malformed" in view) return { unreadable: `malformed reply: ${view.malformed}` };
  if ((view.flags & FLAG_QR) === 0) return { unreadable: "not a response" };
  if (view.questionCount !== 1 || view.question === undefined) {
    return { unreadable: `${view.questionCount} questions, not 1` };
  }
  const rcode = (view.flags & 0xf) | ((view.opt?.extendedRcode ?? 0) << 4);
  const truncated = (view.flags & FLAG_TC) !== 0;
  const type = view.question.type;
  const size = type === TYPE_A ? 4 : type === TYPE_AAAA ? 16 : 0;
  const addresses: string[] = [];
  let ttl: number | undefined;
  let offset = view.questionEnd;
  for (let i = 0; i < view.answerCount; i++) {
    offset = nameEnd(reply, offset);
    const recordType = u16(reply, offset);
    const length = u16(reply, offset + 8);
    const data = offset + 10;
    if (recordType === type && size > 0) {
      if (length !== size) return { unreadable: `an address record of ${length} octets, not ${size}` };
      const text = formatIp({ family: size === 4 ? 4 : 6, bytes: reply.slice(data, data + size) });
      if (!addresses.includes(text)) addresses.push(text);
      const raw = u16(reply, offset + 4) * 0x10000 + u16(reply, offset + 6);
      const seconds = raw >= 0x80000000 ? 0 : raw;
      ttl = ttl === undefined ? seconds : Math.min(ttl, seconds);
    }
    offset = data + length;
  }
  return { rcode, addresses, ...(ttl === undefined ? {} : { ttl }), truncated };
}
