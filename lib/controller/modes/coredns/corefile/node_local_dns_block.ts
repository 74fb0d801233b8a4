/**
 * The server block ouroboros owns in the node-local-dns Corefile (`--node-local-dns=manage`):
 * which zones it serves, where it sends them, and its exact text.
 *
 * Pure: no I/O.
 *
 * node-local-dns answers outside names from upstream, bypassing CoreDNS's rewrites; our block sends
 * the hairpinned zones to CoreDNS by mirroring the cluster-domain block's `bind`, `forward` and
 * `force_tcp`, plus `errors`, `cache 30`, `reload`. No `loop` (a probe per zone at every start) or
 * `prometheus` (not ours to add). A wildcard serves its domain (zones match by suffix; CoreDNS
 * forwards what it does not rewrite), and a zone under another of the set is dropped.
 *
 * @module
 */

import { DEFAULT_INDENT } from "./apply_corefile_block.ts";

/** Where node-local-dns reaches CoreDNS, copied from its cluster-domain server block. */
export interface ClusterUpstream {
  /** The words after `bind`; empty: no `bind` line. */
  readonly bind: readonly string[];
  /** The words after `forward .` (at least one). */
  readonly forward: readonly string[];
  readonly forceTcp: boolean;
}

const ZONE = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;

/** Words copied from the cluster block: addresses, placeholders, a resolv.conf path, a scheme. */
const UPSTREAM_WORD = /^[A-Za-z0-9_.:[\]/%-]+$/;

/** The zones for some hostnames, or the first hostname that cannot be one. */
export type ZonesResult =
  | { readonly ok: true; readonly zones: readonly string[] }
  | { readonly ok: false; readonly host: string };

/**
 * The zones our block serves for `hosts`: sorted, de-duplicated, none below another.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nodeLocalDnsZones } from "./node_local_dns_block.ts";
 *
 * assert.deepEqual(nodeLocalDnsZones(["shop.example.com", "*.example.com", "blog.example.org"]), {
 *   ok: true,
 *   zones: ["blog.example.org", "example.com"],
 * });
 * assert.deepEqual(nodeLocalDnsZones(["a.example.com:80"]), { ok: false, host: "a.example.com:80" });
 * ```
 */
export function nodeLocalDnsZones(hosts: readonly string[]): ZonesResult {
  const zones = new Set<string>();
  for (const host of hosts) {
    const lower = host.toLowerCase().replace(/\.$/, "");
    const zone = lower.startsWith("*.") ? lower.slice(2) : lower;
    if (!ZONE.test(zone) || zone.length > 253) return { ok: false, host };
    zones.add(zone);
  }
  const kept = [...zones].filter((zone) => !hasAncestor(zone, zones)).sort();
  return { ok: true, zones: kept };
}

function hasAncestor(zone: string, zones: ReadonlySet<string>): boolean {
  for (let dot = zone.indexOf("."); dot !== -1; dot = zone.indexOf(".", dot + 1)) {
    if (zones.has(zone.slice(dot + 1))) return true;
  }
  return false;
}

/** Whether every word copied from the cluster block is safe to write again (no quote, `{`, `#`). */
export function isSafeUpstream(upstream: ClusterUpstream): boolean {
  return upstream.forward.length > 0 &&
    [...upstream.bind, ...upstream.forward].every((word) => UPSTREAM_WORD.test(word));
}

/** The block's text, BEGIN to END line; `""` for no zones. Check zones and upstream first. */
export function renderNodeLocalDnsBlock(
  block: {
    readonly zones: readonly string[];
    readonly upstream: ClusterUpstream;
    readonly markers: { readonly begin: string; readonly end: string };
  },
  newline: string,
): string {
  const { zones, upstream, markers } = block;
  if (zones.length === 0) return "";
  const indent = DEFAULT_INDENT;
  const forward = `forward . ${upstream.forward.join(" ")}`;
  const lines = [
    markers.begin,
    `${zones.map((zone) => `${zone}:53`).join(" ")} {`,
    `${indent}errors`,
    `${indent}cache 30`,
    `${indent}reload`,
    ...(upstream.bind.length === 0 ? [] : [`${indent}bind ${upstream.bind.join(" ")}`]),
    ...(upstream.forceTcp
      ? [`${indent}${forward} {`, `${indent}${indent}force_tcp`, `${indent}}`]
      : [`${indent}${forward}`]),
    "}",
    markers.end,
  ];
  return lines.map((line) => line + newline).join("");
}
