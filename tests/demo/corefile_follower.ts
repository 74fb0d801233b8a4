/**
 * Follows the CoreDNS ConfigMap the way an operator would with `kubectl get -w`: polls it, and
 * keeps every stored version whose ouroboros block differs from the previous one, so the demo
 * prints each version the controller wrote rather than only the last.
 *
 * @module
 */

import { waitFor } from "../support/wait.ts";

/** The first and last line of the controller's block in the Corefile. */
export const BEGIN_MARKER = "# === BEGIN ouroboros (do not edit by hand) ===";
export const END_MARKER = "# === END ouroboros ===";

/** One stored version of the ConfigMap, as read. */
export interface StoredCorefile {
  readonly resourceVersion: string;
  readonly corefile: string;
}

/** A version whose block differs from the one before it. */
export interface BlockVersion {
  readonly resourceVersion: string;
  readonly corefile: string;
  /** The block's lines, markers included, as stored; empty when there is no block. */
  readonly block: readonly string[];
  /** The hostnames of its `rewrite name <host> <target>` lines, in order. */
  readonly hosts: readonly string[];
}

/** The block's lines (markers included), or `[]` when the Corefile has no complete block. */
export function blockLines(corefile: string): string[] {
  const lines = corefile.split("\n");
  const begin = lines.findIndex((line) => line.trim() === BEGIN_MARKER);
  const end = lines.findIndex((line) => line.trim() === END_MARKER);
  if (begin < 0 || end < begin) return [];
  return lines.slice(begin, end + 1);
}

/** Hostnames named by the `rewrite name` lines of a block. */
export function blockHosts(block: readonly string[]): string[] {
  return block.flatMap((line) => {
    const [verb, field, host] = line.trim().split(/\s+/);
    return verb === "rewrite" && field === "name" && host !== undefined ? [host] : [];
  });
}

/** Polls a ConfigMap and reports the versions of the block it passes through. */
export class CorefileFollower {
  readonly #read: () => StoredCorefile;
  #lastVersion = "";
  #lastBlock: string | undefined;

  /** `read` returns the ConfigMap as stored now. */
  constructor(read: () => StoredCorefile) {
    this.#read = read;
  }

  /** Reads the ConfigMap now and takes it as the starting point: `until` reports only later versions. */
  current(): BlockVersion {
    const stored = this.#read();
    const block = blockLines(stored.corefile);
    this.#lastVersion = stored.resourceVersion;
    this.#lastBlock = block.join("\n");
    return { ...stored, block, hosts: blockHosts(block) };
  }

  /**
   * Polls until the block names exactly `hosts` (in order) and returns every new block version
   * seen on the way, oldest first. Rejects when `timeoutMs` passes first.
   */
  async until(hosts: readonly string[], timeoutMs = 15_000): Promise<BlockVersion[]> {
    const seen: BlockVersion[] = [];
    const wanted = JSON.stringify(hosts);
    await waitFor(`the Corefile block to name ${wanted}`, () => {
      const stored = this.#read();
      if (stored.resourceVersion !== this.#lastVersion) {
        this.#lastVersion = stored.resourceVersion;
        const block = blockLines(stored.corefile);
        const text = block.join("\n");
        if (text !== this.#lastBlock) {
          this.#lastBlock = text;
          seen.push({ ...stored, block, hosts: blockHosts(block) });
        }
      }
      return JSON.stringify(blockHosts(blockLines(stored.corefile))) === wanted;
    }, { timeoutMs, intervalMs: 20 });
    return seen;
  }
}
