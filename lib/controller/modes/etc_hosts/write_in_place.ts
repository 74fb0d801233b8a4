/**
 * Carries out one {@linkcode WritePlan} on the open, locked hosts file, so that the file is never
 * empty, never torn, and never loses a line another process appends. `hosts_layout.ts` decides
 * the plan (pure); this file does its writes, in the order that keeps those promises.
 *
 * - `overwrite`: the file is read again and must still start with what the pass read; then one
 *   write at offset 0 of exactly the old length (slack absorbs a shrink).
 * - `extend`: append NUL filler with `O_APPEND` (the kernel puts it after anything appended
 *   meanwhile), re-read to check it sits right after what we read, then one write at 0.
 * - `shrink`: the same re-read as `overwrite`; one write at 0 of the new text plus NUL filler up
 *   to the old length, then `ftruncate` to the new length, only if the file still has the old
 *   length.
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
 * A reserve that fails (ENOSPC) is taken back when the file still ends where it did, and the
 * failure is a `failed` value, not a rejection: the controller retries, and a later, smaller
 * set may need no new space at all.
 *
 * Effects: the open file and, for `extend`, a second descriptor on the path opened for appending.
 *
 * @module
 */

import type { SinkOutcome } from "../sink.ts";
import { fileStartsWith, osErrorCode, sameInode, writeAt0 } from "./file_bytes.ts";
import { encodeHostsText, FILLER, type WritePlan } from "./hosts_layout.ts";
import { errorMessage } from "../../../util/error_message.ts";

/** Points between the write steps, for tests that append there or kill the process. */
export interface WriteInPlaceHooks {
  /** The `extend` reserve has been appended; the content has not been written over it. */
  readonly afterReserve?: () => void | Promise<void>;
  /** The `shrink` content and filler have been written; the file has not been truncated. */
  readonly afterWrite?: () => void | Promise<void>;
}

/** Options for {@linkcode writeInPlace}. */
export interface WriteInPlaceOptions {
  /** The path the file was opened from (reserving opens it again, for appending). */
  readonly path: string;
  /** The file's content as the pass read it (one character per byte). */
  readonly current: string;
  /** Re-reads longer than this count as "changed under us". */
  readonly maxBytes: number;
  readonly hooks?: WriteInPlaceHooks;
}

/** What {@linkcode writeInPlace} did. */
export type InPlaceWrite =
  /** The new content is written (not yet synced or verified). */
  | { readonly kind: "done" }
  /** Another process got in the way: the pass starts again; `stranded` NULs were left behind. */
  | { readonly kind: "interrupted"; readonly why: string; readonly stranded: number }
  /** An I/O error (ENOSPC while reserving): nothing of the old content was overwritten. */
  | Extract<SinkOutcome, { kind: "failed" }>;

/**
 * Lays `plan` over the open, locked `file` in place.
 *
 * @example
 * ```ts
 * import { planWrite } from "./hosts_layout.ts";
 * import { writeInPlace } from "./write_in_place.ts";
 *
 * declare const file: Deno.FsFile; // the hosts file, open and locked
 * declare const current: string; // its text as read
 * declare const desired: string; // the text to leave in it
 * const plan = planWrite(current, desired);
 * if (plan.kind !== "none") {
 *   await writeInPlace(file, plan, { path: "/host/etc/hosts", current, maxBytes: 16 * 1024 * 1024 });
 * }
 * ```
 */
export async function writeInPlace(
  file: Deno.FsFile,
  plan: Exclude<WritePlan, { kind: "none" }>,
  options: WriteInPlaceOptions,
): Promise<InPlaceWrite> {
  const { path, current, maxBytes, hooks = {} } = options;
  if (plan.kind !== "extend" && !await fileStartsWith(file, encodeHostsText(current), { limit: maxBytes })) {
    return interrupted("another process changed the file between our read and our write", 0);
  }
  switch (plan.kind) {
    case "overwrite":
      await writeAt0(file, encodeHostsText(plan.text));
      return { kind: "done" };
    case "extend": {
      const reserved = await reserve(file, path, current.length, plan.reserve);
      if (reserved.kind !== "done") return reserved;
      await hooks.afterReserve?.();
      if (
        !await fileStartsWith(file, encodeHostsText(current + FILLER.repeat(plan.reserve)), {
          limit: maxBytes,
        })
      ) {
        return interrupted("another process wrote between our read and our reserve", plan.reserve);
      }
      await writeAt0(file, encodeHostsText(plan.text));
      return { kind: "done" };
    }
    case "shrink":
      await writeAt0(file, encodeHostsText(plan.text + FILLER.repeat(plan.filler)));
      await hooks.afterWrite?.();
      if (!truncateIfLength(file, current.length, plan.text.length)) {
        return interrupted("another process appended before we could truncate", plan.filler);
      }
      return { kind: "done" };
  }
}

function interrupted(why: string, stranded: number): InPlaceWrite {
  return { kind: "interrupted", why, stranded };
}

/**
 * Appends `count` NULs with `O_APPEND`. On an I/O error (ENOSPC) takes back what was appended
 * when the file still ends where it did, and fails with the path.
 */
async function reserve(
  file: Deno.FsFile,
  path: string,
  length: number,
  count: number,
): Promise<InPlaceWrite> {
  const appender = await Deno.open(path, { append: true });
  let written = 0;
  try {
    const target = await file.stat();
    if (!sameInode(await appender.stat(), target)) {
      return interrupted("the path was replaced while reserving space", 0);
    }
    const filler = new Uint8Array(count);
    while (written < count) written += await appender.write(filler.subarray(written));
    return { kind: "done" };
  } catch (error) {
    if (written > 0) truncateIfLength(file, length + written, length);
    if (osErrorCode(error) === undefined) throw error;
    return {
      kind: "failed",
      message: `cannot grow ${path} by ${count} bytes: ${errorMessage(error)}`,
      cause: error,
    };
  } finally {
    appender.close();
  }
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
