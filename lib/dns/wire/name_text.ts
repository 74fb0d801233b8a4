/**
 * The text an answerer matches a question name against (ASCII lower case, RFC 4343). Ambiguous
 * bytes are escaped as in zone files (`\.`, `\\`, `\DDD`), so a label holding a dot never reads as
 * two labels and odd bytes never match a plain host name.
 *
 * Pure: no I/O.
 *
 * @module
 */

const BACKSLASH = 0x5c;
const DOT = 0x2e;

/** Room for the longest name with every byte escaped as `\DDD`. */
const scratch = new Uint8Array(255 * 4);

/**
 * The text of the uncompressed name at `offset` (the caller has checked it with `readMessage`).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nameText } from "./name_text.ts";
 *
 * assert.equal(nameText(new Uint8Array([3, 0x57, 0x57, 0x57, 1, 0x2e, 0]), 0), "www.\\.");
 * ```
 */
export function nameText(bytes: Uint8Array, offset: number): string {
  let out = 0;
  let position = offset;
  while (true) {
    const length = bytes[position] ?? 0;
    if (length === 0 || length > 63) break;
    if (out > 0) scratch[out++] = DOT;
    const end = position + 1 + length;
    for (let i = position + 1; i < end; i++) {
      const byte = bytes[i] ?? 0;
      if (byte >= 0x41 && byte <= 0x5a) scratch[out++] = byte + 0x20;
      else if (byte === DOT || byte === BACKSLASH) {
        scratch[out++] = BACKSLASH;
        scratch[out++] = byte;
      } else if (byte <= 0x20 || byte >= 0x7f) {
        scratch[out++] = BACKSLASH;
        scratch[out++] = 0x30 + Math.floor(byte / 100);
        scratch[out++] = 0x30 + (Math.floor(byte / 10) % 10);
        scratch[out++] = 0x30 + (byte % 10);
      } else scratch[out++] = byte;
    }
    position = end;
  }
  return String.fromCharCode(...scratch.subarray(0, out));
}
