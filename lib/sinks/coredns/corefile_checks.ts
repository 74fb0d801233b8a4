/**
 * Read-only checks of the main Corefile that back ouroboros's prerequisite warnings: is the
 * `reload` plugin on (otherwise our writes wait for a pod restart), and does the root block
 * `import` the file our coredns-import key becomes (otherwise CoreDNS never reads it).
 *
 * Both look at directives the way CoreDNS's parser sees them: the first word of a plugin line,
 * outside comments and quoted strings, directly inside a server block, with `import <snippet>`
 * lines replaced by the snippet's plugin lines. `# reload`, `reloaded`, and the `reload 15s`
 * option inside k3s's `hosts { … }` block are not the reload plugin.
 *
 * Decisions:
 * - `hasReloadPlugin` accepts `reload` in any server block, not only the root block: the plugin
 *   watches the whole Corefile and restarts every server block when it changes, so one
 *   `reload` anywhere picks up our edit. Snippet definitions count only where a server block
 *   imports them.
 * - `importCovers` looks only in the root block: an import elsewhere would put our rewrite rules
 *   in a server block that does not answer ordinary lookups. It compares the glob's final path
 *   component with the key (the ConfigMap's mount directory is not visible from here), and skips
 *   patterns CoreDNS refuses to load (more than one `*`, more than one `?`, or a `[…]` class):
 *   such an import covers nothing because the Corefile does not load.
 * - A Corefile that does not tokenize (unbalanced braces, an unterminated quote) answers `false`
 *   to both: nothing in it can be relied on.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { expandedDirectives, findRootBlock, serverBlocks } from "./corefile_structure.ts";
import { type CorefileToken, tokenizeCorefile } from "./corefile_tokens.ts";
import { matchGlob } from "./glob_match.ts";

/**
 * Whether the Corefile enables CoreDNS's `reload` plugin.
 *
 * @example
 * ```ts
 * hasReloadPlugin(".:53 {\n    errors\n    reload 5s\n}\n"); // true
 * hasReloadPlugin(".:53 {\n    # reload\n}\n");              // false
 * ```
 */
export function hasReloadPlugin(corefile: string): boolean {
  const tokenized = tokenizeCorefile(corefile);
  return tokenized.ok && hasReloadPluginIn(tokenized.tokens);
}

/**
 * {@linkcode hasReloadPlugin} for a Corefile already tokenized (the editor has the tokens, and a
 * Corefile near the 1 MiB limit is not worth tokenizing twice).
 */
export function hasReloadPluginIn(tokens: readonly CorefileToken[]): boolean {
  const blocks = serverBlocks(tokens);
  return blocks.some((block) =>
    block.snippet === undefined &&
    expandedDirectives(tokens, blocks, block).some((directive) => directive.name === "reload")
  );
}

/**
 * Whether the root server block has an `import` whose pattern picks up a file named `key`.
 *
 * @example
 * ```ts
 * const corefile = ".:53 {\n    import /etc/coredns/custom/*.override\n}\n";
 * importCovers(corefile, "ouroboros.override"); // true
 * importCovers(corefile, "ouroboros.server");   // false
 * ```
 */
export function importCovers(corefile: string, key: string): boolean {
  const tokenized = tokenizeCorefile(corefile);
  if (!tokenized.ok) return false;
  const blocks = serverBlocks(tokenized.tokens);
  const root = findRootBlock(blocks);
  if (root === undefined) return false;
  return expandedDirectives(tokenized.tokens, blocks, root).some((directive) => {
    const [pattern, extra] = directive.args;
    if (directive.name !== "import" || pattern === undefined || extra !== undefined) return false;
    if (!corednsAcceptsPattern(pattern)) return false;
    const base = pattern.slice(pattern.lastIndexOf("/") + 1);
    return matchGlob(base, key);
  });
}

/** CoreDNS's import refuses patterns with more than one `*` or `?`, or with a `[…]` class. */
function corednsAcceptsPattern(pattern: string): boolean {
  const count = (char: string): number => pattern.split(char).length - 1;
  return count("*") <= 1 && count("?") <= 1 && !(pattern.includes("[") && pattern.includes("]"));
}
