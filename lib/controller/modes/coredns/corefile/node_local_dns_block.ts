/**
 * The server block ouroboros owns in the node-local-dns Corefile (`--node-local-dns=manage`):
 * which zones it serves, where it sends them, and its exact text.
 *
 * node-local-dns answers names outside the cluster domain from its `.:53` block, which forwards
 * to the node's upstream resolvers (`__PILLAR__UPSTREAM__SERVERS__`), so CoreDNS's rewrite rules
 * never see them. Our block makes node-local-dns send the hairpinned names to CoreDNS instead,
 * through the same upstream its cluster-domain block uses (`forward . __PILLAR__CLUSTER__DNS__`
 * in the addon template, a Service address once rendered), where the rewrite answers with the
 * proxy. It mirrors that block: the same `bind` words, the same `forward` targets and `force_tcp`
 * when that block has it, plus `errors`, `cache 30` and `reload` as every block of the addon
 * template has. It leaves out `loop` (each server block's `loop` sends a probe query per zone at
 * every start) and `prometheus` (a metrics listener is not ours to add):
 *
 * ```
 * # === BEGIN ouroboros-node-local-dns (do not edit by hand) ===
 * blog.example.com:53 shop.example.com:53 {
 *     errors
 *     cache 30
 *     reload
 *     bind 169.254.20.10 10.96.0.10
 *     forward . __PILLAR__CLUSTER__DNS__ {
 *         force_tcp
 *     }
 * }
 * # === END ouroboros-node-local-dns ===
 * ```
 *
 * Zones: an exact hostname is its own zone. A wildcard `*.example.com` becomes the zone
 * `example.com`: CoreDNS zones match by suffix, so that zone sends `example.com` and every name
 * below it to CoreDNS, which rewrites the names its rules match and forwards the rest upstream,
 * the same answer one hop later. A zone below another zone of the set is dropped (the shorter one
 * already sends it to CoreDNS), so one server block never lists a zone twice.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { DEFAULT_INDENT } from "./apply_corefile_block.ts";

/** Where node-local-dns reaches CoreDNS, copied from its cluster-domain server block. */
export interface ClusterUpstream {
  /** The words after `bind` (empty: that block has no `bind` line, so ours has none). */
  readonly bind: readonly string[];
  /** The words after `forward .` (at least one). */
  readonly forward: readonly string[];
  /** Whether that block's `forward` has `force_tcp`. */
  readonly forceTcp: boolean;
}

/** A lower-case DNS name of at least two labels, no trailing dot. */
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
 * import { nodeLocalDnsZones } from "./node_local_dns_block.ts";
 *
 * nodeLocalDnsZones(["shop.example.com", "*.example.com", "blog.example.org"]);
 * // { ok: true, zones: ["blog.example.org", "example.com"] }
 * nodeLocalDnsZones(["a.example.com:80"]); // { ok: false, host: "a.example.com:80" }
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

/**
 * Whether every word copied from the cluster block is safe to write again (no quote, brace,
 * comment or whitespace can travel into our block).
 *
 * @example
 * ```ts
 * import { isSafeUpstream } from "./node_local_dns_block.ts";
 *
 * isSafeUpstream({ bind: ["169.254.20.10"], forward: ["__PILLAR__CLUSTER__DNS__"], forceTcp: true }); // true
 * isSafeUpstream({ bind: [], forward: ["{env}"], forceTcp: false }); // false
 * ```
 */
export function isSafeUpstream(upstream: ClusterUpstream): boolean {
  return upstream.forward.length > 0 &&
    [...upstream.bind, ...upstream.forward].every((word) => UPSTREAM_WORD.test(word));
}

/**
 * The block's text from the BEGIN line to the END line, each line ending with `newline`; the
 * empty string for no zones. Callers check the zones and the upstream first.
 *
 * @example
 * ```ts
 * import { nodeLocalDnsMarkers } from "./node_local_dns_markers.ts";
 * import { renderNodeLocalDnsBlock } from "./node_local_dns_block.ts";
 *
 * const upstream = { bind: ["169.254.20.10"], forward: ["10.96.0.11"], forceTcp: false };
 * renderNodeLocalDnsBlock({ zones: ["a.example.com"], upstream, markers: nodeLocalDnsMarkers() }, "\n");
 * // "# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===\na.example.com:53 {\n    errors\n" +
 * // "    cache 30\n    reload\n    bind 169.254.20.10\n    forward . 10.96.0.11\n}\n" +
 * // "# === END ouroboros-node-local-dns ===\n"
 * ```
 */
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
