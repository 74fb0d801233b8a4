/**
 * `ouroboros controller --mode=etc-hosts --cleanup`: removes the ouroboros block from a node's
 * hosts file, run on uninstall so nodes do not keep stale entries.
 *
 * Decisions: it needs no proxy IP and no cluster (only the file and the markers); it writes
 * through the same in-place editor as the sink (`edit_hosts_file.ts`), so a cleanup has the
 * same crash safety and refuses the same damage (a damaged block is refused, not guessed at);
 * like the sink it never logs, its caller words the result.
 *
 * Effects: the hosts file.
 *
 * @module
 */

import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import { editHostsFile, type HostsFileFailure, type HostsFileHooks } from "./edit_hosts_file.ts";
import { removeHostsBlock } from "./hosts_block.ts";
import type { HostsRefusal } from "./hosts_problems.ts";

/** Options for {@linkcode cleanupHostsFile}. */
export interface CleanupHostsFileOptions {
  /** Stops the cleanup before the lock is taken or once it is held (never during a write). */
  readonly signal: AbortSignal;
  /** The release's markers (`--marker-id`); default: the original's. */
  readonly markers?: BlockMarkers;
  /** Test seams between the write steps. */
  readonly hooks?: HostsFileHooks;
}

/** What {@linkcode cleanupHostsFile} did. */
export type HostsCleanup =
  /** The block was there and is gone; `hosts` is how many entries it held. */
  | { readonly kind: "removed"; readonly hosts: number }
  /** There was no block. */
  | { readonly kind: "absent" }
  | HostsRefusal
  /** An I/O error, or a file that kept changing under us: nothing was removed; try again. */
  | HostsFileFailure;

/**
 * Removes the ouroboros block from the hosts file at `path`. Rejects only when `signal` aborts.
 *
 * @example
 * ```ts
 * import { cleanupHostsFile } from "./cleanup_hosts_file.ts";
 *
 * const result = await cleanupHostsFile("/host/etc/hosts", { signal: AbortSignal.timeout(30_000) });
 * if (result.kind === "refused" || result.kind === "failed") throw new Error(result.message);
 * ```
 */
export async function cleanupHostsFile(
  path: string,
  options: CleanupHostsFileOptions,
): Promise<HostsCleanup> {
  const { markers = DEFAULT_MARKERS } = options;
  const result = await editHostsFile(path, (text) => removeHostsBlock(text, markers), {
    ...options,
    markers,
  });
  if (result.kind === "refused" || result.kind === "failed") return result;
  if (result.previousHosts.length === 0 && result.kind === "unchanged") return { kind: "absent" };
  return { kind: "removed", hosts: result.previousHosts.length };
}
