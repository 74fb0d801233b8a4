/**
 * The physical-line view of a hosts file, keeping every line's own terminator so the bytes that
 * belong to others come back exactly as they were read.
 *
 * A line ends at `\n`; a `\r` right before it belongs to the terminator (CRLF). A lone `\r` is
 * ordinary content: glibc's parser treats it as whitespace, and keeping it where it was is the
 * only way to give the file back unchanged. The last line has an empty terminator when the file
 * does not end with a newline.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One physical line: `text.slice(start, contentEnd)` is its content, the terminator follows. */
export interface HostsLine {
  /** Offset of the first character of the line. */
  readonly start: number;
  /** Offset just past the content, where the terminator starts. */
  readonly contentEnd: number;
  /** Offset just past the terminator: the next line's `start`. */
  readonly end: number;
  /** `"\n"`, `"\r\n"`, or `""` for a last line without a newline. */
  readonly terminator: "" | "\n" | "\r\n";
}

/**
 * Splits text into physical lines. Concatenating `text.slice(line.start, line.end)` over all
 * lines gives the input back. The empty string has no lines.
 *
 * @example
 * ```ts
 * splitHostsLines("127.0.0.1 localhost\r\n::1 localhost").map((l) => l.terminator); // ["\r\n", ""]
 * ```
 */
export function splitHostsLines(text: string): HostsLine[] {
  const lines: HostsLine[] = [];
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
 * The line break for lines we add: that of the file's first line break, `\n` when there is none.
 * A Windows-edited file (all CRLF) gets CRLF lines; a mixed file follows its first line.
 *
 * @example
 * ```ts
 * newlineStyle("127.0.0.1 localhost\r\n"); // "\r\n"
 * newlineStyle("");                        // "\n"
 * ```
 */
export function newlineStyle(text: string): "\n" | "\r\n" {
  const newline = text.indexOf("\n");
  return newline > 0 && text.charCodeAt(newline - 1) === 0x0d ? "\r\n" : "\n";
}

/**
 * Trims ASCII whitespace (space, tab, CR, LF, vertical tab, form feed) from both ends, and
 * nothing else: a marker surrounded by a no-break space is a different line.
 *
 * @example
 * ```ts
 * trimAscii("  # === END ouroboros ===   "); // "# === END ouroboros ==="
 * ```
 */
export function trimAscii(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isAsciiSpace(text.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

function isAsciiSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}
