/**
 * The physical-line view of a text file that the Corefile and hosts-file editors both splice,
 * keeping each line's terminator so the bytes they do not own come back exactly as read. Only
 * `\n` ends a line (with a `\r` before it, CRLF): CoreDNS and glibc take a lone `\r` as
 * whitespace. A last line without a newline has an empty terminator, so that survives an edit.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One physical line: `text.slice(start, contentEnd)` is its content, `terminator` follows. */
export interface TextLine {
  /** Offset (UTF-16 code units) of the first character of the line. */
  readonly start: number;
  readonly contentEnd: number;
  /** Offset just past the terminator: the next line's `start`. */
  readonly end: number;
  /** The line break that ends the line; empty for a last line without one. */
  readonly terminator: "" | "\n" | "\r\n";
}

/**
 * Splits text into physical lines; joining `text.slice(line.start, line.end)` gives it back. The
 * empty string has no lines; a text ending in a newline has no empty line after it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { splitLines } from "./text_lines.ts";
 *
 * assert.deepEqual(splitLines(".:53 {\r\n}\n").map((line) => line.terminator), ["\r\n", "\n"]);
 * assert.deepEqual(splitLines("}").map((line) => line.terminator), [""]);
 * ```
 */
export function splitLines(text: string): TextLine[] {
  const lines: TextLine[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    if (newline === -1) {
      lines.push({ start, contentEnd: text.length, end: text.length, terminator: "" });
      break;
    }
    const crlf = newline > start && text.charCodeAt(newline - 1) === 0x0d;
    lines.push({
      start,
      contentEnd: crlf ? newline - 1 : newline,
      end: newline + 1,
      terminator: crlf ? "\r\n" : "\n",
    });
    start = newline + 1;
  }
  return lines;
}

/**
 * The line break for lines an editor adds: that of the text's first line break (a mixed file
 * follows its first line), or `\n` when it has none.
 */
export function newlineStyle(text: string): "\n" | "\r\n" {
  const newline = text.indexOf("\n");
  return newline > 0 && text.charCodeAt(newline - 1) === 0x0d ? "\r\n" : "\n";
}

/**
 * Trims ASCII whitespace only: a no-break space or other Unicode whitespace around a marker
 * makes it a different line.
 */
export function trimAsciiWhitespace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isAsciiWhitespace(text.charCodeAt(start))) start++;
  while (end > start && isAsciiWhitespace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/** Space, tab, LF, vertical tab, form feed or CR. */
export function isAsciiWhitespace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}
