/**
 * Splits a newline-delimited JSON byte stream (a watch) into complete lines, however it was
 * chunked. Linear in the bytes: a long line's pieces are joined once, not re-concatenated.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Turns chunks into complete lines. One instance per stream. */
export class LineSplitter {
  readonly #decoder = new TextDecoder("utf-8", { fatal: false });
  #pending: string[] = [];

  /** Adds one chunk; returns the lines it completed, without newlines or blank lines. */
  push(chunk: Uint8Array): string[] {
    const text = this.#decoder.decode(chunk, { stream: true });
    const last = text.lastIndexOf("\n");
    if (last === -1) {
      if (text !== "") this.#pending.push(text);
      return [];
    }
    const head = this.#pending.length === 0
      ? text.slice(0, last)
      : this.#pending.join("") + text.slice(0, last);
    const rest = text.slice(last + 1);
    this.#pending = rest === "" ? [] : [rest];
    const lines: string[] = [];
    let start = 0;
    while (start <= head.length) {
      let end = head.indexOf("\n", start);
      if (end === -1) end = head.length;
      // Tolerate CRLF and blank keep-alive lines.
      const line = head.charCodeAt(end - 1) === 13 ? head.slice(start, end - 1) : head.slice(start, end);
      if (line.trim() !== "") lines.push(line);
      start = end + 1;
    }
    return lines;
  }

  /** The text after the last newline: an incomplete line when the stream ended (`""` if none). */
  remainder(): string {
    return this.#pending.join("") + this.#decoder.decode();
  }
}
