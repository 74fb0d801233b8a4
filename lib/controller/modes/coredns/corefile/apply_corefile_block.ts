/**
 * coredns mode's edit: puts ouroboros's rewrite block into the root server block of a Corefile,
 * replaces it, or removes it, touching no byte outside the markers.
 *
 * Pure: no I/O.
 *
 * A new block goes right before the root block's closing `}` (CoreDNS orders plugins by its own
 * list, so position only matters among `rewrite` rules, where an operator's rule above ours wins).
 * Removal deletes the marker lines too, so insert then remove returns the original text. The indent
 * copies the last plugin line's spaces and tabs (only those), the newline the file's first one.
 * Every result is re-analysed and checked (`verify_corefile_edit.ts`) before it is returned.
 *
 * @module
 */

import { type BlockMarkers, DEFAULT_MARKERS } from "../../markers.ts";
import { newlineStyle, type TextLine } from "../../text_lines.ts";
import { analyzeCorefile, type CorefileAnalysis } from "./analyze_corefile.ts";
import { type CorefileRefusal, refusal } from "./corefile_refusal.ts";
import { hasReloadPluginIn } from "./has_reload_plugin.ts";
import { blockOrder, rewriteInputProblem, rewriteRule, type RewriteRules } from "./rewrite_rule.ts";
import type { CorefileToken } from "./tokenize_corefile.ts";
import { verifyCorefileEdit } from "./verify_corefile_edit.ts";

/** Indentation for a root block with no plugin line to copy from. */
export const DEFAULT_INDENT = "    ";

/** What the ouroboros block is to hold: its rules (no hosts removes it) and its markers. */
export interface CorefileBlock extends RewriteRules {
  /** @default DEFAULT_MARKERS */
  readonly markers?: BlockMarkers;
}

/** What each line of the block starts and ends with. */
export interface BlockLayout {
  readonly indent: string;
  readonly newline: string;
}

/** What {@linkcode applyCorefileBlock} decided. */
export type CorefileEdit =
  | { readonly kind: "unchanged" }
  /** `reload`: whether the Corefile enables the reload plugin (our block never changes that). */
  | {
    readonly kind: "changed";
    readonly corefile: string;
    readonly previousHosts: readonly string[];
    readonly reload: boolean;
  }
  | CorefileRefusal;

/**
 * Makes the ouroboros block of `corefile` hold exactly `block.hosts`, rewritten to `block.fqdn`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { applyCorefileBlock } from "./apply_corefile_block.ts";
 *
 * const fqdn = "p.ns.svc.cluster.local.";
 * const edit = applyCorefileBlock(".:53 {\n    errors\n}\n", { hosts: ["app.example.com"], fqdn });
 * assert.ok(edit.kind === "changed");
 * assert.equal(
 *   edit.corefile,
 *   ".:53 {\n    errors\n    # === BEGIN ouroboros (do not edit by hand) ===\n" +
 *     "    rewrite name app.example.com p.ns.svc.cluster.local.\n    # === END ouroboros ===\n}\n",
 * );
 * ```
 */
export function applyCorefileBlock(corefile: string, block: CorefileBlock): CorefileEdit {
  const { fqdn } = block;
  const hosts = blockOrder(block.hosts);
  const markers = block.markers ?? DEFAULT_MARKERS;
  const input = rewriteInputProblem(hosts, fqdn);
  if (input !== undefined) {
    return refusal(
      input.field === "host" ? "invalid-host" : "invalid-fqdn",
      `refusing to write a rewrite rule: ${input.reason}`,
    );
  }
  const analysis = analyzeCorefile(corefile, { markers });
  if (analysis.kind === "refused") return analysis;

  const { lines } = analysis;
  const found = analysis.markers;
  let start: number;
  let end: number;
  if (found.kind === "present") {
    start = (lines[found.beginLine] as TextLine).start;
    end = (lines[found.endLine] as TextLine).end;
  } else if (hosts.length === 0) {
    return { kind: "unchanged" };
  } else {
    start = end = (lines[analysis.rootCloseLine] as TextLine).start;
  }

  const layout = { indent: detectIndent(analysis), newline: newlineStyle(corefile) };
  const result = corefile.slice(0, start) + renderBlock({ hosts, fqdn, markers }, layout) +
    corefile.slice(end);
  if (result === corefile) return { kind: "unchanged" };

  const check = verifyCorefileEdit(analysis, result, { hosts, fqdn });
  if (check !== undefined) {
    return refusal(
      "self-check-failed",
      `internal check failed, nothing written (please report this): ${check}`,
    );
  }
  return {
    kind: "changed",
    corefile: result,
    previousHosts: found.kind === "present" ? found.hosts : [],
    reload: hasReloadPluginIn(analysis.tokens),
  };
}

/** The block's text, laid out as `layout` says; the empty string for no hosts. */
export function renderBlock(block: CorefileBlock, layout: BlockLayout): string {
  const { fqdn } = block;
  const hosts = blockOrder(block.hosts);
  if (hosts.length === 0) return "";
  const markers = block.markers ?? DEFAULT_MARKERS;
  // Joined once: no intermediate string per line (20,000 lines at scale).
  const { indent, newline } = layout;
  const pieces: string[] = [indent, markers.begin, newline];
  for (const host of hosts) pieces.push(indent, rewriteRule(host, fqdn), newline);
  pieces.push(indent, markers.end, newline);
  return pieces.join("");
}

/** The indent of the root block's last depth-1 line outside our markers, or the default. */
function detectIndent(analysis: CorefileAnalysis): string {
  const { text, lines, tokens, root, markers } = analysis;
  const firstOnLine = new Map<number, CorefileToken>();
  for (let index = root.open + 1; index < root.close; index++) {
    const token = tokens[index] as CorefileToken;
    const previous = tokens[index - 1] as CorefileToken;
    if (previous.endLine < token.line && !firstOnLine.has(token.line)) firstOnLine.set(token.line, token);
  }
  for (let line = analysis.rootCloseLine - 1; line > analysis.rootOpenLine; line--) {
    if (markers.kind === "present" && line >= markers.beginLine && line <= markers.endLine) continue;
    const token = firstOnLine.get(line);
    if (token === undefined || token.depth !== 1) continue;
    const physical = lines[line];
    if (physical === undefined) continue;
    return leadingIndent(text, physical.start, physical.contentEnd);
  }
  return DEFAULT_INDENT;
}

/** Leading spaces and tabs only: no odd whitespace of someone's indent travels into our block. */
function leadingIndent(text: string, start: number, end: number): string {
  let index = start;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09) break;
    index++;
  }
  return text.slice(start, index);
}
