/**
 * Reading a small optional file at start-up, before the permission to read it is given up.
 *
 * Effect: reads the file system.
 *
 * @module
 */

/** Reads a small text file, or `undefined` when it is missing or unreadable (callers default). */
export function readTextOrUndefined(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}
