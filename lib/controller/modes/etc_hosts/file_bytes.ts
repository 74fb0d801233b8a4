/**
 * The byte-level reads, writes and checks on an open hosts file that the in-place writer shares.
 *
 * Effects: reads and writes the open file it is given; {@linkcode osErrorCode} and
 * {@linkcode sameInode} are pure.
 *
 * Reads always restart at offset 0 and stop at a size limit, since checks compare the whole file.
 *
 * @module
 */

/** The whole file from offset 0, or `undefined` when it is longer than `limit` bytes. */
export async function readAll(file: Deno.FsFile, limit: number): Promise<Uint8Array | undefined> {
  await file.seek(0, Deno.SeekMode.Start);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const buffer = new Uint8Array(64 * 1024);
  while (true) {
    const count = await file.read(buffer);
    if (count === null) break;
    total += count;
    if (total > limit) return undefined;
    chunks.push(buffer.slice(0, count));
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  return bytes;
}

/**
 * Whether the file, read again, starts with `prefix`: nobody changed what we read or wrote.
 * A concurrent append after `prefix` is fine; a file over the limit never matches.
 */
export async function fileStartsWith(
  file: Deno.FsFile,
  prefix: Uint8Array,
  options: { readonly limit: number },
): Promise<boolean> {
  const bytes = await readAll(file, options.limit);
  if (bytes === undefined || bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}

/** Writes all of `bytes` at offset 0 (a short write is continued, never left half done). */
export async function writeAt0(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  await file.seek(0, Deno.SeekMode.Start);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** Whether two `stat` results name the same file: notices a path swapped between two steps. */
export function sameInode(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * The errno name of an OS error (`"ENOSPC"`), or `undefined` for an abort reason or a bug, which
 * the writer lets reject instead of returning `failed`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { osErrorCode } from "./file_bytes.ts";
 *
 * assert.equal(osErrorCode(Object.assign(new Error("No space left on device"), { code: "ENOSPC" })), "ENOSPC");
 * assert.equal(osErrorCode(new TypeError("x is undefined")), undefined);
 * ```
 */
export function osErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}
