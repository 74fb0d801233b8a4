/**
 * A structural reader of DNS messages (RFC 1035 §4): checks that every name and record lies
 * inside the packet and says where the parts are, building no record objects. It is both the
 * malformed-packet gate and the fast path for every query and reply.
 * Not `dns-packet`: it decodes labels as UTF-8 (a label holding `.` or bytes above 0x7f could no
 * longer be echoed or matched exactly) and allocates per record.
 * Compression pointers must point strictly backwards, so pointer chains end.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Record type of the EDNS0 OPT pseudo-record (RFC 6891). */
export const TYPE_OPT = 41;

/** The EDNS0 OPT pseudo-record of a message. */
export interface OptView {
  /** Offset of the record (its root name byte). */
  readonly offset: number;
  /** The UDP payload size the sender can receive (the record's CLASS field). */
  readonly payloadSize: number;
  /** Upper eight bits of the extended RCODE. */
  readonly extendedRcode: number;
  readonly version: number;
  readonly dnssecOk: boolean;
}

/** The first question of a message. Its name starts at offset 12 and is not compressed. */
export interface QuestionView {
  /** Offset just after the name's root label. */
  readonly nameEnd: number;
  readonly type: number;
  readonly class: number;
}

/** Where the parts of a well-formed message are. */
export interface MessageView {
  readonly id: number;
  /** The 16 bits after the ID: QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE. */
  readonly flags: number;
  readonly questionCount: number;
  readonly answerCount: number;
  readonly authorityCount: number;
  readonly additionalCount: number;
  readonly question: QuestionView | undefined;
  /** Offset just after the question section (12 when it is empty). */
  readonly questionEnd: number;
  readonly opt: OptView | undefined;
  /** How many OPT records the additional section holds (more than one is a FORMERR). */
  readonly optCount: number;
}

/** Why a message could not be read; `opt` is the OPT record when one was read before the fault. */
export interface MalformedMessage {
  readonly malformed: string;
  readonly opt: OptView | undefined;
}

/** Longest name in wire form, length octets and the root label included (RFC 1035 §2.3.4). */
export const MAX_NAME_OCTETS = 255;
const HEADER_OCTETS = 12;

/** Thrown inside the reader only; {@linkcode readMessage} turns it into a value. */
class Fault extends Error {}

function u16(bytes: Uint8Array, offset: number): number {
  return ((bytes[offset] ?? 0) << 8) | (bytes[offset + 1] ?? 0);
}

/** Checks the name at `offset` and returns the offset just after it in place. */
function skipName(bytes: Uint8Array, offset: number, allowPointers: boolean): number {
  let position = offset;
  let floor = offset;
  let end = -1;
  let octets = 0;
  while (true) {
    if (position >= bytes.length) throw new Fault("name runs past the end");
    const length = bytes[position]!;
    if (length === 0) {
      octets += 1;
      if (octets > MAX_NAME_OCTETS) throw new Fault("name longer than 255 octets");
      return end < 0 ? position + 1 : end;
    }
    const kind = length & 0xc0;
    if (kind === 0xc0) {
      if (!allowPointers) throw new Fault("compressed question name");
      if (position + 1 >= bytes.length) throw new Fault("pointer runs past the end");
      const target = u16(bytes, position) & 0x3fff;
      if (target >= floor) throw new Fault("compression pointer does not point backwards");
      if (end < 0) end = position + 2;
      position = target;
      floor = target;
      continue;
    }
    // 0x40 and 0x80 are the label types RFC 6891 retired: a length above 63 is not a label.
    if (kind !== 0) throw new Fault("unknown label type");
    octets += length + 1;
    if (octets > MAX_NAME_OCTETS) throw new Fault("name longer than 255 octets");
    position += length + 1;
  }
}

/**
 * The offset just after the name at `offset` of a message {@linkcode readMessage} accepted; on
 * another message, a name that breaks a rule throws.
 */
export function nameEnd(bytes: Uint8Array, offset: number): number {
  return skipName(bytes, offset, true);
}

/**
 * Reads a message's structure, or says why it is malformed (never throws).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readMessage } from "./read_message.ts";
 *
 * const query = new Uint8Array([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x61, 0, 0, 1, 0, 1]);
 * const view = readMessage(query);
 * assert.ok(!("malformed" in view));
 * assert.equal(view.question?.type, 1); // A
 * ```
 */
export function readMessage(bytes: Uint8Array): MessageView | MalformedMessage {
  let opt: OptView | undefined;
  try {
    if (bytes.length < HEADER_OCTETS) throw new Fault("shorter than a header");
    const questionCount = u16(bytes, 4);
    const answerCount = u16(bytes, 6);
    const authorityCount = u16(bytes, 8);
    const additionalCount = u16(bytes, 10);
    let offset = HEADER_OCTETS;
    let question: QuestionView | undefined;
    for (let i = 0; i < questionCount; i++) {
      const nameEnd = skipName(bytes, offset, i > 0);
      if (nameEnd + 4 > bytes.length) throw new Fault("question runs past the end");
      if (i === 0) question = { nameEnd, type: u16(bytes, nameEnd), class: u16(bytes, nameEnd + 2) };
      offset = nameEnd + 4;
    }
    const questionEnd = offset;
    const records = answerCount + authorityCount + additionalCount;
    const firstAdditional = answerCount + authorityCount;
    let optCount = 0;
    for (let i = 0; i < records; i++) {
      const start = offset;
      offset = skipName(bytes, offset, true);
      if (offset + 10 > bytes.length) throw new Fault("record runs past the end");
      const type = u16(bytes, offset);
      const dataLength = u16(bytes, offset + 8);
      const dataEnd = offset + 10 + dataLength;
      if (dataEnd > bytes.length) throw new Fault("record data runs past the end");
      if (type === TYPE_OPT) {
        if (i < firstAdditional) throw new Fault("OPT record outside the additional section");
        if (offset !== start + 1) throw new Fault("OPT record with a name other than the root");
        optCount += 1;
        opt ??= {
          offset: start,
          payloadSize: u16(bytes, offset + 2),
          extendedRcode: bytes[offset + 4]!,
          version: bytes[offset + 5]!,
          dnssecOk: (bytes[offset + 6]! & 0x80) !== 0,
        };
      }
      offset = dataEnd;
    }
    if (offset !== bytes.length) throw new Fault("bytes after the last record");
    return {
      id: u16(bytes, 0),
      flags: u16(bytes, 2),
      questionCount,
      answerCount,
      authorityCount,
      additionalCount,
      question,
      questionEnd,
      opt,
      optCount,
    };
  } catch (error) {
    if (error instanceof Fault) return { malformed: error.message, opt };
    throw error;
  }
}
