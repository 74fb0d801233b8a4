/**
 * Reads, edits and rewrites a node's hosts file in place, under an exclusive `flock`, so that the
 * file is never empty, never torn, and never loses a line another process appends.
 *
 * Effects: the hosts file.
 *
 * In place because the file is a single-file hostPath on a read-only root: no temp file, no rename.
 * A pass: check the path, `lstat` then open and compare inodes (no symlink swap), read, drop NUL
 * filler, edit, lay the text over the old bytes (`write_in_place.ts`), `fsync`, re-read to verify.
 * An unchanged edit writes nothing (mtime stays); bytes changed under us restart the pass.
 * Refused: what a person must fix. Failed: I/O errors or a file that never settles (retried later).
 * The signal is checked before and after taking the lock (`flock` cannot be cancelled), never
 * mid-write. `dryRun` opens read-only under a shared lock and answers `previewed`.
 *
 * @module
 */

import type { BlockMarkers } from "../markers.ts";
import type { SinkOutcome } from "../sink.ts";
import { fileStartsWith, osErrorCode, readAll, sameInode } from "./file_bytes.ts";
import type { HostsEdit, HostsEditFindings } from "./hosts_block.ts";
import { decodeHostsBytes, encodeHostsText, planWrite, stripFiller, type WritePlan } from "./hosts_layout.ts";
import { hostsPathProblem } from "./hosts_path.ts";
import { type HostsRefusal, hostsRefusal } from "./hosts_problems.ts";
import { writeInPlace, type WriteInPlaceHooks } from "./write_in_place.ts";
import { errorMessage } from "../../../util/error_message.ts";
import { unifiedDiff } from "../../../util/unified_diff.ts";

/** Test seams between the steps of a pass (another writer, a kill); production passes none. */
export interface HostsFileHooks extends WriteInPlaceHooks {
  readonly afterRead?: () => void | Promise<void>;
}

/** Options for {@linkcode editHostsFile}. */
export interface EditHostsFileOptions {
  /** Stops the edit before the lock is taken or once it is held (never during a write). */
  readonly signal: AbortSignal;
  readonly hooks?: HostsFileHooks;
  /** Passes before giving up when the file keeps changing under us (default 5). */
  readonly maxAttempts?: number;
  /** Larger files are refused (default 16 MiB). */
  readonly maxBytes?: number;
  /** Default: the original's markers. */
  readonly markers?: BlockMarkers;
  readonly dryRun?: boolean;
}

/** A transient failure: the controller backs off and tries again. */
export type HostsFileFailure = Extract<SinkOutcome, { kind: "failed" }>;

/** What one {@linkcode editHostsFile} call did. */
export type HostsFileResult =
  | HostsEditFindings & { readonly kind: "unchanged" }
  /** A dry run: `diff` is what a write would change. */
  | HostsEditFindings & { readonly kind: "previewed"; readonly diff: string }
  | HostsEditFindings & {
    readonly kind: "written";
    /** Of the edited text, or of the raw bytes when only NUL filler or END-line slack changed. */
    readonly diff: string;
    readonly layout: Exclude<WritePlan["kind"], "none">;
    /** NUL bytes dropped (left by an interrupted write or a power cut); 0 normally. */
    readonly repairedFiller: number;
    readonly attempts: number;
  }
  | HostsRefusal
  | HostsFileFailure;

/** The default of {@linkcode EditHostsFileOptions.maxAttempts}. */
export const DEFAULT_MAX_ATTEMPTS = 5;
/** The default of {@linkcode EditHostsFileOptions.maxBytes}. */
export const DEFAULT_MAX_BYTES = 16 * 1024 * 1024;

/** One pass's result, or "start again" with the NULs this pass left in the file. */
type Pass = HostsFileResult | {
  readonly kind: "retry";
  readonly why: string;
  readonly strandedFiller: number;
};

/** Applies `edit` to the hosts file at `path` in place; rejects only when the signal aborts. */
export async function editHostsFile(
  path: string,
  edit: (text: string) => HostsEdit,
  options: EditHostsFileOptions,
): Promise<HostsFileResult> {
  const pathProblem = hostsPathProblem(path);
  if (pathProblem !== undefined) return pathProblem;
  const { signal } = options;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  let why = "";
  let ownFiller = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    signal.throwIfAborted();
    let pass: Pass;
    try {
      pass = await onePass(path, edit, options, attempt);
    } catch (error) {
      if (osErrorCode(error) === undefined || error === signal.reason) throw error;
      return { kind: "failed", message: errorMessage(error), cause: error };
    }
    if (pass.kind === "written") {
      // NULs our own earlier attempt stranded are not damage worth reporting.
      return { ...pass, repairedFiller: Math.max(0, pass.repairedFiller - ownFiller) };
    }
    if (pass.kind !== "retry") return pass;
    why = pass.why;
    ownFiller += pass.strandedFiller;
  }
  return {
    kind: "failed",
    message: `${path} changed under us on each of ${maxAttempts} attempts (last: ${why}); will retry later`,
  };
}

