/**
 * Cluster DNS domain detection from `/etc/resolv.conf`, so manifests work on `cluster.local`,
 * `cozy.local` or any other domain without an operator setting it.
 *
 * Pure: the caller reads the file and passes its text (or `undefined` when it could not).
 *
 * @module
 */

/** Where the kubelet writes the pod's resolver configuration. */
export const RESOLV_CONF = "/etc/resolv.conf";

/** Used when the file is missing, unreadable, or has no search line that names a cluster domain. */
export const DEFAULT_CLUSTER_DOMAIN = "cluster.local";

/**
 * Picks the cluster domain from resolv.conf text, by the original's rules so both tools agree:
 * the `search` entry with the most `svc.` children (shorter on a tie), else the default.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { detectClusterDomain } from "./resolv_conf.ts";
 *
 * assert.equal(detectClusterDomain("search ns.svc.cozy.local svc.cozy.local cozy.local\n"), "cozy.local");
 * assert.equal(detectClusterDomain(undefined), "cluster.local");
 * ```
 */
export function detectClusterDomain(text: string | undefined): string {
  if (text === undefined) return DEFAULT_CLUSTER_DOMAIN;
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (!line.startsWith("search ") && !line.startsWith("search\t")) continue;
    const entries = line.slice("search".length).trim().split(/[ \t]+/).filter((e) => e !== "")
      .map((e) => e.replace(/\.$/, ""));
    let best: { name: string; score: number } | undefined;
    for (const candidate of entries) {
      if (candidate === "" || candidate.startsWith("svc.") || candidate.includes(".svc.")) continue;
      const score = entries.filter((e) => e === `svc.${candidate}` || e.endsWith(`.svc.${candidate}`)).length;
      if (
        best === undefined || score > best.score ||
        (score === best.score && candidate.length < best.name.length)
      ) {
        best = { name: candidate, score };
      }
    }
    if (best !== undefined && best.score >= 1) return best.name;
  }
  return DEFAULT_CLUSTER_DOMAIN;
}

/** The `nameserver` addresses of resolv.conf text, in order: `ouroboros dns`'s default upstream. */
export function resolvConfNameservers(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text.split(/\r?\n/)
    .map((line) => line.trim().split(/[ \t]+/))
    .filter((words) => words[0] === "nameserver" && words[1] !== undefined)
    .map((words) => words[1] as string);
}
