/**
 * Carries out one {@linkcode WritePlan} (from `hosts_layout.ts`) on the open, locked hosts file,
 * in the order that never empties, tears or loses a concurrent append.
 *
 * Effects: the open file and, for `extend`, a second descriptor on the path opened for appending.
 *
 * Each step re-reads to check nobody changed the bytes first. A kill leaves at worst old or new
 * content plus NULs, which resolvers read correctly and the next pass repairs. Only a shrink's
 * truncate can cut a concurrent append: a microsecond window between two syscalls no check closes.
 * A failed reserve (ENOSPC) is taken back and returned as `failed`, so the controller retries.
 *
 * @module
 */

import type { SinkOutcome } from "../sink.ts";
import { fileStartsWith, osErrorCode, sameInode, writeAt0 } from "./file_bytes.ts";
import { encodeHostsText, FILLER, type WritePlan } from "./hosts_layout.ts";
import { errorMessage } from "../../../util/error_message.ts";

/** Test seams between the write steps, where a test appends or kills the process. */
export interface WriteInPlaceHooks {
  readonly afterReserve?: () => void | Promise<void>;
  /** Before the `shrink` truncates. */
  readonly afterWrite?: () => void | Promise<void>;
}

/** Options for {@linkcode writeInPlace}. */
export interface WriteInPlaceOptions {
  /** Reserving opens the path again, for appending. */
  readonly path: string;
  /** The file's content as the pass read it (one character per byte). */
  readonly current: string;
  readonly maxBytes: number;
  readonly hooks?: WriteInPlaceHooks;
}

/** What {@linkcode writeInPlace} did. */
export type InPlaceWrite =
  /** Written, not yet synced or verified. */
  | { readonly kind: "done" }
  /** Another process got in the way: the pass starts again; `stranded` NULs were left behind. */
  | { readonly kind: "interrupted"; readonly why: string; readonly stranded: number }
  | Extract<SinkOutcome, { kind: "failed" }>;

/** Lays `plan` over the open, locked `file` in place. */
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

/** Appends `count` NULs with `O_APPEND`; on an I/O error takes them back if nothing followed. */
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
 * Truncates to `length` only when the file is `expected` bytes long now; synchronous so nothing
 * is scheduled between the check and the truncation.
 */
function truncateIfLength(file: Deno.FsFile, expected: number, length: number): boolean {
  if (file.statSync().size !== expected) return false;
  file.truncateSync(length);
  return true;
}