async function onePass(
  path: string,
  edit: (text: string) => HostsEdit,
  options: EditHostsFileOptions,
  attempt: number,
): Promise<Pass> {
  const { signal, hooks = {}, maxBytes = DEFAULT_MAX_BYTES } = options;
  const write = !options.dryRun;
  const opened = await openChecked(path, write);
  if (opened.kind !== "opened") return opened;
  const { file } = opened;
  try {
    await file.lock(write);
    signal.throwIfAborted();

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
    const { previousHosts, shadowed } = result;
    const desired = result.kind === "changed" ? result.text : clean.text;
    const plan = planWrite(current, desired, options);
    if (plan.kind === "none") return { kind: "unchanged", previousHosts, shadowed };
    const diff = unifiedDiff(clean.text, desired, { label: path.replace(/^\/+/, "") }) ||
      unifiedDiff(current, plan.text, { label: path.replace(/^\/+/, "") });
    if (!write) return { kind: "previewed", previousHosts, shadowed, diff };

    const laid = await writeInPlace(file, plan, { path, current, maxBytes, hooks });
    if (laid.kind === "interrupted") return { kind: "retry", why: laid.why, strandedFiller: laid.stranded };
    if (laid.kind === "failed") return laid;
    await file.sync();
    const problem = await verify(file, path, encodeHostsText(plan.text), maxBytes);
    if (problem !== undefined) return { kind: "retry", why: problem, strandedFiller: 0 };
    return {
      kind: "written",
      previousHosts,
      shadowed,
      diff,
      layout: plan.kind,
      repairedFiller: clean.removed,
      attempts: attempt,
    };
  } finally {
    // Closing the descriptor releases the flock.
    file.close();
  }
}

/** Opens the regular file at `path`; "retry" when it was swapped between `lstat` and open. */
async function openChecked(
  path: string,
  write: boolean,
): Promise<{ readonly kind: "opened"; readonly file: Deno.FsFile } | Pass> {
  let linkInfo: Deno.FileInfo;
  try {
    linkInfo = await Deno.lstat(path);
  } catch (error) {
    return openProblem(path, error, write);
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
    file = await Deno.open(path, { read: true, write });
  } catch (error) {
    return openProblem(path, error, write);
  }
  try {
    if (sameInode(await file.stat(), linkInfo)) return { kind: "opened", file };
  } catch (error) {
    file.close();
    throw error;
  }
  file.close();
  return { kind: "retry", why: "the path was replaced while opening it", strandedFiller: 0 };
}

async function verify(
  file: Deno.FsFile,
  path: string,
  expected: Uint8Array,
  maxBytes: number,
): Promise<string | undefined> {
  if (!await fileStartsWith(file, expected, { limit: maxBytes })) {
    return "the file differs from what we wrote";
  }
  try {
    if (!sameInode(await Deno.lstat(path), await file.stat())) return "the path names another file now";
  } catch {
    return "the path disappeared after the write";
  }
  return undefined;
}

/** An lstat/open error as a refusal (a person must fix it) or a failure; a bug rethrows. */
function openProblem(path: string, error: unknown, write: boolean): HostsRefusal | HostsFileFailure {
  if (error instanceof Deno.errors.NotFound) {
    return hostsRefusal(
      "missing-file",
      `${path} does not exist: mount the node's hosts file there (hostPath type File) or set --etc-hosts`,
    );
  }
  const code = osErrorCode(error);
  if (
    error instanceof Deno.errors.PermissionDenied || error instanceof Deno.errors.NotCapable ||
    code === "EROFS"
  ) {
    if (!write) {
      return hostsRefusal(
        "not-readable",
        `cannot open ${path} for reading: ${errorMessage(error)}; a dry run needs read access to the file`,
      );
    }
    return hostsRefusal(
      "not-writable",
      `cannot open ${path} for writing: ${
        errorMessage(error)
      }; the hostPath mount must be read-write and the ` +
        "controller must run as a user that may write the file",
    );
  }
  const message = `cannot open ${path}: ${errorMessage(error)}`;
  if (code === undefined) throw new Error(message, { cause: error });
  return { kind: "failed", message, cause: error };
}
