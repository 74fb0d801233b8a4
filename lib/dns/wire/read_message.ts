/**
 * A structural reader of DNS messages (RFC 1035 §4): it walks the header, the questions and every
 * resource record, checks that each name and each record lies inside the packet, and reports
 * where the parts are, without building objects for the records. The server reads every query
 * and every upstream reply with it, so it is both the malformed-packet gate and the fast path.
 *
 * Why not `dns-packet`'s decoder: it turns label bytes into UTF-8 text (a label holding `.` or a
 * byte above 0x7f can no longer be told apart from two labels or from another byte), so the exact
 * question could not be echoed or matched; and it allocates an object per record, which the hot
 * path does not need. Rules kept here: a compression pointer must point strictly backwards from
 * the name that uses it (so pointer chains end; `dns-packet` has the same rule), labels are at
 * most 63 octets (a length byte of 64 or more is an unknown label type), names at most 255, the first question's name is never compressed (there is
 * nothing before it to point at), an OPT record sits in the additional section with the root
 * name, and nothing follows the last record.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Record type of the EDNS0 OPT pseudo-record (RFC 6891). */
export const TYPE_OPT = 41;

/** The EDNS0 OPT pseudo-record of a message. */
export interface OptView {
  /** Offset of the record (its root name byte) in the message. */
  readonly offset: number;
  /** The UDP payload size the sender can receive (the record's CLASS field). */
  readonly payloadSize: number;
  /** Upper eight bits of the extended RCODE. */
  readonly extendedRcode: number;
  readonly version: number;
  /** The DNSSEC OK bit. */
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
  /** The first question, when there is one. */
  readonly question: QuestionView | undefined;
  /** Offset just after the question section (12 when it is empty). */
  readonly questionEnd: number;
  /** The first OPT record of the additional section. */
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

/**
 * Checks the name at `offset` (following compression pointers, each strictly backwards from
 * the label sequence that holds it) and returns the offset just after it in place.
 */
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
 * The offset just after the name at `offset` of a message {@linkcode readMessage} accepted
 * (compression pointers allowed): how a reader of record data steps over an owner name. On a
 * message it did not accept, a name that breaks a rule throws an `Error`.
 *
 * @example
 * ```ts
 * import { nameEnd } from "./read_message.ts";
 *
 * nameEnd(new Uint8Array([1, 0x61, 0, 0xc0, 0]), 3); // 5
 * ```
 */
export function nameEnd(bytes: Uint8Array, offset: number): number {
  return skipName(bytes, offset, true);
}

/**
 * Reads a message's structure. Returns a {@linkcode MalformedMessage} (never throws) when the
 * message is shorter than a header, a name or record runs past the end or breaks a rule above,
 * or bytes follow the last record.
 *
 * @example
 * ```ts
 * import { readMessage } from "./read_message.ts";
 *
 * const query = new Uint8Array([0, 7, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0x61, 0, 0, 1, 0, 1]);
 * const view = readMessage(query);
 * if (!("malformed" in view)) view.question?.type; // 1 (A)
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
