/**
 * Finds ouroboros's marker pair in a Corefile and decides whether it is intact, failing closed on
 * any sign of a hand edit.
 *
 * A marker is a line whose text, after trimming ASCII whitespace only, is exactly
 * `# === BEGIN ouroboros (do not edit by hand) ===` or `# === END ouroboros ===`, and which is a
 * real comment to CoreDNS (not a line inside a multi-line quoted string). A valid pair is one
 * BEGIN followed later by one END, both directly inside the root server block (not inside a
 * plugin's own `{ … }`), with nothing between them but blank lines and rewrite rules of the form
 * we write.
 *
 * Anything else is refused rather than repaired, because every repair guesses at intent and a
 * wrong guess either orphans rewrite rules forever or duplicates plugin lines (the original's
 * splice does that with END before BEGIN, and CoreDNS then crash-loops on its next restart):
 *
 * - END before BEGIN, BEGIN without END, END without BEGIN, two BEGINs, two ENDs;
 * - a marker outside the root block (top level, another server block, a snippet) or inside a
 *   plugin's block;
 * - a line that is exactly a marker but sits inside a multi-line quoted string: CoreDNS reads it
 *   as data, a person reads it as our marker, and no edit can be right for both. (Marker text
 *   inside a quoted string on a line with other words is plain data and ignored: nobody can
 *   mistake that line for our marker.);
 * - a comment that looks like one of our markers but is not exact (`# === BEGIN ouroboros ===`,
 *   changed case or spacing, or a marker after other text on its line): a hand-edited marker
 *   would otherwise be ignored, and a second block appended next to the old one;
 * - foreign lines between the markers (a `log`, a comment, a different `rewrite` form): the
 *   reliability matrix prefers refusing to silently deleting an operator's line.
 *
 * Pure: no I/O.
 *
 * @module
 */

import {
  type BlockMarkers,
  DEFAULT_MARKERS,
  isOtherReleaseMarker,
  MARKER_LIKE,
  markerPair,
} from "../../markers.ts";
import { isAsciiWhitespace, type TextLine, trimAsciiWhitespace } from "../../text_lines.ts";
import { type CorefileRefusal, type MarkerProblem, refusal } from "./corefile_refusal.ts";
import type { OwnBlock } from "./find_own_block.ts";
import { ownRuleHost } from "./rewrite_rule.ts";
import type { ServerBlock } from "./server_blocks.ts";
import type { CorefileComment, CorefileToken } from "./tokenize_corefile.ts";

/** How to recover from any marker problem, appended to every marker message. */
const FIX =
  "Fix it by hand: delete the ouroboros marker lines and every `rewrite name` line between or near " +
  "them; ouroboros then writes one fresh block inside the .:53 server block. ouroboros writes nothing until then.";

/** Everything the marker scan needs: the text, its lines, tokens and comments, the root block. */
export interface MarkerScanInput {
  /** The Corefile. */
  readonly text: string;
  /** Its physical lines. */
  readonly lines: readonly TextLine[];
  /** Its tokens (tokenization succeeded). */
  readonly tokens: readonly CorefileToken[];
  /** Its comments. */
  readonly comments: readonly CorefileComment[];
  /** The root server block. */
  readonly root: ServerBlock;
  /** The release's markers (`--marker-id`); default: the original's. */
  readonly markers?: BlockMarkers;
  /**
   * Our block as read from the raw lines; its rule lines were not tokenized, so when the pair
   * found here is that block, its hostnames come from it.
   */
  readonly own?: OwnBlock;
}

/** The outcome of the marker scan. */
export type MarkerScan =
  /** No marker and nothing that looks like one. */
  | { readonly kind: "absent" }
  /** An intact pair: 0-based line numbers of BEGIN and END, and the hosts between them. */
  | {
    readonly kind: "present";
    readonly beginLine: number;
    readonly endLine: number;
    readonly hosts: readonly string[];
  }
  | CorefileRefusal;

/**
 * Finds and validates the marker pair.
 *
 * @example
 * ```ts
 * import { splitLines } from "../../text_lines.ts";
 * import { scanMarkers } from "./scan_markers.ts";
 * import { findRootBlock, serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const text = ".:53 {\n    # === BEGIN ouroboros (do not edit by hand) ===\n" +
 *   "    rewrite name a.example.com p.ns.svc.cluster.local.\n    # === END ouroboros ===\n}\n";
 * const tokenized = tokenizeCorefile(text);
 * const root = tokenized.ok ? findRootBlock(serverBlocks(tokenized.tokens)) : undefined;
 * if (tokenized.ok && root !== undefined) {
 *   const { tokens, comments } = tokenized;
 *   scanMarkers({ text, lines: splitLines(text), tokens, comments, root });
 *   // { kind: "present", beginLine: 1, endLine: 3, hosts: ["a.example.com"] }
 * }
 * ```
 */
