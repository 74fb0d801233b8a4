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
 * const bytes = await readAll(file, 16 * 1024 * 1024);
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
 * Whether the file (read again from offset 0, at most `limit` bytes) starts with `prefix`: the
 * writer's check that nobody changed the bytes it read or wrote. Anything after `prefix` (a line
 * appended meanwhile) does not matter; a file over the limit never matches.
 *
 * @example
 * ```ts
 * if (!await fileStartsWith(file, encodeHostsText(current), maxBytes)) return "changed under us";
 * ```
 */
export async function fileStartsWith(file: Deno.FsFile, prefix: Uint8Array, limit: number): Promise<boolean> {
  const bytes = await readAll(file, limit);
  if (bytes === undefined || bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}

/**
 * Writes all of `bytes` at offset 0 (a short write is continued, never left half done).
 *
 * @example
 * ```ts
 * await writeAt0(file, encodeHostsText(plan.text));
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
 * sameInode(await Deno.lstat(path), await file.stat()); // false after a rename onto `path`
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
 * osErrorCode(Object.assign(new Error("No space left on device"), { code: "ENOSPC" })); // "ENOSPC"
 * osErrorCode(new TypeError("x is undefined"));                                       // undefined
 * ```
 */
export function osErrorCode(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code) ? code : undefined;
}
