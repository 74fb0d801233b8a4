/**
 * etc-hosts mode's sink: makes the ouroboros block in a node's hosts file hold exactly the
 * desired hostnames, each pointing at the proxy's IP, and the `--cleanup` step that removes it.
 *
 * The editing is `hosts_block.ts` (pure) and the in-place write is `edit_hosts_file.ts`; this file
 * turns their results into the controller's {@linkcode SinkOutcome}. Decisions:
 *
 * - Refusals (bad path, symlink, missing or read-only file, damaged markers, invalid proxy IP)
 *   resolve as `refused` and write nothing; the sink does not log them, the controller logs every
 *   outcome. I/O failures (ENOSPC, a file that keeps changing under us) reject, so the controller
 *   backs off and tries again.
 * - The sink does log what only it can see: WARN when it dropped NUL filler (the previous write
 *   was interrupted, or the filesystem zero-filled the file after a power cut), and WARN once per
 *   change of the set of our hostnames that an earlier entry in the file answers first (glibc
 *   uses the first match, so ours has no effect for those names on that node).
 *
 * Effects: the hosts file.
 *
 * @module
 */

import { logger } from "../../util/logging.ts";
import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import type { Sink, SinkOutcome } from "../sink.ts";
import { applyHostsBlock, removeHostsBlock } from "./hosts_block.ts";
import { editHostsFile, type HostsFileHooks, type HostsFileResult } from "./edit_hosts_file.ts";
import type { HostsRefusal } from "./hosts_problems.ts";

const log = logger("controller", "etc-hosts");

/** Options for {@linkcode EtcHostsSink}. */
export interface EtcHostsSinkOptions {
  /** The hosts file (`--etc-hosts`); its name must be `hosts`. */
  readonly path: string;
  /** The address written for every hostname (`--proxy-ip`), IPv4 or IPv6. */
  readonly proxyIp: string;
  /** Test seams between the write steps. */
  readonly hooks?: HostsFileHooks;
  /** The release's markers (`--marker-id`); default: the original's. */
  readonly markers?: BlockMarkers;
}

/**
 * The etc-hosts mode sink.
 *
 * @example
 * ```ts
 * const sink = new EtcHostsSink({ path: "/host/etc/hosts", proxyIp: "10.96.0.10" });
 * const outcome = await sink.reconcile(["app.example.com"], signal);
 * ```
 */
export class EtcHostsSink implements Sink {
  readonly description: string;
  readonly #path: string;
  readonly #proxyIp: string;
  readonly #hooks: HostsFileHooks | undefined;
  readonly #markers: BlockMarkers;
  #shadowedKey = "";

  /** Creates the sink; it holds no resources between reconciles. */
  constructor(options: EtcHostsSinkOptions) {
    this.#path = options.path;
    this.#proxyIp = options.proxyIp;
    this.#hooks = options.hooks;
    this.#markers = options.markers ?? DEFAULT_MARKERS;
    this.description = `etc-hosts ${options.path} (${options.proxyIp})`;
  }

  /** Makes the block hold `hosts` (sorted and de-duplicated by the caller). */
  async reconcile(hosts: readonly string[], signal: AbortSignal): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const result = await editHostsFile(
      this.#path,
      (text) => applyHostsBlock(text, this.#proxyIp, hosts, this.#markers),
      signal,
      { markers: this.#markers, ...(this.#hooks === undefined ? {} : { hooks: this.#hooks }) },
    );
    if (result.kind === "refused") return result;
    this.#report(result);
    const desired = new Set(hosts);
    if (result.kind === "unchanged") return { kind: "unchanged", hosts: desired.size };
    const previous = new Set(result.previousHosts);
    return {
      kind: "written",
      hosts: desired.size,
      added: [...desired].filter((host) => !previous.has(host)).length,
      removed: [...previous].filter((host) => !desired.has(host)).length,
    };
  }

  #report(result: Exclude<HostsFileResult, HostsRefusal>): void {
    if (result.kind === "written" && result.repairedFiller > 0) {
      log.warn(
        "dropped NUL bytes from the hosts file: an earlier write was interrupted or the disk lost power",
        {
          path: this.#path,
          bytes: result.repairedFiller,
        },
      );
    }
    const key = result.shadowed.join(",");
    if (key === this.#shadowedKey) return;
    this.#shadowedKey = key;
    if (result.shadowed.length === 0) return;
    log.warn(
      "an entry above the ouroboros block already names these hosts; resolvers use the first match, so on this " +
        "node they do not reach the proxy; remove or change those entries",
      { path: this.#path, hosts: result.shadowed },
    );
  }
}

/** What {@linkcode cleanupHostsFile} did. */
export type HostsCleanup =
  /** The block was there and is gone; `hosts` is how many entries it held. */
  | { readonly kind: "removed"; readonly hosts: number }
  /** There was no block. */
  | { readonly kind: "absent" }
  | HostsRefusal;

/**
 * Removes the ouroboros block from the hosts file (for `ouroboros controller --mode=etc-hosts
 * --cleanup`, run on uninstall so nodes do not keep stale entries). Needs no proxy IP. Rejects on
 * I/O failures; a damaged block is refused, not guessed at.
 *
 * @example
 * ```ts
 * const result = await cleanupHostsFile("/host/etc/hosts", AbortSignal.timeout(30_000));
 * if (result.kind === "refused") throw new Error(result.message);
 * ```
 */
export async function cleanupHostsFile(
  path: string,
  signal: AbortSignal,
  hooks?: HostsFileHooks,
  markers: BlockMarkers = DEFAULT_MARKERS,
): Promise<HostsCleanup> {
  const result = await editHostsFile(
    path,
    (text) => removeHostsBlock(text, markers),
    signal,
    { markers, ...(hooks === undefined ? {} : { hooks }) },
  );
  if (result.kind === "refused") return result;
  if (result.previousHosts.length === 0 && result.kind === "unchanged") return { kind: "absent" };
  return { kind: "removed", hosts: result.previousHosts.length };
}
