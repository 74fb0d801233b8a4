/**
 * Makes ouroboros's server block in the node-local-dns Corefile (`--node-local-dns=manage`) serve
 * exactly the zones of the hairpinned hostnames, forwarding them to the cluster DNS upstream (see
 * `node_local_dns_block.ts` for the block, `analyze_node_local_dns.ts` for what is read and
 * refused).
 *
 * Decisions:
 * - Where: an intact marker pair is replaced in place, BEGIN to END inclusive. Without one, the
 *   block goes on its own lines right before the cluster-domain block, so no byte of the file is
 *   touched (a file without a final newline keeps it missing), and never inside another
 *   release's block. Server block order does not
 *   matter to CoreDNS: a query goes to the block with the longest matching zone.
 * - A zone another server block already serves (a stub domain someone added by hand, another
 *   release's block) is left out and reported as `skipped`: CoreDNS refuses to start when two
 *   blocks serve one zone on one port, and node-local-dns down means every pod on the node
 *   without DNS.
 * - No zone left: the marker lines and the block between them are deleted with their line breaks,
 *   so insert followed by removal returns the original text exactly.
 * - The upstream is read on every pass, so a changed cluster DNS address follows.
 * - Self-check: the result is analysed again and must hold exactly the wanted zones and upstream,
 *   with every byte outside the markers unchanged; otherwise the edit is refused, never returned.
 * - Line endings follow the file's first line break.
 *
 * Pure: no I/O.
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
  /** The hairpinned hostnames (exact, or `*.<domain>` wildcards), sorted and de-duplicated. */
  readonly hosts: readonly string[];
  /** A name in the cluster domain (the proxy's FQDN): picks the cluster-domain block to mirror. */
  readonly clusterName: string;
  /** The release's node-local-dns markers. */
  readonly markers: BlockMarkers;
}

/** What {@linkcode applyNodeLocalDnsBlock} decided; `skipped` zones are served by another block. */
export type NodeLocalDnsEdit =
  | { readonly kind: "unchanged"; readonly skipped: readonly string[] }
  | {
    readonly kind: "changed";
    readonly corefile: string;
    /** The zones our block served before (empty when there was none). */
    readonly previousHosts: readonly string[];
    /** The zones it serves now. */
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
 * import { applyNodeLocalDnsBlock } from "./apply_node_local_dns_block.ts";
 * import { nodeLocalDnsMarkers } from "./node_local_dns_markers.ts";
 *
 * const corefile = "cluster.local:53 {\n    forward . 10.96.0.11\n}\n";
 * const request = { clusterName: "p.ns.svc.cluster.local.", markers: nodeLocalDnsMarkers() };
 * const edit = applyNodeLocalDnsBlock(corefile, { ...request, hosts: ["a.example.com"] });
 * // edit.kind === "changed"; edit.corefile starts with
 * // "# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===\na.example.com:53 {\n"
 * applyNodeLocalDnsBlock(corefile, { ...request, hosts: [] }).kind; // "unchanged"
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
