/**
 * Finds ouroboros's marker pair in a Corefile and decides whether it is intact, failing closed on
 * any sign of a hand edit.
 *
 * Pure: no I/O.
 *
 * Refused, not repaired (a wrong guess orphans rules or duplicates plugins, which crash-loops
 * CoreDNS): unpaired or repeated markers; markers outside the root block or in a plugin's block;
 * an exact marker line inside a multi-line quoted string (CoreDNS sees data, a person our marker);
 * near-miss marker comments; and any line between the markers that is not a rule we write.
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

const FIX =
  "Fix it by hand: delete the ouroboros marker lines and every `rewrite name` line between or near " +
  "them; ouroboros then writes one fresh block inside the .:53 server block. ouroboros writes nothing until then.";

/** Everything the marker scan needs: the text, its lines, tokens and comments, the root block. */
export interface MarkerScanInput {
  readonly text: string;
  readonly lines: readonly TextLine[];
  readonly tokens: readonly CorefileToken[];
  readonly comments: readonly CorefileComment[];
  readonly root: ServerBlock;
  /** Default: the original's markers. */
  readonly markers?: BlockMarkers;
  /** Our block read from raw lines (not tokenized): its hosts are used when the pair matches. */
  readonly own?: OwnBlock;
}

/** The outcome of the marker scan. */
export type MarkerScan =
  | { readonly kind: "absent" }
  /** An intact pair: 0-based lines of BEGIN and END, and the hosts between them. */
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
 * import assert from "node:assert/strict";
 * import { splitLines } from "../../text_lines.ts";
 * import { scanMarkers } from "./scan_markers.ts";
 * import { findRootBlock, serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const text = ".:53 {\n    # === BEGIN ouroboros (do not edit by hand) ===\n" +
 *   "    rewrite name a.example.com p.ns.svc.cluster.local.\n    # === END ouroboros ===\n}\n";
 * const tokenized = tokenizeCorefile(text);
 * assert.ok(tokenized.ok);
 * const { tokens, comments } = tokenized;
 * const root = findRootBlock(serverBlocks(tokens));
 * assert.ok(root !== undefined);
 * assert.deepEqual(scanMarkers({ text, lines: splitLines(text), tokens, comments, root }), {
 *   kind: "present",
 *   beginLine: 1,
 *   endLine: 3,
 *   hosts: ["a.example.com"],
 * });
 * ```
 */
export function scanMarkers(input: MarkerScanInput): MarkerScan {
  const { text, lines, tokens, comments, root } = input;
  const own = input.markers ?? DEFAULT_MARKERS;
  const begins: number[] = [];
  const ends: number[] = [];
  const commentByLine = new Map<number, CorefileComment>();
  for (const comment of comments) commentByLine.set(comment.line, comment);

  // Filter on the first visible character, so the other lines (20,000 rules) are never copied.
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

/** The nesting depth at an offset between tokens. */
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
