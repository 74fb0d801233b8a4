/**
 * coredns mode's edit: puts ouroboros's rewrite block into the root server block of a Corefile,
 * replaces it, or removes it, touching no byte outside the markers.
 *
 * The block is
 *
 * ```
 * <indent># === BEGIN ouroboros (do not edit by hand) ===
 * <indent>rewrite name <host> <fqdn>
 * <indent># === END ouroboros ===
 * ```
 *
 * with one rewrite line per host in the order given (the caller passes them sorted and
 * de-duplicated), except that wildcards' rules (`rewrite name regex … answer auto`, see
 * `rewrite_rule.ts`) follow every exact one, so an exact name wins. Decisions:
 *
 * - Where: an intact marker pair is replaced in place, lines BEGIN to END inclusive. Without one,
 *   the block goes on its own lines right before the line holding the root block's closing `}`,
 *   so it ends the block. CoreDNS orders plugins by its compiled plugin list, not by line order,
 *   so the position does not change behaviour; among `rewrite` rules line order does count, so an
 *   operator's own matching rule above ours still wins (shadowing is not detected here).
 * - Zero hosts: the marker lines and everything between them are deleted, with their line
 *   breaks, so no blank line is left behind; with no block present nothing changes. Insert
 *   followed by removal therefore returns the original text exactly.
 * - Indent: the leading spaces and tabs of the last plugin line of the root block outside our
 *   markers (a line that starts with a token directly inside the block, such as `loadbalance` or
 *   the `}` closing `kubernetes { … }`), so tabs stay tabs and the chart's odd widths are
 *   matched. Lines inside a plugin's own block (`ttl 30`) are deeper and do not count. An empty
 *   root block gets 4 spaces.
 * - Line endings: inserted lines end with the file's style (that of its first line break), CRLF
 *   or LF; every other line keeps its own terminator, and a missing final newline stays missing.
 * - Safety: the input is analysed first (see `analyze_corefile.ts`; damaged markers and broken
 *   syntax are refused, also when removing the block), and the result is checked against the
 *   input before it is returned (see `verify_corefile_edit.ts`); a result that fails the check is
 *   refused, never returned.
 * - Unsafe input: a host or target that fails the checks of `rewrite_rule.ts` is refused
 *   (`invalid-host`, `invalid-fqdn`) before the Corefile is read.
 * - Cost: two linear analyses (the input, then the result for the check); about 35–80 ms for
 *   20,000 hosts (a 1.7 MB Corefile) once warm.
 *
 * Pure: no I/O.
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
  /** The release's markers (`--marker-id`). @default DEFAULT_MARKERS */
  readonly markers?: BlockMarkers;
}

/** How the block's lines are laid out: what each starts and ends with. */
export interface BlockLayout {
  /** Spaces and tabs before every line. */
  readonly indent: string;
  /** The line terminator, `\n` or `\r\n`. */
  readonly newline: string;
}

/** What {@linkcode applyCorefileBlock} decided. */
export type CorefileEdit =
  /** The Corefile already says exactly this: write nothing. */
  | { readonly kind: "unchanged" }
  /**
   * Write `corefile`. `previousHosts` were in the block before (empty when there was none);
   * `reload` says whether the Corefile enables the reload plugin (our block never changes that).
   */
  | {
    readonly kind: "changed";
    readonly corefile: string;
    readonly previousHosts: readonly string[];
    readonly reload: boolean;
  }
  /** Write nothing; `message` says what to fix. */
  | CorefileRefusal;

/**
 * Makes the ouroboros block of `corefile` hold exactly `block.hosts`, each rewritten to
 * `block.fqdn`.
 *
 * @example
 * ```ts
 * import { applyCorefileBlock } from "./apply_corefile_block.ts";
 *
 * const fqdn = "p.ns.svc.cluster.local.";
 * const edit = applyCorefileBlock(".:53 {\n    errors\n}\n", { hosts: ["app.example.com"], fqdn });
 * // edit.kind === "changed"; edit.corefile ===
 * // ".:53 {\n    errors\n    # === BEGIN ouroboros (do not edit by hand) ===\n" +
 * // "    rewrite name app.example.com p.ns.svc.cluster.local.\n    # === END ouroboros ===\n}\n"
 * applyCorefileBlock(".:53 {\n    errors\n}\n", { hosts: [], fqdn }).kind; // "unchanged"
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

/**
 * The block's text: the marker lines around one rewrite line per host, each laid out as
 * `layout` says; the empty string for no hosts.
 *
 * @example
 * ```ts
 * import { renderBlock } from "./apply_corefile_block.ts";
 *
 * const block = { hosts: ["a.example.com"], fqdn: "p.ns.svc.cluster.local." };
 * renderBlock(block, { indent: "\t", newline: "\n" });
 * // "\t# === BEGIN ouroboros (do not edit by hand) ===\n" +
 * // "\trewrite name a.example.com p.ns.svc.cluster.local.\n" +
 * // "\t# === END ouroboros ===\n"
 * ```
 */
export function renderBlock(block: CorefileBlock, layout: BlockLayout): string {
  const { fqdn } = block;
  const hosts = blockOrder(block.hosts);
  if (hosts.length === 0) return "";
  const markers = block.markers ?? DEFAULT_MARKERS;
  // One flat list of pieces joined once: no intermediate string per line (20,000 lines at scale).
  const { indent, newline } = layout;
  const pieces: string[] = [indent, markers.begin, newline];
  for (const host of hosts) pieces.push(indent, rewriteRule(host, fqdn), newline);
  pieces.push(indent, markers.end, newline);
  return pieces.join("");
}

/** The indentation of the root block's last plugin line outside our markers, or the default. */
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

/**
 * The leading run of spaces and tabs of a line's content. Only those two characters are ever
 * copied into lines we write, so an odd whitespace character (a vertical tab, a no-break space)
 * in someone's indentation cannot travel into our block.
 */
function leadingIndent(text: string, start: number, end: number): string {
  let index = start;
  while (index < end) {
    const code = text.charCodeAt(index);
    if (code !== 0x20 && code !== 0x09) break;
    index++;
  }
  return text.slice(start, index);
}
