/**
 * Reading a small optional file at start-up (`/etc/resolv.conf`, the service account's
 * namespace file), before the permission to read it is given up.
 *
 * Effect: reads the file system.
 *
 * @module
 */

/**
 * Reads a small text file, or returns `undefined` when it is missing or not readable: callers
 * fall back to a default (the cluster domain `cluster.local`, an unknown namespace).
 *
 * @example
 * ```ts
 * import { readTextOrUndefined } from "./read_text_or_undefined.ts";
 *
 * const resolvConf = readTextOrUndefined("/etc/resolv.conf") ?? "";
 * ```
 */
export function readTextOrUndefined(path: string): string | undefined {
  try {
    return Deno.readTextFileSync(path);
  } catch {
    return undefined;
  }
}
