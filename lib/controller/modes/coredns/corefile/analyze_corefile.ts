/**
 * Reads a Corefile into the facts an edit needs (lines, tokens, server blocks, the root block and
 * the state of our markers), or the reason it cannot be edited safely.
 *
 * The checks run in the order a person would fix them: an empty key, then the file's own syntax
 * (quotes, braces), then the root server block, then our markers.
 *
 * The root block's closing `}` must start its line (only whitespace before it). A `}` after other
 * text, as in `    cache 30 }`, is refused rather than split: CoreDNS itself rejects that form
 * ("Unexpected '}' because no matching opening brace"), so such a file is already broken, and
 * rewriting a person's line to make room for ours would change bytes we do not own.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type BlockMarkers, DEFAULT_MARKERS } from "../../markers.ts";
import { splitLines, type TextLine } from "../../text_lines.ts";
import { type CorefileRefusal, refusal, unparsable } from "./corefile_refusal.ts";
import { findOwnBlock, type OwnBlock } from "./find_own_block.ts";
import { type MarkerScan, scanMarkers } from "./scan_markers.ts";
import { findRootBlock, type ServerBlock, serverBlocks } from "./server_blocks.ts";
import { type CorefileComment, type CorefileToken, tokenizeCorefile } from "./tokenize_corefile.ts";

/** A Corefile we can edit, with everything the editor and the self-check look at. */
export interface CorefileAnalysis {
  /** The marker pair this analysis looked for (the release's). */
  readonly blockMarkers: BlockMarkers;
  /** Discriminant. */
  readonly kind: "analysis";
  /** The Corefile as read. */
  readonly text: string;
  /** Its physical lines. */
  readonly lines: readonly TextLine[];
  /**
   * Its tokens. When {@linkcode own} is set, none for the lines between our markers: they were
   * read as rules from the raw lines instead.
   */
  readonly tokens: readonly CorefileToken[];
  /** Its comments. */
  readonly comments: readonly CorefileComment[];
  /** Top-level server blocks and snippet definitions. */
  readonly blocks: readonly ServerBlock[];
  /** The root server block. */
  readonly root: ServerBlock;
  /** 0-based line of the root block's `{`. */
  readonly rootOpenLine: number;
  /** 0-based line of the root block's `}`; it starts this line. */
  readonly rootCloseLine: number;
  /** Our markers: absent or an intact pair. */
  readonly markers: Exclude<MarkerScan, CorefileRefusal>;
  /** Our block read from the raw lines, when its rules were not tokenized (see `find_own_block.ts`). */
  readonly own?: OwnBlock;
}

/** Options of {@linkcode analyzeCorefile}. */
export interface AnalyzeOptions {
  /** The release's markers (`--marker-id`). @default DEFAULT_MARKERS */
  readonly markers?: BlockMarkers;
  /**
   * Tokenize the lines of our own block too, instead of reading them as rules from the raw
   * lines (`find_own_block.ts`). The result is the same either way; tests compare the two.
   */
  readonly tokenizeOwnBlock?: boolean;
}

/**
 * Analyses a Corefile, or says why it cannot be edited.
 *
 * @example
 * ```ts
 * import { analyzeCorefile } from "./analyze_corefile.ts";
 *
 * const analysis = analyzeCorefile(".:53 {\n    errors\n}\n");
 * // analysis.kind === "analysis", analysis.markers.kind === "absent", analysis.rootCloseLine === 2
 * analyzeCorefile("example.org {\n}\n").kind; // "refused" (no-root-block)
 * ```
 */
export function analyzeCorefile(
  text: string,
  options: AnalyzeOptions = {},
): CorefileAnalysis | CorefileRefusal {
  const blockMarkers = options.markers ?? DEFAULT_MARKERS;
  if (text.trim() === "") return refusal("empty-corefile", "empty Corefile: the ConfigMap key holds no text");
  const lines = splitLines(text);
  // The common case: our block holds only our rules, which need not become tokens. Anything
  // unexpected is analysed again in full, so refusals read exactly as they always did.
  const own = options.tokenizeOwnBlock === true
    ? undefined
    : findOwnBlock(text, { lines, markers: blockMarkers });
  if (own !== undefined) {
    const fast = analyze(text, lines, blockMarkers, own);
    if (
      fast.kind === "analysis" && fast.markers.kind === "present" &&
      fast.markers.beginLine === own.beginLine &&
      fast.markers.endLine === own.endLine
    ) {
      return fast;
    }
  }
  return analyze(text, lines, blockMarkers, undefined);
}

function analyze(
  text: string,
  lines: readonly TextLine[],
  blockMarkers: BlockMarkers,
  own: OwnBlock | undefined,
): CorefileAnalysis | CorefileRefusal {
  const tokenized = tokenizeCorefile(
    text,
    own === undefined ? undefined : { start: own.skipStart, end: own.skipEnd, lines: own.skipLines },
  );
  if (!tokenized.ok) return unparsable(tokenized);
  const { tokens, comments } = tokenized;
  const blocks = serverBlocks(tokens);
  const root = findRootBlock(blocks);
  if (root === undefined) {
    return refusal(
      "no-root-block",
      "no .:53 server block found: ouroboros edits the first server block whose key is `.` or `.:53` " +
        "(with braces); add one, or use coredns-import mode if another file serves the root zone",
    );
  }
  const open = tokens[root.open] as CorefileToken;
  const close = tokens[root.close] as CorefileToken;
  const beforeClose = tokens[root.close - 1] as CorefileToken;
  if (beforeClose.endLine === close.line) {
    return refusal(
      "closing-brace-shares-line",
      `the "}" that closes the .:53 server block on line ${close.line + 1} follows other text on that ` +
        `line; CoreDNS rejects that form too. Put the "}" on a line of its own.`,
    );
  }
  const markers = scanMarkers({
    text,
    lines,
    tokens,
    comments,
    root,
    markers: blockMarkers,
    ...(own === undefined ? {} : { own }),
  });
  if (markers.kind === "refused") return markers;
  return {
    kind: "analysis",
    blockMarkers,
    text,
    lines,
    tokens,
    comments,
    blocks,
    root,
    rootOpenLine: open.line,
    rootCloseLine: close.line,
    markers,
    ...(own === undefined ? {} : { own }),
  };
}
