/**
 * How new hosts-file content is laid over the old bytes in place, so that no step can lose a line
 * another process appends and a crash at any point leaves a file every resolver reads correctly.
 *
 * The file is a single-file bind mount on a read-only root filesystem, so it is rewritten in
 * place (a temp file plus `rename` fails there with EBUSY or EROFS). In place means the file's
 * length must change, and `ftruncate` is the dangerous step: it cuts whatever another process
 * appended (`echo … >> /etc/hosts`, cloud-init) between our last look and the truncation, and no
 * check can close that window. So the layout avoids truncating:
 *
 * - **Slack.** Trailing spaces on our END marker line are padding that we own: when the block
 *   shrinks, the freed bytes become spaces there and the file keeps its length (one write over
 *   bytes we have read; an append lands after them untouched). When the block grows, slack is
 *   used up first. Resolvers ignore it (it is a comment line), and the markers are compared
 *   after trimming whitespace, so the block stays intact. Slack is capped at
 *   {@linkcode MAX_SLACK} bytes so the END line stays short for parsers with fixed line buffers.
 * - **Extend by reserving.** When the file must grow, filler bytes (NUL) are first appended with
 *   `O_APPEND`, which the kernel places atomically at the current end: after anything another
 *   process appended. Once the writer has checked that its reserve sits right after the bytes it
 *   read, the new content is written over bytes it owns, and later appends land beyond them.
 * - **Shrink with filler, then truncate.** Only when the block is removed (zero hosts,
 *   `--cleanup`) or a shrink frees more than the slack cap does the file get shorter. The new
 *   content is written followed by NUL filler up to the old length (one write; nothing of the old
 *   tail survives), then the file is truncated to the new length. Between the two steps the file
 *   is the new content plus NULs: never empty, never a torn mix of old and new lines, and every
 *   resolver reads the new content (glibc and musl end a line at NUL; Go rejects the field).
 *
 * **Repair.** NUL never belongs in a hosts file, so the writer drops every NUL before editing
 * ({@linkcode stripFiller}). That turns each crash state back into clean text on the next run:
 * a reserve that was appended but not yet written over (old content plus NULs), the filler of an
 * interrupted shrink (new content plus NULs), and a reserve stranded behind another process's
 * append. It also repairs the zero-filled tail some filesystems leave after a power cut.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { splitLines, trimAsciiWhitespace } from "../text_lines.ts";
import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import type { MarkersOption } from "./hosts_markers.ts";

/** The byte used to reserve space and to fill the tail of an interrupted shrink. */
export const FILLER = "\u0000";

/** The most slack (trailing spaces on the END line) kept instead of truncating. */
export const MAX_SLACK = 1024;

/** How one write turns the current bytes into the desired ones. */
export type WritePlan =
  /** The file already holds the desired bytes. */
  | { readonly kind: "none" }
  /** Write `text` at offset 0; it has exactly the current length. */
  | { readonly kind: "overwrite"; readonly text: string }
  /**
   * Append `reserve` filler bytes, then write `text` at offset 0; `text` is exactly the current
   * length plus `reserve`.
   */
  | { readonly kind: "extend"; readonly text: string; readonly reserve: number }
  /**
   * Write `text` followed by `filler` NULs at offset 0 (the current length in all), then truncate
   * to the length of `text`.
   */
  | { readonly kind: "shrink"; readonly text: string; readonly filler: number };

/**
 * Decides how to lay `desired` over `current` (both as read/written, see
 * {@linkcode decodeHostsBytes}): same length when slack allows, else extend or shrink.
 *
 * @example
 * ```ts
 * import { planWrite } from "./hosts_layout.ts";
 *
 * const end = "# === END ouroboros ===\n";
 * planWrite(`a\n${end}`, `a\n${end}`); // { kind: "none" }
 * planWrite(`abc\n${end}`, `a\n${end}`); // { kind: "overwrite", text: "a\n# === END ouroboros ===  \n" }
 * planWrite("127.0.0.1 localhost\n", ""); // { kind: "shrink", text: "", filler: 20 }
 * ```
 */
