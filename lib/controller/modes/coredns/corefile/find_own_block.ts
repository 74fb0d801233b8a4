/**
 * A fast look at our own block before a Corefile is tokenized, so that its rewrite lines need
 * not become tokens.
 *
 * With 20,000 hostnames our block is some 80,000 of a Corefile's tokens, and every change
 * tokenizes the Corefile twice (the stored one, then the edited one for the self-check). Yet the
 * lines between our markers are only ever checked to be rewrite rules of the form we write and
 * read for their hostnames. {@linkcode findOwnBlock} does that from the raw lines; the tokenizer
 * then jumps over them and the marker scan takes the hostnames from here.
 *
 * It only ever answers for the simple, common case: exactly one BEGIN and one END line (after
 * trimming ASCII whitespace), END after BEGIN, and every line between them blank or a rule
 * `rewrite name [exact] <host> <target>` (or a wildcard's `rewrite name regex <pattern> <target>
 * answer auto`) made of printable ASCII words separated by spaces or tabs, with no quote, brace
 * or `#`, that `isOwnRewriteRule` accepts. Those lines produce exactly the tokens they would as words and nothing
 * else, so skipping them changes no token outside the block. Anything else (damage, foreign
 * lines, odd whitespace) gets `undefined`, and the caller tokenizes everything as before, so
 * every refusal and its wording stay the same.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type BlockMarkers, DEFAULT_MARKERS } from "../../markers.ts";
import { isAsciiWhitespace, splitLines, type TextLine, trimAsciiWhitespace } from "../../text_lines.ts";
import { ownRuleHost } from "./rewrite_rule.ts";

/** Our block as read from the raw lines. */
export interface OwnBlock {
  /** 0-based line of the BEGIN marker. */
  readonly beginLine: number;
  /** 0-based line of the END marker. */
  readonly endLine: number;
  /** Offset where the first line after BEGIN starts: the tokenizer jumps from here… */
  readonly skipStart: number;
  /** …to here, the start of the END line… */
  readonly skipEnd: number;
  /** …counting this many line breaks. */
  readonly skipLines: number;
  /** The hostnames of the rules, in order (`*.<domain>` for a wildcard's rule). */
  readonly hosts: readonly string[];
  /** The target every rule names, or `undefined` when they differ (or there is no rule). */
  readonly target: string | undefined;
  /** Whether any rule uses the `exact` form (ouroboros itself never writes it). */
  readonly exact: boolean;
}

/** Options of {@linkcode findOwnBlock}. */
export interface FindOwnBlockOptions {
  /** The text's lines, when the caller has them already. @default splitLines(text) */
  readonly lines?: readonly TextLine[];
  /** The release's markers (`--marker-id`). @default DEFAULT_MARKERS */
  readonly markers?: BlockMarkers;
}

/**
 * Reads our block from the raw lines, or `undefined` when the text needs the full analysis.
 *
 * @example
 * ```ts
 * import { findOwnBlock } from "./find_own_block.ts";
 *
 * const text = ".:53 {\n    # === BEGIN ouroboros (do not edit by hand) ===\n" +
 *   "    rewrite name a.example.com p.ns.svc.cluster.local.\n    # === END ouroboros ===\n}\n";
 * findOwnBlock(text)?.hosts; // ["a.example.com"]
 * ```
 */
export function findOwnBlock(text: string, options: FindOwnBlockOptions = {}): OwnBlock | undefined {
  const lines = options.lines ?? splitLines(text);
  const markers = options.markers ?? DEFAULT_MARKERS;
  let beginLine = -1;
  let endLine = -1;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] as TextLine;
    // Cheap filter first: a marker line is a comment, so its first visible character is `#`.
    let at = line.start;
    while (at < line.contentEnd && isAsciiWhitespace(text.charCodeAt(at))) at++;
    if (text.charCodeAt(at) !== 0x23 /* # */ || at >= line.contentEnd) continue;
    const trimmed = trimAsciiWhitespace(text.slice(line.start, line.contentEnd));
    if (trimmed === markers.begin) {
      if (beginLine >= 0) return undefined;
      beginLine = index;
    } else if (trimmed === markers.end) {
      if (endLine >= 0) return undefined;
      endLine = index;
    }
  }
  if (beginLine < 0 || endLine <= beginLine) return undefined;

  const hosts: string[] = [];
  let target: string | undefined;
  let mixed = false;
  let exact = false;
  for (let index = beginLine + 1; index < endLine; index++) {
    const line = lines[index] as TextLine;
    const words = wordsOf(text, line);
    if (words === undefined) return undefined;
    if (words.length === 0) continue;
    const host = ownRuleHost(words);
    if (host === undefined) return undefined;
    // `rewrite name [exact] <host> <to>`, or `rewrite name regex <pattern> <to> answer auto`.
    const to = words[2] === "regex" ? words[4] : words.at(-1);
    if (hosts.length === 0) target = to;
    else if (target !== to) mixed = true;
    hosts.push(host);
    if (words[2] === "exact") exact = true;
  }
  const first = lines[beginLine + 1] as TextLine;
  const last = lines[endLine] as TextLine;
  return {
    beginLine,
    endLine,
    skipStart: first.start,
    skipEnd: last.start,
    skipLines: endLine - beginLine - 1,
    hosts,
    target: mixed ? undefined : target,
    exact,
  };
}

/**
 * The words of one line's content, split at runs of spaces and tabs: `[]` for a blank line,
 * `undefined` when the line has a character no rule of ours contains (a quote, `#`, a brace, or
 * anything but printable ASCII). One scan, no regex and no copy of the line: it runs for each of
 * the block's lines, 20,000 of them per edit at scale.
 */
function wordsOf(text: string, line: TextLine): string[] | undefined {
  const words: string[] = [];
  let start = -1;
  for (let at = line.start; at <= line.contentEnd; at++) {
    const code = at < line.contentEnd ? text.charCodeAt(at) : 0x20;
    if (code === 0x20 || code === 0x09) {
      if (start >= 0) words.push(text.slice(start, at));
      start = -1;
      continue;
    }
    // Printable ASCII other than `"`, `#`, `{` and `}`.
    if (code < 0x21 || code > 0x7e || code === 0x22 || code === 0x23 || code === 0x7b || code === 0x7d) {
      return undefined;
    }
    if (start < 0) start = at;
  }
  return words;
}
