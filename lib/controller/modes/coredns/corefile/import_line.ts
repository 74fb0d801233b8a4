/**
 * The `import` line that makes CoreDNS read coredns-import mode's key, and whether a Corefile
 * has one: without it CoreDNS never reads the rules ouroboros writes.
 *
 * Pure: no I/O.
 *
 * Only the root block counts (elsewhere our rules would not answer ordinary lookups). The glob's
 * last component is compared with the key (the mount directory is not visible here); patterns
 * CoreDNS refuses to load cover nothing, and neither does a Corefile that does not tokenize.
 *
 * @module
 */

import { matchGlob } from "./match_glob.ts";
import { expandedDirectives, findRootBlock, serverBlocks } from "./server_blocks.ts";
import { tokenizeCorefile } from "./tokenize_corefile.ts";

/**
 * The Corefile line that loads `key` from the conventional mount directory, with a glob so a
 * deleted key (zero hosts) is no error for CoreDNS.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importLineFor } from "./import_line.ts";
 *
 * assert.equal(importLineFor("ouroboros.override"), "import /etc/coredns/custom/*.override");
 * ```
 */
export function importLineFor(key: string): string {
  const dot = key.lastIndexOf(".");
  return `import /etc/coredns/custom/*${dot <= 0 ? key : key.slice(dot)}`;
}

/** Whether the root server block has an `import` whose pattern picks up a file named `key`. */
export function importCovers(corefile: string, key: string): boolean {
  return importPatterns(corefile, key).length > 0;
}

/**
 * The root block's import patterns that pick up `key`, as written, so a caller that sees the mount
 * (the doctor) can check the ConfigMap is mounted where they look.
 */
export function importPatterns(corefile: string, key: string): string[] {
  const tokenized = tokenizeCorefile(corefile);
  if (!tokenized.ok) return [];
  const { tokens } = tokenized;
  const blocks = serverBlocks(tokens);
  const root = findRootBlock(blocks);
  if (root === undefined) return [];
  return expandedDirectives({ tokens, blocks }, root).flatMap((directive) => {
    const [pattern, extra] = directive.args;
    if (directive.name !== "import" || pattern === undefined || extra !== undefined) return [];
    if (!corednsAcceptsPattern(pattern)) return [];
    const base = pattern.slice(pattern.lastIndexOf("/") + 1);
    return matchGlob(base, key) ? [pattern] : [];
  });
}

/** CoreDNS's import refuses more than one `*` or `?`, or a `[…]` class. */
function corednsAcceptsPattern(pattern: string): boolean {
  const count = (char: string): number => pattern.split(char).length - 1;
  return count("*") <= 1 && count("?") <= 1 && !(pattern.includes("[") && pattern.includes("]"));
}