export function planWrite(current: string, desired: string, options: MarkersOption = {}): WritePlan {
  const { markers = DEFAULT_MARKERS } = options;
  if (desired === current) return { kind: "none" };
  const fitted = fitLength(desired, current.length, { markers });
  if (fitted !== undefined) return { kind: "overwrite", text: fitted };
  if (desired.length < current.length) {
    return { kind: "shrink", text: desired, filler: current.length - desired.length };
  }
  const slack = endSlack(desired, markers)?.length ?? 0;
  const length = Math.max(current.length, desired.length - slack);
  const text = fitLength(desired, length, { markers }) ?? desired;
  return { kind: "extend", text, reserve: text.length - current.length };
}

/**
 * `text` with the slack on its END line changed so the whole is exactly `length` characters, or
 * `undefined` when that needs negative slack, slack beyond {@linkcode MAX_SLACK}, or an END line
 * that is not there.
 *
 * @example
 * ```ts
 * import { fitLength } from "./hosts_layout.ts";
 *
 * fitLength("# === END ouroboros ===\n", 26); // "# === END ouroboros ===  \n"
 * ```
 */
export function fitLength(text: string, length: number, options: MarkersOption = {}): string | undefined {
  if (text.length === length) return text;
  const slack = endSlack(text, options.markers);
  if (slack === undefined) return undefined;
  const wanted = slack.length + (length - text.length);
  if (wanted < 0) return undefined;
  if (wanted > MAX_SLACK && wanted > slack.length) return undefined;
  return text.slice(0, slack.start) + " ".repeat(wanted) + text.slice(slack.start + slack.length);
}

/**
 * Where the slack of the END marker line is: its trailing spaces and tabs, before the line
 * break. `undefined` when the text has no END marker line.
 *
 * @example
 * ```ts
 * import { endSlack } from "./hosts_layout.ts";
 *
 * endSlack("x\n# === END ouroboros ===   \r\n"); // { start: 25, length: 3 }
 * ```
 */
export function endSlack(
  text: string,
  markers: BlockMarkers = DEFAULT_MARKERS,
): { readonly start: number; readonly length: number } | undefined {
  for (const line of splitLines(text)) {
    const content = text.slice(line.start, line.contentEnd);
    if (trimAsciiWhitespace(content) !== markers.end) continue;
    let start = line.contentEnd;
    while (start > line.start && isSlack(text.charCodeAt(start - 1))) start--;
    return { start, length: line.contentEnd - start };
  }
  return undefined;
}

function isSlack(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Drops every NUL: the filler of an interrupted write, a stranded reserve, or a filesystem's
 * zero-filled tail. `removed` counts them.
 *
 * @example
 * ```ts
 * import { stripFiller } from "./hosts_layout.ts";
 *
 * stripFiller("a b\n\u0000\u0000"); // { text: "a b\n", removed: 2 }
 * ```
 */
export function stripFiller(text: string): { readonly text: string; readonly removed: number } {
  if (!text.includes(FILLER)) return { text, removed: 0 };
  const stripped = text.replaceAll(FILLER, "");
  return { text: stripped, removed: text.length - stripped.length };
}

/**
 * Bytes to text, one character per byte (ISO-8859-1 code points). Unlike UTF-8 decoding this
 * never replaces anything: a Latin-1 comment or a stray invalid byte in someone's line comes
 * back byte for byte when the text is encoded again.
 *
 * @example
 * ```ts
 * import { decodeHostsBytes } from "./hosts_layout.ts";
 *
 * decodeHostsBytes(new Uint8Array([0x23, 0xe9, 0x0a])); // "#\u00e9\n"
 * ```
 */
export function decodeHostsBytes(bytes: Uint8Array): string {
  const chunk = 0x2000;
  let text = "";
  for (let start = 0; start < bytes.length; start += chunk) {
    text += String.fromCharCode(...bytes.subarray(start, start + chunk));
  }
  return text;
}

/**
 * Text from {@linkcode decodeHostsBytes} (plus our ASCII lines) back to bytes.
 *
 * @throws {RangeError} for a character above U+00FF, which no decoded file or rendered line holds.
 *
 * @example
 * ```ts
 * import { encodeHostsText } from "./hosts_layout.ts";
 *
 * encodeHostsText("#\u00e9\n"); // Uint8Array [0x23, 0xe9, 0x0a]
 * ```
 */
export function encodeHostsText(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0xff) throw new RangeError(`character U+${code.toString(16)} at ${index} is not a byte`);
    bytes[index] = code;
  }
  return bytes;
}