export function scanMarkers(input: MarkerScanInput): MarkerScan {
  const { text, lines, tokens, comments, root } = input;
  const own = input.markers ?? DEFAULT_MARKERS;
  const begins: number[] = [];
  const ends: number[] = [];
  const commentByLine = new Map<number, CorefileComment>();
  for (const comment of comments) commentByLine.set(comment.line, comment);

  // Cheap filter first: a line can equal a marker only if its first visible character is the
  // marker's first one; no copy of the other lines (20,000 rules at scale) is made.
  const firsts = [own.begin.charCodeAt(0), own.end.charCodeAt(0)];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as TextLine;
    let at = line.start;
    while (at < line.contentEnd && isAsciiWhitespace(text.charCodeAt(at))) at++;
    if (at >= line.contentEnd || !firsts.includes(text.charCodeAt(at))) continue;
    const trimmed = trimAsciiWhitespace(text.slice(line.start, line.contentEnd));
    if (trimmed !== own.begin && trimmed !== own.end) continue;
    const comment = commentByLine.get(index);
    const ownLine = comment !== undefined &&
      trimAsciiWhitespace(text.slice(line.start, comment.start)) === "" &&
      trimAsciiWhitespace(comment.text) === trimmed;
    if (!ownLine) {
      return markerRefusal(
        "marker-in-quoted-string",
        `line ${index + 1} reads as an ouroboros marker but lies inside a quoted string, so CoreDNS ` +
          `does not see it as a comment; find the unclosed "…" that starts above it.`,
      );
    }
    (trimmed === own.begin ? begins : ends).push(index);
  }

  const exactLines = new Set([...begins, ...ends]);
  for (const comment of comments) {
    if (exactLines.has(comment.line) || !MARKER_LIKE.test(comment.text)) continue;
    // Another release's marker fences that release's block: foreign content, left alone.
    if (isOtherReleaseMarker(trimAsciiWhitespace(comment.text), own)) continue;
    return markerRefusal(
      "altered-marker",
      `line ${comment.line + 1} has a comment that looks like an ouroboros marker but is not exactly ` +
        `"${own.begin}" or "${own.end}" on a line of its own: ${JSON.stringify(comment.text)}.`,
    );
  }

  const pair = markerPair(begins, ends);
  if (pair.kind === "absent") return { kind: "absent" };
  if (pair.kind === "damaged") return markerRefusal(pair.problem, pair.detail);
  const { begin, end } = pair;

  const rootOpen = tokens[root.open] as CorefileToken;
  const rootClose = tokens[root.close] as CorefileToken;
  const rootStart = rootOpen.end;
  const rootEnd = rootClose.start;
  for (const markerLine of [begin, end]) {
    const offset = (commentByLine.get(markerLine) as CorefileComment).start;
    if (offset < rootStart || offset > rootEnd) {
      return markerRefusal(
        "marker-outside-root-block",
        `the marker on line ${markerLine + 1} is outside the .:53 server block ` +
          `(lines ${rootOpen.line + 1}–${rootClose.line + 1}).`,
      );
    }
    if (depthAt(tokens, offset) !== 1) {
      return markerRefusal(
        "marker-in-nested-block",
        `the marker on line ${markerLine + 1} is inside a plugin's { … } block within the .:53 server block.`,
      );
    }
  }

  const ownBlock = input.own;
  if (ownBlock !== undefined && ownBlock.beginLine === begin && ownBlock.endLine === end) {
    return { kind: "present", beginLine: begin, endLine: end, hosts: ownBlock.hosts };
  }
  const hosts: string[] = [];
  const between = tokens.filter((token) => token.line > begin && token.line < end);
  const betweenComments = comments.filter((comment) => comment.line > begin && comment.line < end);
  const firstComment = betweenComments[0];
  if (firstComment !== undefined) {
    return foreign(firstComment.line, begin, end);
  }
  const byLine = new Map<number, CorefileToken[]>();
  for (const token of between) {
    const group = byLine.get(token.line) ?? [];
    group.push(token);
    byLine.set(token.line, group);
  }
  for (const [line, group] of byLine) {
    const simple = group.every((token) => token.kind === "word" && token.endLine === line);
    const words = group.map((token) => token.text);
    const host = simple ? ownRuleHost(words) : undefined;
    if (host === undefined) return foreign(line, begin, end);
    hosts.push(host);
  }
  return { kind: "present", beginLine: begin, endLine: end, hosts };
}

function markerRefusal(problem: MarkerProblem, detail: string): CorefileRefusal {
  return refusal(problem, `ouroboros markers are damaged: ${detail} ${FIX}`);
}

function foreign(line: number, begin: number, end: number): CorefileRefusal {
  const where = `lines ${begin + 1} and ${end + 1}`;
  return refusal(
    "foreign-content-in-block",
    `line ${line + 1}, between the ouroboros markers on ${where}, is not a rewrite rule ouroboros wrote; ` +
      `ouroboros will not delete a line someone added. Move that line above the BEGIN marker or below the ` +
      `END marker (or delete it); ouroboros writes nothing until then.`,
  );
}

/** The nesting depth at a text offset that lies between tokens. */
function depthAt(tokens: readonly CorefileToken[], offset: number): number {
  let low = 0;
  let high = tokens.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((tokens[middle] as CorefileToken).end <= offset) low = middle + 1;
    else high = middle;
  }
  const previous = tokens[low - 1];
  if (previous === undefined) return 0;
  return previous.kind === "open" ? previous.depth + 1 : previous.depth;
}
