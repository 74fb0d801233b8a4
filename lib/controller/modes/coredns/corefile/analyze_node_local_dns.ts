/**
 * Reads a node-local-dns Corefile into what `--node-local-dns=manage` needs: our block and its
 * zones, the cluster-domain block's upstream, and the zones other blocks serve; or a refusal.
 *
 * Pure: no I/O.
 *
 * Fails closed like `scan_markers.ts`: markers must be exact top-level comment lines, and between
 * them must be byte for byte the block we would render. The cluster-domain block serves the
 * longest suffix of `clusterName`, else forwards to `__PILLAR__CLUSTER__DNS__`.
 *
 * @module
 */

import { type BlockMarkers, markerPair } from "../../markers.ts";
import { splitLines, type TextLine, trimAsciiWhitespace } from "../../text_lines.ts";
import { type CorefileRefusal, refusal, unparsable } from "./corefile_refusal.ts";
import { type ClusterUpstream, isSafeUpstream, renderNodeLocalDnsBlock } from "./node_local_dns_block.ts";
import { isOtherNodeLocalDnsMarker, NODE_LOCAL_DNS_MARKER_LIKE } from "./node_local_dns_markers.ts";
import { blockDirectives, type ServerBlock, serverBlocks } from "./server_blocks.ts";
import { type CorefileComment, type CorefileToken, tokenizeCorefile } from "./tokenize_corefile.ts";

/** The placeholder node-cache replaces with the cluster DNS upstream's address. */
export const CLUSTER_DNS_PLACEHOLDER = "__PILLAR__CLUSTER__DNS__";

/** An editable node-local-dns Corefile. */
export interface NodeLocalDnsAnalysis {
  readonly kind: "analysis";
  readonly lines: readonly TextLine[];
  readonly own:
    | { readonly kind: "absent" }
    | {
      readonly kind: "present";
      readonly beginLine: number;
      readonly endLine: number;
      readonly zones: readonly string[];
      readonly upstream: ClusterUpstream;
    };
  /** Where the cluster-domain block sends queries. */
  readonly upstream: ClusterUpstream;
  /** Zones (lower case, no dot) other server blocks serve on port 53. */
  readonly taken: ReadonlySet<string>;
  /** Where a new block goes: the cluster-domain block's first line (never in another release's). */
  readonly insertLine: number;
  readonly reload: boolean;
}

/** Options of {@linkcode analyzeNodeLocalDns}. */
export interface AnalyzeNodeLocalDnsOptions {
  readonly markers: BlockMarkers;
  /** A name in the cluster domain (the proxy's FQDN): picks the cluster-domain block. */
  readonly clusterName: string;
}

const FIX = "Fix it by hand: delete the ouroboros-node-local-dns marker lines and the server block between " +
  "them; ouroboros then writes one fresh block. ouroboros writes nothing to node-local-dns until then.";

/** Analyses a node-local-dns Corefile, or says why it cannot be edited. */
export function analyzeNodeLocalDns(
  text: string,
  options: AnalyzeNodeLocalDnsOptions,
): NodeLocalDnsAnalysis | CorefileRefusal {
  if (text.trim() === "") return refusal("empty-corefile", "empty Corefile: the ConfigMap key holds no text");
  const tokenized = tokenizeCorefile(text);
  if (!tokenized.ok) return unparsable(tokenized);
  const { tokens, comments } = tokenized;
  const lines = splitLines(text);
  const blocks = serverBlocks(tokens).filter((block) => block.snippet === undefined);
  const scan = scanOwn({ text, lines, tokens, comments, blocks }, options.markers);
  if (scan.kind === "refused") return scan;
  const outside = blocks.filter((block) => scan.kind === "absent" || !within(tokens, block, scan));
  const cluster = findClusterBlock(tokens, outside, options.clusterName);
  if (cluster === undefined) {
    return refusal(
      "no-cluster-dns-block",
      `no server block serves ${options.clusterName} and none forwards to ${CLUSTER_DNS_PLACEHOLDER}, so ` +
        "there is no cluster DNS upstream to send the hairpinned names to; check that this is the node-local-dns Corefile",
    );
  }
  const upstream = readUpstream(tokens, cluster);
  if (upstream === undefined || !isSafeUpstream(upstream)) {
    return refusal(
      "no-cluster-forward",
      `the server block "${cluster.keys.join(" ")}" has no plain "forward . <address>" line to copy; ` +
        "ouroboros sends the hairpinned names where that block sends the cluster domain",
    );
  }
  const taken = new Set<string>();
  for (const block of outside) {
    for (const key of block.keys) {
      const zone = keyZone(key);
      if (zone !== undefined) taken.add(zone);
    }
  }
  let first = cluster.open;
  while (first > 0 && (tokens[first - 1] as CorefileToken).kind !== "close") first--;
  const insertLine = (tokens[first] as CorefileToken).line;
  const reload = blocks.some((block) => blockDirectives(tokens, block).some((d) => d.name === "reload"));
  return { kind: "analysis", lines, own: scan, upstream, taken, insertLine, reload };
}

