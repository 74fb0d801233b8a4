/**
 * Makes ouroboros's server block in the node-local-dns Corefile (`--node-local-dns=manage`) serve
 * exactly the zones of the hairpinned hostnames, forwarding them to the cluster DNS upstream.
 *
 * Pure: no I/O.
 *
 * A new block goes right before the cluster-domain block (order does not matter to CoreDNS). A
 * zone another block serves is `skipped`: CoreDNS would not start, leaving the node without DNS.
 * The upstream is re-read every pass; the result is re-analysed and must change nothing else.
 *
 * @module
 */

import type { BlockMarkers } from "../../markers.ts";
import { newlineStyle, type TextLine } from "../../text_lines.ts";
import { analyzeNodeLocalDns, type NodeLocalDnsAnalysis } from "./analyze_node_local_dns.ts";
import { type CorefileRefusal, refusal } from "./corefile_refusal.ts";
import { type ClusterUpstream, nodeLocalDnsZones, renderNodeLocalDnsBlock } from "./node_local_dns_block.ts";

/** What the node-local-dns block is to hold. */
export interface NodeLocalDnsBlockRequest {
  /** Sorted and de-duplicated; `*.<domain>` wildcards allowed. */
  readonly hosts: readonly string[];
  /** A name in the cluster domain (the proxy's FQDN): picks the cluster-domain block to mirror. */
  readonly clusterName: string;
  readonly markers: BlockMarkers;
}

/** What {@linkcode applyNodeLocalDnsBlock} decided; `skipped` zones are served by another block. */
export type NodeLocalDnsEdit =
  | { readonly kind: "unchanged"; readonly skipped: readonly string[] }
  | {
    readonly kind: "changed";
    readonly corefile: string;
    /** The zones our block served before. */
    readonly previousHosts: readonly string[];
    readonly zones: readonly string[];
    readonly reload: boolean;
    readonly skipped: readonly string[];
  }
  | CorefileRefusal;

/**
 * Makes the node-local-dns block of `corefile` serve exactly the zones of `request.hosts`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyNodeLocalDnsBlock } from "./apply_node_local_dns_block.ts";
 * import { nodeLocalDnsMarkers } from "./node_local_dns_markers.ts";
 *
 * const corefile = "cluster.local:53 {\n    forward . 10.96.0.11\n}\n";
 * const request = { clusterName: "p.ns.svc.cluster.local.", markers: nodeLocalDnsMarkers() };
 * const edit = applyNodeLocalDnsBlock(corefile, { ...request, hosts: ["a.example.com"] });
 * assert.ok(edit.kind === "changed");
 * assert.ok(
 *   edit.corefile.startsWith(
 *     "# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===\na.example.com:53 {\n",
 *   ),
 * );
 * ```
 */
export function applyNodeLocalDnsBlock(
  corefile: string,
  request: NodeLocalDnsBlockRequest,
): NodeLocalDnsEdit {
  const wanted = nodeLocalDnsZones(request.hosts);
  if (!wanted.ok) {
    return refusal(
      "invalid-host",
      `refusing to write a node-local-dns zone for ${JSON.stringify(wanted.host)}`,
    );
  }
  const options = { markers: request.markers, clusterName: request.clusterName };
  const analysis = analyzeNodeLocalDns(corefile, options);
  if (analysis.kind === "refused") return analysis;
  const skipped = wanted.zones.filter((zone) => analysis.taken.has(zone));
  const zones = wanted.zones.filter((zone) => !analysis.taken.has(zone));
  const { lines, own } = analysis;
  let start: number;
  let end: number;
  if (own.kind === "present") {
    start = (lines[own.beginLine] as TextLine).start;
    end = (lines[own.endLine] as TextLine).end;
  } else if (zones.length === 0) {
    return { kind: "unchanged", skipped };
  } else {
    start = end = (lines[analysis.insertLine] as TextLine).start;
  }
  const newline = newlineStyle(corefile);
  let block = renderNodeLocalDnsBlock(
    { zones, upstream: analysis.upstream, markers: request.markers },
    newline,
  );
  // Our END line was the file's last and had no line break: keep it that way.
  if (own.kind === "present" && end === corefile.length && !corefile.endsWith("\n") && block !== "") {
    block = block.slice(0, -newline.length);
  }
  const result = corefile.slice(0, start) + block + corefile.slice(end);
  if (result === corefile) return { kind: "unchanged", skipped };
  const problem = selfCheck(analysis, result, {
    ...options,
    zones,
    outside: outsideText(corefile, analysis),
  });
  if (problem !== undefined) {
    return refusal(
      "self-check-failed",
      `internal check failed, nothing written (please report this): ${problem}`,
    );
  }
  return {
    kind: "changed",
    corefile: result,
    previousHosts: own.kind === "present" ? own.zones : [],
    zones,
    reload: analysis.reload,
    skipped,
  };
}

/** The text with our block (markers included) cut out. */
function outsideText(text: string, analysis: NodeLocalDnsAnalysis): string {
  const { own, lines } = analysis;
  if (own.kind !== "present") return text;
  return text.slice(0, (lines[own.beginLine] as TextLine).start) +
    text.slice((lines[own.endLine] as TextLine).end);
}

function selfCheck(
  before: NodeLocalDnsAnalysis,
  after: string,
  expected: {
    readonly markers: BlockMarkers;
    readonly clusterName: string;
    readonly zones: readonly string[];
    readonly outside: string;
  },
): string | undefined {
  const edited = analyzeNodeLocalDns(after, expected);
  if (edited.kind === "refused") return `edited Corefile: ${edited.message}`;
  if (expected.zones.length === 0) {
    if (edited.own.kind !== "absent") return "markers remain after removing every zone";
  } else {
    if (edited.own.kind !== "present") return "the edited Corefile has no ouroboros-node-local-dns block";
    const same = edited.own.zones.join(" ") === expected.zones.join(" ");
    if (!same) return "the block does not serve exactly the requested zones";
    if (!sameUpstream(edited.own.upstream, before.upstream)) {
      return "the block does not forward to the cluster DNS";
    }
  }
  if (!sameUpstream(edited.upstream, before.upstream)) return "the cluster-domain block changed";
  if (outsideText(after, edited) !== expected.outside) return "bytes outside the markers changed";
  return undefined;
}

function sameUpstream(a: ClusterUpstream, b: ClusterUpstream): boolean {
  return a.forceTcp === b.forceTcp && a.bind.join(" ") === b.bind.join(" ") &&
    a.forward.join(" ") === b.forward.join(" ");
}
