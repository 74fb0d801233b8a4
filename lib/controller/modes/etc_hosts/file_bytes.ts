/**
 * The byte-level reads, writes and checks on an open hosts file that every step of the in-place
 * writer shares (`edit_hosts_file.ts`, `write_in_place.ts`).
 *
 * Decisions: every read starts again at offset 0 and reads to the end, because the writer's
 * checks compare the whole file with what it read or wrote before; a read stops at a size limit
 * instead of loading an unbounded file. An OS error (one carrying an errno name such as `ENOSPC`
 * or `EIO`) is told apart from a bug by its `code`, so the writer can return the first as a
 * `failed` value the controller retries and let the second reject.
 *
 * Effects: reads and writes the open file it is given; {@linkcode osErrorCode} and
 * {@linkcode sameInode} are pure.
 *
 * @module
 */

/**
 * The whole file from offset 0, or `undefined` when it is longer than `limit` bytes.
 *
 * @example
 * ```ts
 * import { readAll } from "./file_bytes.ts";
 *
 * declare const file: Deno.FsFile; // the open hosts file
 * const bytes = await readAll(file, 16 * 1024 * 1024); // undefined when the file is over 16 MiB
 * ```
 */
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
 * Whether the file (read again from offset 0, at most `options.limit` bytes) starts with `prefix`: the
 * writer's check that nobody changed the bytes it read or wrote. Anything after `prefix` (a line
 * appended meanwhile) does not matter; a file over the limit never matches.
 *
 * @example
 * ```ts
 * import { fileStartsWith } from "./file_bytes.ts";
 * import { encodeHostsText } from "./hosts_layout.ts";
 *
 * declare const file: Deno.FsFile; // the open hosts file
 * declare const current: string; // its text as read before
 * const unchanged = await fileStartsWith(file, encodeHostsText(current), { limit: 16 * 1024 * 1024 });
 * // false when another process changed the bytes read meanwhile: start again
 * ```
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

/**
 * Writes all of `bytes` at offset 0 (a short write is continued, never left half done).
 *
 * @example
 * ```ts
 * import { writeAt0 } from "./file_bytes.ts";
 * import { encodeHostsText } from "./hosts_layout.ts";
 *
 * declare const file: Deno.FsFile; // the open hosts file
 * await writeAt0(file, encodeHostsText("127.0.0.1 localhost\n"));
 * ```
 */
export async function writeAt0(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  await file.seek(0, Deno.SeekMode.Start);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/**
 * Whether two `stat` results name the same file (device and inode): how the writer notices that
 * the path was swapped for another file between two of its steps.
 *
 * @example
 * ```ts
 * import { sameInode } from "./file_bytes.ts";
 *
 * declare const file: Deno.FsFile; // opened from /host/etc/hosts
 * sameInode(await Deno.lstat("/host/etc/hosts"), await file.stat()); // false after a rename onto the path
 * ```
 */
export function sameInode(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/**
 * The errno name of an error the operating system reported (`"ENOSPC"`, `"EROFS"`), or
 * `undefined` for anything else (an abort reason, a bug).
 *
 * @example
 * ```ts
 * import { osErrorCode } from "./file_bytes.ts";
 *
 * osErrorCode(Object.assign(new Error("No space left on device"), { code: "ENOSPC" })); // "ENOSPC"
 * osErrorCode(new TypeError("x is undefined")); // undefined
 * ```
 */
export function osErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}
