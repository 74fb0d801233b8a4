/**
 * The one CoreDNS line ouroboros writes per hostname, `rewrite name <host> <fqdn>`, shared by both
 * CoreDNS modes, and the last line of defence against a value that could break out of it.
 *
 * Pure: no I/O.
 *
 * The plain form (default match `exact`) is the original's, so its leftover block is byte-identical
 * and switching causes no write; hosts spelled like a match type are refused. A wildcard `*.<d>`
 * is an anchored one-label `regex` rule with `answer auto` (CoreDNS >= 1.8.5) so answers carry the
 * asked name; exact rules come first, as CoreDNS stops at the first match. Values with anything
 * the Corefile lexer or env expansion reads, control or non-ASCII characters are refused.
 *
 * @module
 */

/** The rules to write: one line per host, in order. */
export interface RewriteRules {
  /** Sorted and de-duplicated. */
  readonly hosts: readonly string[];
  /** The rewrite target, ending with a dot. */
  readonly fqdn: string;
}

import { blockOrderOf, wildcardDomain } from "../../../../hostnames/wildcard.ts";

/** Match types of `rewrite name`; a host spelled like one would change the rule's meaning. */
const MATCH_TYPES: ReadonlySet<string> = new Set(["exact", "prefix", "suffix", "substring", "regex"]);

/** Printable ASCII minus what the lexer or env expansion reads; a table: every line is checked. */
const SAFE_ASCII: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let code = 0x21; code < 0x7f; code++) table[code] = 1;
  for (const ch of ["{", "}", "#", '"', ";", "\\", "$", "`"]) table[ch.charCodeAt(0)] = 0;
  return table;
})();

function unsafeCharacter(value: string): string | undefined {
  for (let index = 0; index < value.length; index++) {
    const code = value.charCodeAt(index);
    if (code < 128 && SAFE_ASCII[code] === 1) continue;
    if (code > 0x20 && code < 0x7f) {
      return `character ${JSON.stringify(value[index])} at position ${index + 1}`;
    }
    return `character U+${code.toString(16).toUpperCase().padStart(4, "0")} at position ${index + 1}`;
  }
  return undefined;
}

/**
 * Why a host cannot go into a rewrite line, for a person, or `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { hostProblem } from "./rewrite_rule.ts";
 *
 * assert.equal(hostProblem("app.example.com"), undefined);
 * assert.equal(
 *   hostProblem("a.example.com\nerrors"),
 *   'host "a.example.com\\nerrors" contains character U+000A at position 14',
 * );
 * ```
 */
export function hostProblem(host: string): string | undefined {
  if (host === "") return "host is empty";
  const domain = wildcardDomain(host);
  if (domain !== undefined && !WILDCARD_DOMAIN.test(domain)) {
    return `wildcard ${JSON.stringify(host)} is not '*.' followed by a name of letters, digits, '-' and dots`;
  }
  const bad = unsafeCharacter(host);
  if (bad !== undefined) return `host ${JSON.stringify(host)} contains ${bad}`;
  if (host.length <= 9 && MATCH_TYPES.has(host.toLowerCase())) {
    return `host ${
      JSON.stringify(host)
    } is spelled like a rewrite match type and would change the rule's meaning`;
  }
  return undefined;
}

/** Why the target is not a safe FQDN ending with `.` (and not just `.`), or `undefined`. */
export function fqdnProblem(fqdn: string): string | undefined {
  if (fqdn === "") return "empty target";
  const bad = unsafeCharacter(fqdn);
  if (bad !== undefined) return `target ${JSON.stringify(fqdn)} contains ${bad}`;
  if (!fqdn.endsWith(".")) return `target must be FQDN with trailing dot: ${JSON.stringify(fqdn)}`;
  if (fqdn === ".") return `target "." is the root zone, not a name`;
  return undefined;
}

/** The first problem with a host list and target, or `undefined` when every value is safe. */
export function rewriteInputProblem(
  hosts: readonly string[],
  fqdn: string,
): { readonly field: "host" | "fqdn"; readonly reason: string } | undefined {
  const target = fqdnProblem(fqdn);
  if (target !== undefined) return { field: "fqdn", reason: target };
  for (const host of hosts) {
    const reason = hostProblem(host);
    if (reason !== undefined) return { field: "host", reason };
  }
  return undefined;
}

/** What may follow `*.`: two or more labels of `[a-z0-9-]`, nothing a pattern could misread. */
const WILDCARD_DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/** Characters with a meaning in RE2 (and JavaScript) patterns. */
const REGEX_META = /[\\^$.|?*+()[\]{}]/g;

const PATTERN_HEAD = "^[^.]+\\.";
const PATTERN_TAIL = "\\.$";

/** The anchored, one-label `rewrite name regex` pattern for the children of `domain`. */
export function wildcardPattern(domain: string): string {
  return PATTERN_HEAD + domain.replace(REGEX_META, (meta) => `\\${meta}`) + PATTERN_TAIL;
}

function patternWildcard(pattern: string): string | undefined {
  if (!pattern.startsWith(PATTERN_HEAD) || !pattern.endsWith(PATTERN_TAIL)) return undefined;
  const domain = pattern.slice(PATTERN_HEAD.length, -PATTERN_TAIL.length).replaceAll("\\.", ".");
  const host = `*.${domain}`;
  return hostProblem(host) === undefined && wildcardPattern(domain) === pattern ? host : undefined;
}

/** The hosts in the order their rules are written: exact names first, then wildcards. */
export function blockOrder(hosts: readonly string[]): readonly string[] {
  return blockOrderOf(hosts);
}

/** The rule for one host, without indentation or newline; validate first. */
export function rewriteRule(host: string, fqdn: string): string {
  const domain = wildcardDomain(host);
  if (domain !== undefined) return `rewrite name regex ${wildcardPattern(domain)} ${fqdn} answer auto`;
  return `rewrite name ${host} ${fqdn}`;
}

/**
 * Whether a line's words are a rule ouroboros or the original could have written (also the
 * explicit `exact` form): tells our lines from anything a person added between the markers.
 */
export function isOwnRewriteRule(words: readonly string[]): boolean {
  return ownRuleHost(words) !== undefined;
}

/** The host of a rule {@linkcode isOwnRewriteRule} accepts (`*.<domain>` for a wildcard). */
export function ownRuleHost(words: readonly string[]): string | undefined {
  // Indexed reads, no rest arrays: this runs once per rule line, 20,000 times per edit at scale.
  if (words[0] !== "rewrite" || words[1] !== "name") return undefined;
  const count = words.length - 2;
  if (count === 5 && words[2] === "regex" && words[5] === "answer" && words[6] === "auto") {
    const pattern = words[3] as string;
    const to = words[4] as string;
    return fqdnProblem(to) === undefined ? patternWildcard(pattern) : undefined;
  }
  const first = count === 3 && words[2] === "exact" ? 3 : 2;
  if (words.length - first !== 2) return undefined;
  const from = words[first] as string;
  const to = words[first + 1] as string;
  if (wildcardDomain(from) !== undefined) return undefined;
  return hostProblem(from) === undefined && fqdnProblem(to) === undefined ? from : undefined;
}