interface Parsed {
  readonly text: string;
  readonly lines: readonly TextLine[];
  readonly tokens: readonly CorefileToken[];
  readonly comments: readonly CorefileComment[];
  readonly blocks: readonly ServerBlock[];
}

type OwnScan = NodeLocalDnsAnalysis["own"] | CorefileRefusal;

function scanOwn(parsed: Parsed, markers: BlockMarkers): OwnScan {
  const { text, lines, tokens, comments, blocks } = parsed;
  const begins: number[] = [];
  const ends: number[] = [];
  for (const comment of comments) {
    const trimmed = trimAsciiWhitespace(comment.text);
    const line = lines[comment.line] as TextLine;
    const alone = trimAsciiWhitespace(text.slice(line.start, comment.start)) === "";
    if (trimmed === markers.begin || trimmed === markers.end) {
      if (!alone) {
        return damaged("altered-marker", `the marker on line ${comment.line + 1} follows other text.`);
      }
      if (depthAt(tokens, comment.start) !== 0) {
        return damaged(
          "marker-in-nested-block",
          `the marker on line ${comment.line + 1} is inside a server block.`,
        );
      }
      (trimmed === markers.begin ? begins : ends).push(comment.line);
    } else if (NODE_LOCAL_DNS_MARKER_LIKE.test(trimmed) && !isOtherNodeLocalDnsMarker(trimmed, markers)) {
      return damaged(
        "altered-marker",
        `line ${comment.line + 1} looks like an ouroboros-node-local-dns marker but is not exactly ` +
          `"${markers.begin}" or "${markers.end}": ${JSON.stringify(comment.text)}.`,
      );
    }
  }
  for (const [index, line] of lines.entries()) {
    const trimmed = trimAsciiWhitespace(text.slice(line.start, line.contentEnd));
    if (
      (trimmed === markers.begin || trimmed === markers.end) && !begins.includes(index) &&
      !ends.includes(index)
    ) {
      return damaged(
        "marker-in-quoted-string",
        `line ${index + 1} reads as a marker but lies inside a quoted string.`,
      );
    }
  }
  const pair = markerPair(begins, ends);
  if (pair.kind === "absent") return { kind: "absent" };
  if (pair.kind === "damaged") return damaged(pair.problem, pair.detail);
  const { begin, end } = pair;
  const inside = blocks.filter((block) => {
    const line = (tokens[block.open] as CorefileToken).line;
    return line > begin && line < end;
  });
  const stray = tokens.filter((token) => token.line > begin && token.line < end);
  const ours = inside[0];
  const foreign = refusal(
    "foreign-content-in-block",
    `lines ${begin + 1}–${end + 1}, between the ouroboros-node-local-dns markers, are not the server block ` +
      "ouroboros wrote; ouroboros will not delete what someone added. Move the addition out of the markers " +
      "(or delete it); ouroboros writes nothing to node-local-dns until then.",
  );
  if (inside.length !== 1 || ours === undefined) return foreign;
  const span = ours.close - (ours.open - ours.keys.length) + 1;
  if (stray.length !== span || (tokens[ours.close] as CorefileToken).line >= end) return foreign;
  const zones = ours.keys.map((key) => /^([a-z0-9.-]+):53$/.exec(key)?.[1]);
  const upstream = readUpstream(tokens, ours);
  if (upstream === undefined || zones.some((zone) => zone === undefined)) return foreign;
  const own = { zones: zones as string[], upstream, markers };
  const newline = text.slice((lines[begin] as TextLine).contentEnd, (lines[begin] as TextLine).end);
  const actual = text.slice((lines[begin] as TextLine).start, (lines[end] as TextLine).end);
  const expected = renderNodeLocalDnsBlock(own, newline);
  // The END line may lack a line break at the very end of the file.
  if (actual !== expected && actual + newline !== expected) return foreign;
  return { kind: "present", beginLine: begin, endLine: end, zones: own.zones, upstream };
}

