/**
 * How new hosts-file content is laid over the old bytes in place, so that no step can lose a line
 * another process appends and a crash at any point leaves a file every resolver reads correctly.
 *
 * Pure: no I/O.
 *
 * `ftruncate` would cut a concurrent append, so it is avoided: trailing spaces on our END line
 * are slack that absorbs size changes (up to {@linkcode MAX_SLACK}); growth first reserves NULs
 * with `O_APPEND`; only removing the block or a large shrink writes NUL filler, then truncates.
 * Resolvers stop a line at NUL, and the writer drops every NUL before editing, which repairs every
 * crash state (and a power cut's zero-filled tail) on the next run.
 *
 * @module
 */

import { splitLines, trimAsciiWhitespace } from "../text_lines.ts";
import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import type { MarkersOption } from "./hosts_markers.ts";

/** The byte used to reserve space and to fill the tail of a shrink. */
export const FILLER = "\u0000";

/** The most slack (trailing spaces on the END line) kept instead of truncating. */
export const MAX_SLACK = 1024;

/** How one write turns the current bytes into the desired ones. */
export type WritePlan =
  | { readonly kind: "none" }
  /** Write `text` (exactly the current length) at offset 0. */
  | { readonly kind: "overwrite"; readonly text: string }
  /** Append `reserve` NULs, then write `text` (current length plus `reserve`) at offset 0. */
  | { readonly kind: "extend"; readonly text: string; readonly reserve: number }
  /** Write `text` plus `filler` NULs at offset 0, then truncate to the length of `text`. */
  | { readonly kind: "shrink"; readonly text: string; readonly filler: number };

/**
 * How to lay `desired` over `current`: same length when slack allows, else extend or shrink.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planWrite } from "./hosts_layout.ts";
 *
 * const end = "# === END ouroboros ===\n";
 * assert.deepEqual(planWrite(`a\n${end}`, `a\n${end}`), { kind: "none" });
 * assert.deepEqual(planWrite(`abc\n${end}`, `a\n${end}`), {
 *   kind: "overwrite",
 *   text: "a\n# === END ouroboros ===  \n",
 * });
 * assert.deepEqual(planWrite("127.0.0.1 localhost\n", ""), { kind: "shrink", text: "", filler: 20 });
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
 * `text` resized to exactly `length` by changing its END-line slack, or `undefined` when the slack
 * would be negative, beyond {@linkcode MAX_SLACK}, or there is no END line.
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

/** The trailing spaces and tabs of the END marker line, or `undefined` without one. */
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

/** Drops every NUL (filler, a stranded reserve, a zero-filled tail); `removed` counts them. */
export function stripFiller(text: string): { readonly text: string; readonly removed: number } {
  if (!text.includes(FILLER)) return { text, removed: 0 };
  const stripped = text.replaceAll(FILLER, "");
  return { text: stripped, removed: text.length - stripped.length };
}

/**
 * Bytes to text, one character per byte (Latin-1), so that invalid UTF-8 in someone's line
 * survives a round trip byte for byte.
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
