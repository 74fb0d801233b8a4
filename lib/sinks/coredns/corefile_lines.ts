/**
 * Corefile-specific line helpers; the line splitting itself is shared with the hosts-file editor
 * (`../text_lines.ts`).
 *
 * Pure: no I/O.
 *
 * @module
 */

/**
 * The leading run of spaces and tabs of a line's content. Only those two characters are ever
 * copied into lines we write, so an odd whitespace character (a vertical tab, a no-break space)
 * in someone's indentation cannot travel into our block.
 *
 * @example
 * ```ts
 * leadingIndent("\t\tcache 30", 0); // "\t\t"
 * ```
 */
export function leadingIndent(text: string, start: number, end: number = text.length): string {
  let index = start;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09) break;
    index++;
  }
  return text.slice(start, index);
}
