/**
 * `ouroboros controller --mode=etc-hosts --cleanup`: removes the ouroboros block from a node's
 * hosts file on uninstall. Needs no proxy IP and no cluster.
 *
 * Effects: the hosts file.
 *
 * It goes through the sink's editor, so it has the same crash safety and refuses the same damage.
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
  /** Default: the original's markers. */
  readonly markers?: BlockMarkers;
  /** Test seams between the write steps. */
  readonly hooks?: HostsFileHooks;
}

/** What {@linkcode cleanupHostsFile} did; `hosts` counts the entries removed. */
export type HostsCleanup =
  | { readonly kind: "removed"; readonly hosts: number }
  | { readonly kind: "absent" }
  | HostsRefusal
  | HostsFileFailure;

/** Removes the ouroboros block from the hosts file at `path`. Rejects only when `signal` aborts. */
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
