/**
 * The physical-line view of a text file that the Corefile and hosts-file editors both splice,
 * keeping each line's own terminator so the bytes they do not own come back exactly as read.
 *
 * A line ends at `\n`; a `\r` right before that `\n` belongs to the terminator (CRLF). A `\r`
 * anywhere else is ordinary content (CoreDNS's lexer and glibc's hosts parser both treat a lone
 * `\r` as whitespace, never as a line break). The last line has an empty terminator when the
 * text does not end with a newline, which is how "no final newline" survives an edit.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One physical line: `text.slice(start, contentEnd)` is its content, `terminator` follows. */
export interface TextLine {
  /** Offset (UTF-16 code units) of the first character of the line. */
  readonly start: number;
  /** Offset just past the content, where the terminator starts. */
  readonly contentEnd: number;
  /** Offset just past the terminator: the next line's `start`. */
  readonly end: number;
  /** The line break that ends the line; empty for a last line without one. */
  readonly terminator: "" | "\n" | "\r\n";
}

/**
 * Splits text into physical lines. Joining `text.slice(line.start, line.end)` over all lines
 * gives the input back exactly. The empty string has no lines; a text ending in a newline has
 * no empty line after it.
 *
 * @example
 * ```ts
 * import { splitLines } from "./text_lines.ts";
 *
 * splitLines(".:53 {\r\n}\n").map((line) => line.terminator); // ["\r\n", "\n"]
 * splitLines("}").map((line) => line.terminator); // [""]
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
 * The line break for lines an editor adds: that of the text's first line break (`\r\n` when it
 * is preceded by `\r`, else `\n`), and `\n` for a text without any. A mixed file follows its
 * first line.
 *
 * @example
 * ```ts
 * import { newlineStyle } from "./text_lines.ts";
 *
 * newlineStyle(".:53 {\r\n    errors\r\n}\r\n"); // "\r\n"
 * newlineStyle(""); // "\n"
 * ```
 */
export function newlineStyle(text: string): "\n" | "\r\n" {
  const newline = text.indexOf("\n");
  return newline > 0 && text.charCodeAt(newline - 1) === 0x0d ? "\r\n" : "\n";
}

/**
 * Trims ASCII whitespace (space, tab, CR, LF, vertical tab, form feed) from both ends, and
 * nothing else. Marker lines are compared after this trim: a no-break space or any other
 * Unicode whitespace around a marker makes it a different line.
 *
 * @example
 * ```ts
 * import { trimAsciiWhitespace } from "./text_lines.ts";
 *
 * trimAsciiWhitespace("  # === END ouroboros ===\r"); // "# === END ouroboros ==="
 * ```
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
