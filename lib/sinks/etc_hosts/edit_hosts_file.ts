/**
 * Reads, edits and rewrites a node's hosts file in place, under an exclusive `flock`, so that the
 * file is never empty, never torn, and never loses a line another process appends.
 *
 * Why in place: the DaemonSet mounts the node's file as a single-file hostPath on a read-only
 * root filesystem. A temp file next to it cannot be created (EROFS), and `rename` onto a mount
 * point fails (EBUSY, or EXDEV from another filesystem). So the writer opens the file itself.
 *
 * One pass, with the file open read/write and `flock(LOCK_EX)` held (other ouroboros writers
 * and tools that lock, such as `flock(1)`, wait; tools that do not lock are handled below):
 *
 * 1. Check the path (`hosts_path.ts`), `lstat` it (refuse a symlink or a non-regular file), open
 *    it, and check the open file is the inode `lstat` saw (a swap to a symlink in between would
 *    show as a different inode).
 * 2. Read it, drop NUL filler (`hosts_layout.ts`), run the edit. Unchanged → return without a
 *    write: the file is not even written with the same bytes, so its mtime stays.
 * 3. Lay the new text over the old (`planWrite`). Before `overwrite` and `shrink` the file is read
 *    again: if the bytes we read changed (a writer that does not lock), the pass starts again.
 *    - `overwrite`: one write at offset 0 of exactly the old length (slack absorbs a shrink);
 *    - `extend`: append NUL filler with `O_APPEND` (the kernel puts it after anything appended
 *      meanwhile), re-read to check it sits right after what we read, then one write at 0;
 *    - `shrink`: one write at 0 of the new text plus NUL filler up to the old length, then
 *      `ftruncate` to the new length, only if the file still has the old length.
 * 4. `fsync`, re-read and check the file starts with what we wrote and the path still names our
 *    inode. Lines appended after our write are fine (they follow it); anything else means
 *    someone changed the file under us, and the pass starts again.
 *
 * Crash windows (a `kill -9`; each write below is one `write(2)` of a small file, which a signal
 * does not split):
 *
 * - during `extend`, between the reserve and the write: the old content plus NULs;
 * - during `shrink`, between the write and the truncate: the new content plus NULs.
 *
 * Every resolver reads those states as the old or the new content, and the next pass drops the
 * NULs and finishes the job (a shrink completes, a reserve is removed or reused). A power cut
 * before the `fsync` may persist any mix of written pages; the same NUL repair covers a
 * zero-filled tail, and the marker checks refuse anything torn inside our block.
 *
 * Appenders that do not lock (`echo … >> /etc/hosts`) write at the end of the file. `overwrite`
 * and `extend` write only over bytes this pass has read or reserved, so an append can never be
 * overwritten. The only step that can cut one is the truncation of a `shrink`, which happens when
 * the block is removed or shrinks by more than the slack cap: the length is checked immediately
 * before `ftruncate`, leaving a window of a few microseconds between two system calls that no
 * user-space check can close.
 *
 * Waiting for the lock is not cancellable (`flock` blocks in the kernel): the signal is checked
 * before the lock is taken and again once it is held, never in the middle of a write.
 *
 * @module
 */

import type { BlockMarkers } from "../markers.ts";
import { type HostsEdit } from "./hosts_block.ts";
import {
  decodeHostsBytes,
  encodeHostsText,
  FILLER,
  planWrite,
  stripFiller,
  type WritePlan,
} from "./hosts_layout.ts";
import { hostsPathProblem } from "./hosts_path.ts";
import { type HostsRefusal, hostsRefusal } from "./hosts_problems.ts";
import { errorMessage } from "../../util/error_message.ts";

/**
 * Points between the steps of a pass, for tests that interleave another writer or kill the
 * process there. Production code passes none.
 */
export interface HostsFileHooks {
  /** The file has been read under the lock; nothing has been written. */
  readonly afterRead?: () => void | Promise<void>;
  /** The `extend` reserve has been appended; the content has not been written over it. */
  readonly afterReserve?: () => void | Promise<void>;
  /** The `shrink` content and filler have been written; the file has not been truncated. */
  readonly afterWrite?: () => void | Promise<void>;
}

/** Options for {@linkcode editHostsFile}. */
export interface HostsFileOptions {
  readonly hooks?: HostsFileHooks;
  /** Passes before giving up when the file keeps changing under us (default 5). */
  readonly maxAttempts?: number;
  /** Larger files are refused (default 16 MiB). */
  readonly maxBytes?: number;
  /** The release's markers, whose END line carries the length slack (default: the original's). */
  readonly markers?: BlockMarkers;
}

