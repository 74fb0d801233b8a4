/**
 * etc-hosts mode's sink: makes the ouroboros block in a node's hosts file hold exactly the
 * desired hostnames, each pointing at the proxy's IP.
 *
 * Effects: the hosts file.
 *
 * It never logs: repaired NUL filler and, once per change, hostnames an earlier entry shadows
 * (glibc takes the first match) go out as WARN notices. That shadowed set is its only state.
 *
 * @module
 */

import { type BlockMarkers, DEFAULT_MARKERS } from "../markers.ts";
import { hostnameChange, type Notice, type Sink, type SinkOutcome } from "../sink.ts";
import { editHostsFile, type HostsFileHooks, type HostsFileResult } from "./edit_hosts_file.ts";
import { applyHostsBlock } from "./hosts_block.ts";

/** Options for {@linkcode EtcHostsSink}. */
export interface EtcHostsSinkOptions {
  /** `--etc-hosts`; its name must be `hosts`. */
  readonly path: string;
  /** `--proxy-ip`, IPv4 or IPv6. */
  readonly proxyIp: string;
  /** Test seams between the write steps. */
  readonly hooks?: HostsFileHooks;
  /** Default: the original's markers. */
  readonly markers?: BlockMarkers;
  /** `--dry-run`: open the file for reading only and answer `previewed`. */
  readonly dryRun?: boolean;
}

/** The etc-hosts mode sink; rejects only when its signal aborts. */
export class EtcHostsSink implements Sink {
  readonly description: string;
  readonly #path: string;
  readonly #proxyIp: string;
  readonly #hooks: HostsFileHooks | undefined;
  readonly #markers: BlockMarkers;
  readonly #dryRun: boolean;
  #shadowedKey = "";

  /** Creates the sink; it holds no resources between reconciles. */
  constructor(options: EtcHostsSinkOptions) {
    this.#path = options.path;
    this.#proxyIp = options.proxyIp;
    this.#hooks = options.hooks;
    this.#markers = options.markers ?? DEFAULT_MARKERS;
    this.#dryRun = options.dryRun ?? false;
    this.description = `etc-hosts ${options.path} (${options.proxyIp})`;
  }

  /** Makes the block hold `hosts` (sorted and de-duplicated by the caller). */
  async reconcile(hosts: readonly string[], signal: AbortSignal): Promise<SinkOutcome> {
    signal.throwIfAborted();
    const markers = this.#markers;
    const result = await editHostsFile(
      this.#path,
      (text) => applyHostsBlock(text, { ip: this.#proxyIp, hosts, markers }),
      { signal, markers, dryRun: this.#dryRun, ...(this.#hooks === undefined ? {} : { hooks: this.#hooks }) },
    );
    if (result.kind === "refused" || result.kind === "failed") return result;
    const notices = this.#notices(result);
    const desired = new Set(hosts);
    const said = notices.length === 0 ? {} : { notices };
    if (result.kind === "unchanged") return { kind: "unchanged", hosts: desired.size, ...said };
    return {
      kind: result.kind,
      hosts: desired.size,
      ...hostnameChange(result.previousHosts, desired),
      diff: result.diff,
      ...said,
    };
  }

  #notices(result: Extract<HostsFileResult, { kind: "unchanged" | "written" | "previewed" }>): Notice[] {
    const notices: Notice[] = [];
    if (result.kind === "written" && result.repairedFiller > 0) {
      notices.push({
        level: "warn",
        message:
          "dropped NUL bytes from the hosts file: an earlier write was interrupted or the disk lost power",
        properties: { path: this.#path, bytes: result.repairedFiller },
      });
    }
    const key = result.shadowed.join(",");
    if (key === this.#shadowedKey) return notices;
    this.#shadowedKey = key;
    if (result.shadowed.length === 0) return notices;
    notices.push({
      level: "warn",
      message:
        "an entry above the ouroboros block already names these hosts; resolvers use the first match, so " +
        "on this node they do not reach the proxy; remove or change those entries",
      properties: { path: this.#path, hosts: result.shadowed },
    });
    return notices;
  }
}