function damaged(problem: Parameters<typeof refusal>[0], detail: string): CorefileRefusal {
  return refusal(problem, `ouroboros-node-local-dns markers are damaged: ${detail} ${FIX}`);
}

function within(
  tokens: readonly CorefileToken[],
  block: ServerBlock,
  own: { readonly beginLine: number; readonly endLine: number },
): boolean {
  const line = (tokens[block.open] as CorefileToken).line;
  return line > own.beginLine && line < own.endLine;
}

/** The zone a server key serves on plain DNS port 53 (lower case, no dot; `""` for the root). */
export function keyZone(key: string): string | undefined {
  let address = key.toLowerCase();
  if (address.startsWith("dns://")) address = address.slice("dns://".length);
  else if (address.includes("://")) return undefined;
  const port = /^(.*):(\d+)$/.exec(address);
  if (port !== null) {
    if (port[2] !== "53") return undefined;
    address = port[1] as string;
  }
  return address.replace(/\.$/, "");
}

function findClusterBlock(
  tokens: readonly CorefileToken[],
  blocks: readonly ServerBlock[],
  clusterName: string,
): ServerBlock | undefined {
  const name = clusterName.toLowerCase().replace(/\.$/, "");
  let best: { block: ServerBlock; length: number } | undefined;
  for (const block of blocks) {
    for (const key of block.keys) {
      const zone = keyZone(key);
      if (zone === undefined || zone === "") continue;
      const serves = name === zone || name.endsWith(`.${zone}`);
      if (serves && (best === undefined || zone.length > best.length)) best = { block, length: zone.length };
    }
  }
  if (best !== undefined) return best.block;
  return blocks.find((block) =>
    blockDirectives(tokens, block).some((d) =>
      d.name === "forward" && d.args[0] === "." && d.args.includes(CLUSTER_DNS_PLACEHOLDER)
    )
  );
}

function readUpstream(tokens: readonly CorefileToken[], block: ServerBlock): ClusterUpstream | undefined {
  const directives = blockDirectives(tokens, block);
  const bind = directives.find((d) => d.name === "bind")?.args ?? [];
  const forward = directives.find((d) => d.name === "forward" && d.args[0] === ".");
  if (forward === undefined) return undefined;
  const open = tokens[forward.token + forward.args.length + 1];
  let forceTcp = false;
  if (
    open !== undefined && open.kind === "open" && open.line === (tokens[forward.token] as CorefileToken).line
  ) {
    for (let index = forward.token + forward.args.length + 2; index < open.partner; index++) {
      if (tokens[index]?.text === "force_tcp") forceTcp = true;
    }
  }
  return { bind, forward: forward.args.slice(1), forceTcp };
}

/** The nesting depth at an offset between tokens. */
function depthAt(tokens: readonly CorefileToken[], offset: number): number {
  let depth = 0;
  for (const token of tokens) {
    if (token.start >= offset) break;
    depth = token.kind === "open" ? token.depth + 1 : token.depth;
  }
  return depth;
}
