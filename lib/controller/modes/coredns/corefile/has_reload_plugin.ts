/**
 * Whether a Corefile enables CoreDNS's `reload` plugin: without it our writes wait for a CoreDNS
 * pod restart, so the coredns sink and the start-up probe warn.
 *
 * Pure: no I/O.
 *
 * Counts `reload` as a directive in any server block (it restarts them all), snippets included
 * where imported; not `# reload` or k3s's `hosts { reload 15s }`. An untokenizable file: `false`.
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
 * import assert from "node:assert/strict";
 * import { hasReloadPlugin } from "./has_reload_plugin.ts";
 *
 * assert.equal(hasReloadPlugin(".:53 {\n    errors\n    reload 5s\n}\n"), true);
 * assert.equal(hasReloadPlugin(".:53 {\n    # reload\n}\n"), false);
 * ```
 */
export function hasReloadPlugin(corefile: string): boolean {
  const tokenized = tokenizeCorefile(corefile);
  return tokenized.ok && hasReloadPluginIn(tokenized.tokens);
}

/** {@linkcode hasReloadPlugin} for tokens the caller already has (no second tokenize of 1 MiB). */
export function hasReloadPluginIn(tokens: readonly CorefileToken[]): boolean {
  const blocks = serverBlocks(tokens);
  return blocks.some((block) =>
    block.snippet === undefined &&
    expandedDirectives({ tokens, blocks }, block).some((directive) => directive.name === "reload")
  );
}