/** What one {@linkcode editHostsFile} call did. */
export type HostsFileResult =
  /** Nothing was written. */
  | {
    readonly kind: "unchanged";
    readonly previousHosts: readonly string[];
    readonly shadowed: readonly string[];
  }
  /** The file was written and verified. */
  | {
    readonly kind: "written";
    readonly previousHosts: readonly string[];
    readonly shadowed: readonly string[];
    /** How the new content was laid over the old one. */
    readonly layout: Exclude<WritePlan["kind"], "none">;
    /** NUL bytes dropped (left by an interrupted write or a power cut); 0 normally. */
    readonly repairedFiller: number;
    /** Passes it took (more than 1 when another process changed the file meanwhile). */
    readonly attempts: number;
  }
  | HostsRefusal;

/** The default of {@linkcode HostsFileOptions.maxAttempts}. */
export const DEFAULT_MAX_ATTEMPTS = 5;
/** The default of {@linkcode HostsFileOptions.maxBytes}. */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/** One pass's result, or "start again" with the NULs this pass left in the file. */
type Pass = HostsFileResult | {
  readonly kind: "retry";
  readonly why: string;
  readonly strandedFiller: number;
};

/**
 * Applies `edit` to the hosts file at `path` in place. Resolves with a refusal for conditions a
 * person must fix (path, symlink, missing file, read-only, damaged markers); rejects on I/O
 * errors such as ENOSPC and when the file kept changing under us for every attempt.
 *
 * @example
 * ```ts
 * const result = await editHostsFile(
 *   "/host/etc/hosts",
 *   (text) => applyHostsBlock(text, "10.96.0.10", ["app.example.com"]),
 *   AbortSignal.timeout(10_000),
 * );
 * ```
 */
export async function editHostsFile(
  path: string,
  edit: (text: string) => HostsEdit,
  signal: AbortSignal,
  options: HostsFileOptions = {},
): Promise<HostsFileResult> {
  const pathProblem = hostsPathProblem(path);
  if (pathProblem !== undefined) return pathProblem;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let why = "";
  let ownFiller = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    signal.throwIfAborted();
    const pass = await onePass(path, edit, signal, options, attempt);
    if (pass.kind === "written") {
      // NULs our own earlier attempt stranded are not damage worth reporting.
      return { ...pass, repairedFiller: Math.max(0, pass.repairedFiller - ownFiller) };
    }
    if (pass.kind !== "retry") return pass;
    why = pass.why;
    ownFiller += pass.strandedFiller;
  }
  throw new Error(
    `${path} changed under us on each of ${maxAttempts} attempts (last: ${why}); will retry later`,
  );
}

async function onePass(
  path: string,
  edit: (text: string) => HostsEdit,
  signal: AbortSignal,
  options: HostsFileOptions,
  attempt: number,
): Promise<Pass> {
  const hooks = options.hooks ?? {};
  let linkInfo: Deno.FileInfo;
  try {
    linkInfo = await Deno.lstat(path);
  } catch (error) {
    return openRefusal(path, error);
  }
  if (linkInfo.isSymlink) {
    return hostsRefusal(
      "symlink",
      `refusing to write ${path}: it is a symbolic link, and following it could overwrite another file as root; ` +
        "mount the node's hosts file itself (hostPath type File)",
    );
  }
  if (!linkInfo.isFile) {
    return hostsRefusal(
      "not-regular-file",
      `refusing to write ${path}: it is not a regular file (a directory, device, FIFO or socket)`,
    );
  }

  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true, write: true });
  } catch (error) {
    return openRefusal(path, error);
  }
  try {
    const opened = await file.stat();
    if (!sameInode(opened, linkInfo)) {
      return { kind: "retry", why: "the path was replaced while opening it", strandedFiller: 0 };
    }
    await file.lock(true);
    signal.throwIfAborted();

    const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
    const raw = await readAll(file, maxBytes);
    if (raw === undefined) {
      return hostsRefusal(
        "file-too-large",
        `refusing to edit ${path}: it is larger than ${maxBytes} bytes, far beyond any hosts file; check what writes to it`,
      );
    }
    await hooks.afterRead?.();
    const current = decodeHostsBytes(raw);
    const clean = stripFiller(current);
    const result = edit(clean.text);
    if (result.kind === "refused") return { ...result, message: `${path}: ${result.message}` };
    const desired = result.kind === "changed" ? result.text : clean.text;
    const plan = planWrite(current, desired, options.markers);
    if (plan.kind === "none") {
      return { kind: "unchanged", previousHosts: result.previousHosts, shadowed: result.shadowed };
    }

    const laid = await layOver(file, path, current, plan, hooks, maxBytes);
    if (laid !== undefined) return { kind: "retry", why: laid.why, strandedFiller: laid.stranded };
    await file.sync();
    const problem = await verify(file, path, encodeHostsText(plan.text), maxBytes);
    if (problem !== undefined) return { kind: "retry", why: problem, strandedFiller: 0 };
    return {
      kind: "written",
      previousHosts: result.previousHosts,
      shadowed: result.shadowed,
      layout: plan.kind,
      repairedFiller: clean.removed,
      attempts: attempt,
    };
  } finally {
    // Closing the descriptor releases the flock.
    file.close();
  }
}

