/**
 * Reads a Corefile into the facts an edit needs (lines, tokens, server blocks, the root block and
 * the state of our markers), or the reason it cannot be edited safely.
 *
 * Pure: no I/O.
 *
 * Checks run in the order a person would fix them: empty key, syntax, root block, markers. A root
 * `}` after other text (`cache 30 }`) is refused, not split: CoreDNS rejects that form too.
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
  readonly blockMarkers: BlockMarkers;
  readonly kind: "analysis";
  readonly text: string;
  readonly lines: readonly TextLine[];
  /** None for the lines between our markers when {@linkcode own} is set. */
  readonly tokens: readonly CorefileToken[];
  readonly comments: readonly CorefileComment[];
  readonly blocks: readonly ServerBlock[];
  readonly root: ServerBlock;
  /** 0-based lines of the root block's braces; the `}` starts its line. */
  readonly rootOpenLine: number;
  readonly rootCloseLine: number;
  readonly markers: Exclude<MarkerScan, CorefileRefusal>;
  /** Our block read from the raw lines, when its rules were not tokenized. */
  readonly own?: OwnBlock;
}

/** Options of {@linkcode analyzeCorefile}. */
export interface AnalyzeOptions {
  /** @default DEFAULT_MARKERS */
  readonly markers?: BlockMarkers;
  /** Skip the `find_own_block.ts` shortcut; the result is the same (tests compare the two). */
  readonly tokenizeOwnBlock?: boolean;
}

/** Analyses a Corefile, or says why it cannot be edited. */
export function analyzeCorefile(
  text: string,
  options: AnalyzeOptions = {},
): CorefileAnalysis | CorefileRefusal {
  const blockMarkers = options.markers ?? DEFAULT_MARKERS;
  if (text.trim() === "") return refusal("empty-corefile", "empty Corefile: the ConfigMap key holds no text");
  const lines = splitLines(text);
  // Anything unexpected is analysed again in full, so refusals read exactly as they always did.
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
