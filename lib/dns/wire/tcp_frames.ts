/**
 * DNS over TCP framing (RFC 1035 §4.2.2): each message is preceded by its two-byte length.
 *
 * Pure: no I/O.
 *
 * @module
 */

/**
 * Cuts a stream arriving in pieces of any size into whole messages; holds one partial at most.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { TcpFrameReader } from "./tcp_frames.ts";
 *
 * const reader = new TcpFrameReader();
 * assert.deepEqual(reader.push(new Uint8Array([0, 2, 7])), []);
 * assert.deepEqual(reader.push(new Uint8Array([8, 0, 1, 9])), [new Uint8Array([7, 8]), new Uint8Array([9])]);
 * ```
 */
export class TcpFrameReader {
  #pending = new Uint8Array(0);

  /** Adds `chunk` and returns the messages it completes, in order (zero-length ones included). */
  push(chunk: Uint8Array): Uint8Array[] {
    let bytes = chunk;
    if (this.#pending.length > 0) {
      bytes = new Uint8Array(this.#pending.length + chunk.length);
      bytes.set(this.#pending);
      bytes.set(chunk, this.#pending.length);
    }
    const messages: Uint8Array[] = [];
    let offset = 0;
    while (offset + 2 <= bytes.length) {
      const length = (bytes[offset]! << 8) | bytes[offset + 1]!;
      if (offset + 2 + length > bytes.length) break;
      messages.push(bytes.slice(offset + 2, offset + 2 + length));
      offset += 2 + length;
    }
    this.#pending = offset === bytes.length ? new Uint8Array(0) : bytes.slice(offset);
    return messages;
  }

  /** Bytes of a message begun but not complete. */
  get buffered(): number {
    return this.#pending.length;
  }
}

/** `message` with its two-byte length in front. */
export function frameMessage(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(message.length + 2);
  out[0] = message.length >> 8;
  out[1] = message.length & 0xff;
  out.set(message, 2);
  return out;
}