/** Why a pass must start again, and how many NULs it left in the file. */
interface Interrupted {
  readonly why: string;
  readonly stranded: number;
}

/** Carries out a write plan; returns why the pass must start again, or `undefined`. */
async function layOver(
  file: Deno.FsFile,
  path: string,
  current: string,
  plan: Exclude<WritePlan, { kind: "none" }>,
  hooks: HostsFileHooks,
  maxBytes: number,
): Promise<Interrupted | undefined> {
  if (plan.kind !== "extend") {
    const now = await readAll(file, maxBytes);
    if (now === undefined || !startsWith(now, encodeHostsText(current))) {
      return { why: "another process changed the file between our read and our write", stranded: 0 };
    }
  }
  switch (plan.kind) {
    case "overwrite":
      await writeAt0(file, encodeHostsText(plan.text));
      return undefined;
    case "extend": {
      const reserved = await reserve(file, path, current.length, plan.reserve);
      if (reserved !== undefined) return { why: reserved, stranded: 0 };
      await hooks.afterReserve?.();
      const now = await readAll(file, maxBytes);
      const expected = encodeHostsText(current + FILLER.repeat(plan.reserve));
      if (now === undefined || !startsWith(now, expected)) {
        return { why: "another process wrote between our read and our reserve", stranded: plan.reserve };
      }
      await writeAt0(file, encodeHostsText(plan.text));
      return undefined;
    }
    case "shrink":
      await writeAt0(file, encodeHostsText(plan.text + FILLER.repeat(plan.filler)));
      await hooks.afterWrite?.();
      if (!truncateIfLength(file, current.length, plan.text.length)) {
        return { why: "another process appended before we could truncate", stranded: plan.filler };
      }
      return undefined;
  }
}

/**
 * Appends `count` NULs with `O_APPEND`. On failure (ENOSPC) takes back what was appended when the
 * file still ends where it did, then rethrows with the path.
 */
async function reserve(
  file: Deno.FsFile,
  path: string,
  length: number,
  count: number,
): Promise<string | undefined> {
  const appender = await Deno.open(path, { append: true });
  let written = 0;
  try {
    const target = await file.stat();
    if (!sameInode(await appender.stat(), target)) return "the path was replaced while reserving space";
    const filler = new Uint8Array(count);
    while (written < count) written += await appender.write(filler.subarray(written));
    return undefined;
  } catch (error) {
    if (written > 0) truncateIfLength(file, length + written, length);
    throw new Error(`cannot grow ${path} by ${count} bytes: ${errorMessage(error)}`, { cause: error });
  } finally {
    appender.close();
  }
}

/** Checks the written bytes are in place and the path still names our file. */
async function verify(
  file: Deno.FsFile,
  path: string,
  expected: Uint8Array,
  maxBytes: number,
): Promise<string | undefined> {
  const now = await readAll(file, maxBytes);
  if (now === undefined || !startsWith(now, expected)) return "the file differs from what we wrote";
  try {
    if (!sameInode(await Deno.lstat(path), await file.stat())) return "the path names another file now";
  } catch {
    return "the path disappeared after the write";
  }
  return undefined;
}

/**
 * Truncates to `length` only when the file is `expected` bytes long right now. Synchronous so the
 * check and the truncation are two consecutive system calls with nothing scheduled in between.
 */
function truncateIfLength(file: Deno.FsFile, expected: number, length: number): boolean {
  if (file.statSync().size !== expected) return false;
  file.truncateSync(length);
  return true;
}

async function writeAt0(file: Deno.FsFile, bytes: Uint8Array): Promise<void> {
  await file.seek(0, Deno.SeekMode.Start);
  let written = 0;
  while (written < bytes.length) written += await file.write(bytes.subarray(written));
}

/** The whole file from offset 0, or `undefined` when it is longer than `limit` bytes. */
async function readAll(file: Deno.FsFile, limit: number): Promise<Uint8Array | undefined> {
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

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  if (bytes.length < prefix.length) return false;
  for (let index = 0; index < prefix.length; index++) if (bytes[index] !== prefix[index]) return false;
  return true;
}

function sameInode(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Turns an lstat/open failure a person must fix into a refusal; rethrows anything else. */
function openRefusal(path: string, error: unknown): HostsRefusal {
  if (error instanceof Deno.errors.NotFound) {
    return hostsRefusal(
      "missing-file",
      `${path} does not exist: mount the node's hosts file there (hostPath type File) or set --etc-hosts`,
    );
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  if (
    error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable ||
    code === "EROFS"
  ) {
    return hostsRefusal(
      "not-writable",
      `cannot open ${path} for writing: ${
        errorMessage(error)
      }; the hostPath mount must be read-write and the ` +
        "controller must run as a user that may write the file",
    );
  }
  throw new Error(`cannot open ${path}: ${errorMessage(error)}`, { cause: error });
}
