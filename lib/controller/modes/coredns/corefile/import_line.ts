/**
 * The `import` line that makes CoreDNS read coredns-import mode's key, and whether a Corefile
 * has one: without it CoreDNS never reads the rules ouroboros writes.
 *
 * `importCovers` looks at directives the way CoreDNS's parser sees them (see
 * `has_reload_plugin.ts`). Decisions:
 * - Only the root block counts: an import elsewhere would put our rewrite rules in a server block
 *   that does not answer ordinary lookups.
 * - It compares the glob's final path component with the key (the ConfigMap's mount directory is
 *   not visible from here), and skips patterns CoreDNS refuses to load (more than one `*`, more
 *   than one `?`, or a `[…]` class): such an import covers nothing because the Corefile does not
 *   load.
 * - A Corefile that does not tokenize answers `false`: nothing in it can be relied on.
 *
 * Pure: no I/O.
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
 * import { importLineFor } from "./import_line.ts";
 *
 * importLineFor("ouroboros.override"); // "import /etc/coredns/custom/*.override"
 * importLineFor("ouroboros"); // "import /etc/coredns/custom/*ouroboros"
 * ```
 */
export function importLineFor(key: string): string {
  const dot = key.lastIndexOf(".");
  return `import /etc/coredns/custom/*${dot <= 0 ? key : key.slice(dot)}`;
}

/**
 * Whether the root server block has an `import` whose pattern picks up a file named `key`.
 *
 * @example
 * ```ts
 * import { importCovers } from "./import_line.ts";
 *
 * const corefile = ".:53 {\n    import /etc/coredns/custom/*.override\n}\n";
 * importCovers(corefile, "ouroboros.override"); // true
 * importCovers(corefile, "ouroboros.server"); // false
 * ```
 */
export function importCovers(corefile: string, key: string): boolean {
  return importPatterns(corefile, key).length > 0;
}

/**
 * The patterns of the root server block's `import` lines that pick up a file named `key`, as
 * written (a relative one is relative to the Corefile's folder), so a caller that can see the
 * mount (the doctor) can check the ConfigMap is mounted where the pattern looks.
 *
 * @example
 * ```ts
 * import { importPatterns } from "./import_line.ts";
 *
 * importPatterns(".:53 {\n    import /etc/coredns/custom/*.override\n}\n", "ouroboros.override");
 * // ["/etc/coredns/custom/*.override"]
 * ```
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

/** CoreDNS's import refuses patterns with more than one `*` or `?`, or with a `[…]` class. */
function corednsAcceptsPattern(pattern: string): boolean {
  const count = (char: string): number => pattern.split(char).length - 1;
  return count("*") <= 1 && count("?") <= 1 && !(pattern.includes("[") && pattern.includes("]"));
}
