/**
 * Cluster DNS domain detection from the text of `/etc/resolv.conf`.
 *
 * The kubelet writes a search list such as
 * `search team-a.svc.cozy.local svc.cozy.local cozy.local` into every pod. The domain is the
 * entry that the other entries are `svc.` children of. Detecting it lets the same manifests work
 * on `cluster.local`, `cozy.local` and any other domain without an operator setting it.
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
 * Picks the cluster domain from resolv.conf text.
 *
 * Rules (the original's, kept so both tools agree on every node):
 * - only trimmed lines starting with `search` plus a space or tab count; `domain` is ignored;
 * - a candidate is a search entry (trailing dot removed) that neither starts with `svc.` nor
 *   contains `.svc.`;
 * - its score is how many entries equal `svc.<candidate>` or end with `.svc.<candidate>`;
 * - the highest score wins, the shorter name breaks a tie, and a best score below 1 moves on to
 *   the next search line;
 * - nothing picked means {@linkcode DEFAULT_CLUSTER_DOMAIN}.
 *
 * @example
 * ```ts
 * import { detectClusterDomain } from "./resolv_conf.ts";
 *
 * detectClusterDomain("search ns.svc.cozy.local svc.cozy.local cozy.local\n"); // "cozy.local"
 * detectClusterDomain(undefined); // "cluster.local"
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

/**
 * The `nameserver` addresses of resolv.conf text, in order (the kubelet writes the cluster DNS
 * Service's ClusterIP there): what `ouroboros dns` forwards to when `--upstream` is not given.
 * A zone index (`fe80::1%eth0`) is kept as written.
 *
 * @example
 * ```ts
 * import { resolvConfNameservers } from "./resolv_conf.ts";
 *
 * resolvConfNameservers("nameserver 10.96.0.10\nsearch default.svc.cluster.local\n"); // ["10.96.0.10"]
 * ```
 */
export function resolvConfNameservers(text: string | undefined): string[] {
  if (text === undefined) return [];
  return text.split(/\r?\n/)
    .map((line) => line.trim().split(/[ \t]+/))
    .filter((words) => words[0] === "nameserver" && words[1] !== undefined)
    .map((words) => words[1] as string);
}
