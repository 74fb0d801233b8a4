/**
 * Whether a Corefile enables CoreDNS's `reload` plugin: without it our writes wait for a CoreDNS
 * pod restart, so the coredns sink and the start-up probe warn.
 *
 * The check looks at directives the way CoreDNS's parser sees them: the first word of a plugin
 * line, outside comments and quoted strings, directly inside a server block, with
 * `import <snippet>` lines replaced by the snippet's plugin lines. `# reload`, `reloaded`, and the
 * `reload 15s` option inside k3s's `hosts { … }` block are not the reload plugin.
 *
 * Decisions:
 * - `reload` counts in any server block, not only the root block: the plugin watches the whole
 *   Corefile and restarts every server block when it changes, so one `reload` anywhere picks up
 *   our edit. Snippet definitions count only where a server block imports them.
 * - A Corefile that does not tokenize (unbalanced braces, an unterminated quote) answers `false`:
 *   nothing in it can be relied on.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { expandedDirectives, serverBlocks } from "./server_blocks.ts";
import { type CorefileToken, tokenizeCorefile } from "./tokenize_corefile.ts";

/**
 * Whether the Corefile enables CoreDNS's `reload` plugin.
 *
 * @example
 * ```ts
 * import { hasReloadPlugin } from "./has_reload_plugin.ts";
 *
 * hasReloadPlugin(".:53 {\n    errors\n    reload 5s\n}\n"); // true
 * hasReloadPlugin(".:53 {\n    # reload\n}\n"); // false
 * ```
 */
export function hasReloadPlugin(corefile: string): boolean {
  const tokenized = tokenizeCorefile(corefile);
  return tokenized.ok && hasReloadPluginIn(tokenized.tokens);
}

/**
 * {@linkcode hasReloadPlugin} for a Corefile already tokenized (the editor has the tokens, and a
 * Corefile near the 1 MiB limit is not worth tokenizing twice).
 *
 * @example
 * ```ts
 * import { hasReloadPluginIn } from "./has_reload_plugin.ts";
 * import { tokenizeCorefile } from "./tokenize_corefile.ts";
 *
 * const tokenized = tokenizeCorefile(".:53 {\n    reload\n}\n");
 * tokenized.ok && hasReloadPluginIn(tokenized.tokens); // true
 * ```
 */
export function hasReloadPluginIn(tokens: readonly CorefileToken[]): boolean {
  const blocks = serverBlocks(tokens);
  return blocks.some((block) =>
    block.snippet === undefined &&
    expandedDirectives({ tokens, blocks }, block).some((directive) => directive.name === "reload")
  );
}
