/**
 * Server blocks and directives of a tokenized Corefile: which block is the root zone's, where
 * its braces are, and which plugin lines it holds (following snippet imports as CoreDNS does).
 *
 * Pure: no I/O.
 *
 * The root block is the first whose keys include `.` or `.:53` (optionally `dns://`): the one
 * answering ordinary in-cluster lookups. CoreDNS's braceless single block is not supported: without
 * a closing brace there is no safe place to insert.
 *
 * @module
 */

import type { CorefileToken } from "./tokenize_corefile.ts";

/** A server block or snippet definition at the top level of a Corefile. */
export interface ServerBlock {
  /** As CoreDNS reads them: quotes removed, a trailing comma dropped. */
  readonly keys: readonly string[];
  /** Token indexes of the braces. */
  readonly open: number;
  readonly close: number;
  /** The snippet name for a `(name) {` definition, else `undefined`. */
  readonly snippet: string | undefined;
}

/** One plugin line of a block: its name, the words on its line, and where it starts. */
export interface Directive {
  readonly name: string;
  /** The words and quoted strings after it on the same line, up to a `{`. */
  readonly args: readonly string[];
  readonly token: number;
}

/** A tokenized Corefile and its top-level blocks: what directive expansion reads. */
export interface CorefileBlocks {
  readonly tokens: readonly CorefileToken[];
  readonly blocks: readonly ServerBlock[];
}

/** The top-level server blocks and snippet definitions in file order (imports skipped). */
export function serverBlocks(tokens: readonly CorefileToken[]): ServerBlock[] {
  const blocks: ServerBlock[] = [];
  let keys: string[] = [];
  let index = 0;
  while (index < tokens.length) {
    const token = tokens[index] as CorefileToken;
    if (token.kind === "open") {
      const snippet = keys.length === 1 && /^\(.*\)$/s.test(keys[0] as string)
        ? (keys[0] as string).slice(1, -1)
        : undefined;
      blocks.push({ keys, open: index, close: token.partner, snippet });
      keys = [];
      index = token.partner + 1;
      continue;
    }
    if (token.kind === "word" && token.text === "import" && startsLine(tokens, index)) {
      // CoreDNS replaces a top-level import with the imported file: it holds no keys.
      index++;
      while (index < tokens.length && tokens[index]?.line === token.line) index++;
      continue;
    }
    const key = token.text.endsWith(",") ? token.text.slice(0, -1) : token.text;
    if (key !== "") keys.push(key);
    index++;
  }
  return blocks;
}

/** Whether a server key serves the root zone on port 53. */
export function isRootKey(key: string): boolean {
  const address = key.toLowerCase().startsWith("dns://") ? key.slice("dns://".length) : key;
  return address === "." || address === ".:53";
}

/**
 * The first server block (not a snippet definition) with a root key, or `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { findRootBlock, serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const tokenized = tokenizeCorefile("example.org:53 {\n}\n.:53 {\n}\n");
 * assert.ok(tokenized.ok);
 * assert.deepEqual(findRootBlock(serverBlocks(tokenized.tokens))?.keys, [".:53"]); // the second block
 * ```
 */
export function findRootBlock(blocks: readonly ServerBlock[]): ServerBlock | undefined {
  return blocks.find((block) => block.snippet === undefined && block.keys.some(isRootKey));
}

/**
 * The plugin lines directly inside a block, in order: each starts at the first token of the
 * block's depth on a new line, as CoreDNS's parser splits them.
 */
export function blockDirectives(tokens: readonly CorefileToken[], block: ServerBlock): Directive[] {
  const directives: Directive[] = [];
  const depth = (tokens[block.open]?.depth ?? 0) + 1;
  for (let index = block.open + 1; index < block.close; index++) {
    const token = tokens[index] as CorefileToken;
    if (token.depth !== depth || (token.kind !== "word" && token.kind !== "quoted")) continue;
    const previous = tokens[index - 1] as CorefileToken;
    if (index !== block.open + 1 && previous.endLine >= token.line) continue;
    const args: string[] = [];
    let next = index + 1;
    let lastLine = token.endLine;
    while (next < block.close) {
      const arg = tokens[next] as CorefileToken;
      if (arg.line !== lastLine || (arg.kind !== "word" && arg.kind !== "quoted")) break;
      args.push(arg.text);
      lastLine = arg.endLine;
      next++;
    }
    directives.push({ name: token.text, args, token: index });
  }
  return directives;
}

/**
 * A block's plugin lines with `import <snippet>` replaced by the snippet's lines, recursively, as
 * CoreDNS does. Only snippets defined earlier count (else it is a file import, kept as is); a cycle
 * is expanded once.
 */
export function expandedDirectives(corefile: CorefileBlocks, block: ServerBlock): Directive[] {
  const { tokens, blocks } = corefile;
  const snippets = new Map<string, ServerBlock>();
  for (const candidate of blocks) {
    if (candidate.snippet !== undefined && candidate.close < block.open) {
      snippets.set(candidate.snippet, candidate);
    }
  }
  const expanded: Directive[] = [];
  const visit = (current: ServerBlock, seen: ReadonlySet<string>): void => {
    for (const directive of blockDirectives(tokens, current)) {
      const name = directive.args[0];
      const snippet = directive.name === "import" && name !== undefined ? snippets.get(name) : undefined;
      if (snippet === undefined || name === undefined) {
        expanded.push(directive);
      } else if (!seen.has(name)) {
        visit(snippet, new Set([...seen, name]));
      }
    }
  };
  visit(block, new Set());
  return expanded;
}

function startsLine(tokens: readonly CorefileToken[], index: number): boolean {
  const previous = tokens[index - 1];
  const token = tokens[index];
  return previous === undefined || token === undefined || previous.endLine < token.line;
}
