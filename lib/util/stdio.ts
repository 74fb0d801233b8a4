/**
 * Whole-text writes to stdout and stderr, synchronous so text is out before the process exits
 * and never interleaves half-written.
 *
 * Effects: writes to the process's stdout and stderr.
 *
 * @module
 */

const encoder = new TextEncoder();

function writeAll(stream: { writeSync(bytes: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let offset = 0;
  while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
}

/** Writes all of `text` to stdout. */
export function printStdout(text: string): void {
  writeAll(Deno.stdout, text);
}

/** Writes all of `text` to stderr. */
export function printStderr(text: string): void {
  writeAll(Deno.stderr, text);
}
