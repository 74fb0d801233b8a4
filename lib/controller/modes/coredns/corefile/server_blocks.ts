/**
 * Server blocks and directives of a tokenized Corefile: which block is the root zone's, where
 * its braces are, and which plugin lines it holds (following snippet imports the way CoreDNS
 * expands them).
 *
 * The root server block is the first server block, in file order, with a key that serves the
 * root zone on the default port: `.`, `.:53`, or either with the `dns://` scheme. Key lists
 * (`. example.org {`, `.:53, example.org:53 {`) count when any key is one of those. `.:8053`,
 * `.foo:53`, `tls://.:853` and snippet definitions (`(name) {`) are not the root block, so the
 * block we edit is the one answering every ordinary in-cluster lookup.
 *
 * A server block must have braces here. CoreDNS also accepts a single braceless block
 * (`.:53` followed by plugin lines); no distribution ships that, and without a closing brace
 * there is no safe place to insert, so such a file has no root block for us.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { CorefileToken } from "./tokenize_corefile.ts";

/** A server block or snippet definition at the top level of a Corefile. */
export interface ServerBlock {
  /** Its keys as CoreDNS reads them: quotes removed, a trailing comma dropped. */
  readonly keys: readonly string[];
  /** Index of the `{` token. */
  readonly open: number;
  /** Index of the matching `}` token. */
  readonly close: number;
  /** The snippet name for a `(name) {` definition, else `undefined`. */
  readonly snippet: string | undefined;
}

/** One plugin line of a block: its name, the words on its line, and where it starts. */
export interface Directive {
  /** The plugin name (`errors`, `kubernetes`, `import`, …). */
  readonly name: string;
  /** The following words and quoted strings on the same line, up to a `{`. */
  readonly args: readonly string[];
  /** Index of the directive's first token. */
  readonly token: number;
}

/** A tokenized Corefile and its top-level blocks: what directive expansion reads. */
export interface CorefileBlocks {
  /** The tokens. */
  readonly tokens: readonly CorefileToken[];
  /** Their {@linkcode serverBlocks}. */
  readonly blocks: readonly ServerBlock[];
}

/**
 * Lists the top-level server blocks and snippet definitions in file order. Top-level `import`
 * lines are skipped, as CoreDNS splices them in place of the line.
 *
 * @example
 * ```ts
 * import { serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const tokenized = tokenizeCorefile("(common) {\n  errors\n}\n.:53 {\n  import common\n}\n");
 * if (tokenized.ok) serverBlocks(tokenized.tokens).map((block) => block.keys); // [["(common)"], [".:53"]]
 * ```
 */
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
      // A top-level import and its argument are replaced by the imported file; they are not keys.
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

/**
 * Whether a server key serves the root zone on port 53.
 *
 * @example
 * ```ts
 * import { isRootKey } from "./server_blocks.ts";
 *
 * isRootKey(".:53"); // true
 * isRootKey("dns://."); // true
 * isRootKey(".:8053"); // false
 * isRootKey("example.org"); // false
 * ```
 */
export function isRootKey(key: string): boolean {
  const address = key.toLowerCase().startsWith("dns://") ? key.slice("dns://".length) : key;
  return address === "." || address === ".:53";
}

/**
 * The first server block (not a snippet definition) with a root key, or `undefined`.
 *
 * @example
 * ```ts
 * import { findRootBlock, serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const tokenized = tokenizeCorefile("example.org:53 {\n}\n.:53 {\n}\n");
 * if (tokenized.ok) findRootBlock(serverBlocks(tokenized.tokens))?.keys; // [".:53"]: the second block
 * ```
 */
export function findRootBlock(blocks: readonly ServerBlock[]): ServerBlock | undefined {
  return blocks.find((block) => block.snippet === undefined && block.keys.some(isRootKey));
}

/**
 * The plugin lines directly inside a block (not inside a plugin's own `{ … }`), in order.
 *
 * A directive starts at the first token after the block's `{`, and at every later token of the
 * block's depth that begins on a new line, which is how CoreDNS's parser splits directives.
 *
 * @example
 * ```ts
 * import { blockDirectives, findRootBlock, serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const corefile = ".:53 {\n  errors\n  kubernetes cluster.local {\n    pods insecure\n  }\n}\n";
 * const tokenized = tokenizeCorefile(corefile);
 * const root = tokenized.ok ? findRootBlock(serverBlocks(tokenized.tokens)) : undefined;
 * if (tokenized.ok && root !== undefined) {
 *   blockDirectives(tokenized.tokens, root).map(({ name, args }) => [name, args]);
 *   // [["errors", []], ["kubernetes", ["cluster.local"]]]
 * }
 * ```
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
 * The plugin lines of a block with `import <snippet>` lines replaced by the snippet's own plugin
 * lines, recursively, as CoreDNS does at parse time. Only snippets defined before the block
 * count (CoreDNS reads an unknown name as a file path). An `import` that names no snippet is kept
 * as it is, for the caller to treat as a file import. A snippet that imports itself, directly or
 * through others, is expanded once.
 *
 * @example
 * ```ts
 * import { expandedDirectives, findRootBlock, serverBlocks } from "./server_blocks.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const tokenized = tokenizeCorefile("(base) {\n  reload\n}\n.:53 {\n  import base\n}\n");
 * if (tokenized.ok) {
 *   const blocks = serverBlocks(tokenized.tokens);
 *   const root = findRootBlock(blocks);
 *   if (root !== undefined) {
 *     expandedDirectives({ tokens: tokenized.tokens, blocks }, root).map((directive) => directive.name);
 *     // ["reload"], where blockDirectives gives ["import"]
 *   }
 * }
 * ```
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

/** Whether the token is the first on its line (the previous token ended on an earlier line). */
function startsLine(tokens: readonly CorefileToken[], index: number): boolean {
  const previous = tokens[index - 1];
  const token = tokens[index];
  return previous === undefined || token === undefined || previous.endLine < token.line;
}
