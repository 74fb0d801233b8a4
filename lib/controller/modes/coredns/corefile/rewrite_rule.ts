/**
 * The one CoreDNS line ouroboros writes per hostname, `rewrite name <host> <fqdn>`, shared by the
 * inline Corefile block (coredns mode) and the import snippet (coredns-import mode), and the last
 * line of defence against a value that could break out of it.
 *
 * Why the plain form and not `rewrite name exact <host> <fqdn>`: CoreDNS's default match type for
 * `rewrite name` is `exact`, so both spell the same rule, and "answers for rewrites of type exact
 * are always rewritten" back to the question name either way. The plain form is what the original
 * writes, so a block or snippet the original left behind is byte-identical to ours: switching to
 * ouroboros causes no write and no CoreDNS reload. The one case where the forms differ, a host
 * spelled like a match type (`exact`, `prefix`, …), is refused below, so the plain form can never
 * be misread.
 *
 * **Wildcards.** A host `*.<domain>` (see `hostnames/wildcard.ts`) becomes
 * `rewrite name regex ^[^.]+\.<domain, every regex metacharacter escaped>\.$ <fqdn> answer auto`:
 * CoreDNS matches the pattern (Go RE2, unanchored unless anchored, hence `^` and `$`) against the
 * lower-case, fully qualified question name, so it matches exactly one label under the domain.
 * `answer auto` (the rewrite plugin's option since CoreDNS 1.8.5: "the names in the response is
 * rewritten in a best effort manner") maps the proxy's name in the answer back to the name asked,
 * as exact rules always do; without it the client would get an answer for a name it did not ask
 * about. Exact rules are written first ({@linkcode blockOrder}): CoreDNS applies the first
 * matching rule and stops (the default `stop`), so an exact name wins over a wildcard. The
 * domain of a wildcard is held to `[a-z0-9-]` labels here again, so the pattern can never carry
 * anything but escaped dots.
 *
 * Hosts reach this module already validated by the hostname rules (RFC 1123, two labels, a
 * wildcard only as `*.<domain>`), sorted and de-duplicated. This module checks again, narrowly: a value containing
 * anything that means something to the Corefile lexer (whitespace, `{`, `}`, `#`, `"`, `;`, `\`,
 * `$`, a backtick) or any control or non-ASCII character is refused, so a bug upstream can never
 * inject a line, a block or a comment.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The rules to write: one `rewrite name <host> <fqdn>` line per host, in order. */
export interface RewriteRules {
  /** The hostnames, sorted and de-duplicated. */
  readonly hosts: readonly string[];
  /** The rewrite target, ending with a dot. */
  readonly fqdn: string;
}

import { blockOrderOf, wildcardDomain } from "../../../../hostnames/wildcard.ts";

/** Match types of `rewrite name`; a host spelled like one would change the rule's meaning. */
const MATCH_TYPES: ReadonlySet<string> = new Set(["exact", "prefix", "suffix", "substring", "regex"]);

/**
 * Which ASCII characters may appear in a host or target: the printable ones (U+0021–U+007E)
 * except those the Corefile lexer or CoreDNS's env-var expansion give a meaning to. A lookup
 * table, because every line of a large block is checked on every reconcile.
 */
const SAFE_ASCII: Uint8Array = (() => {
  const table = new Uint8Array(128);
  for (let code = 0x21; code < 0x7f; code++) table[code] = 1;
  for (const ch of ["{", "}", "#", '"', ";", "\\", "$", "`"]) table[ch.charCodeAt(0)] = 0;
  return table;
})();

/** Why a value cannot go into a rewrite line, or `undefined` when it can. */
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
 * Checks a host for a rewrite line. Returns a reason for a person, or `undefined` when fine.
 *
 * @example
 * ```ts
 * import { hostProblem } from "./rewrite_rule.ts";
 *
 * hostProblem("app.example.com"); // undefined
 * hostProblem("a.example.com\nerrors");
 * // 'host "a.example.com\\nerrors" contains character U+000A at position 14'
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

/**
 * Checks the rewrite target. It must be a fully qualified name ending with `.` (and more than
 * just `.`), made of safe characters. Returns a reason for a person, or `undefined` when fine.
 *
 * @example
 * ```ts
 * import { fqdnProblem } from "./rewrite_rule.ts";
 *
 * fqdnProblem("ouroboros-proxy.ouroboros.svc.cluster.local."); // undefined
 * fqdnProblem("ouroboros-proxy.ouroboros.svc.cluster.local"); // "target must be FQDN with trailing dot: …"
 * ```
 */
export function fqdnProblem(fqdn: string): string | undefined {
  if (fqdn === "") return "empty target";
  const bad = unsafeCharacter(fqdn);
  if (bad !== undefined) return `target ${JSON.stringify(fqdn)} contains ${bad}`;
  if (!fqdn.endsWith(".")) return `target must be FQDN with trailing dot: ${JSON.stringify(fqdn)}`;
  if (fqdn === ".") return `target "." is the root zone, not a name`;
  return undefined;
}

/**
 * The first problem with a host list and target, or `undefined` when every value is safe.
 *
 * @example
 * ```ts
 * import { rewriteInputProblem } from "./rewrite_rule.ts";
 *
 * rewriteInputProblem(["a.example.com"], "proxy.ns.svc.cluster.local."); // undefined
 * rewriteInputProblem(["a.example.com"], "proxy.ns.svc.cluster.local"); // "target must be FQDN …"
 * ```
 */
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

/** What may follow `*.`: two or more labels of `[a-z0-9-]`, nothing the pattern could misread. */
const WILDCARD_DOMAIN = /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/;

/** Characters with a meaning in RE2 (and JavaScript) patterns; each is escaped with `\`. */
const REGEX_META = /[\\^$.|?*+()[\]{}]/g;

/** The pattern's fixed parts: one label of anything but a dot, then the escaped domain. */
const PATTERN_HEAD = "^[^.]+\\.";
const PATTERN_TAIL = "\\.$";

/**
 * The `rewrite name regex` pattern for the children of `domain`: anchored, one label, every
 * regex metacharacter of the domain escaped.
 *
 * @example
 * ```ts
 * import { wildcardPattern } from "./rewrite_rule.ts";
 *
 * wildcardPattern("example.com"); // "^[^.]+\\.example\\.com\\.$"
 * ```
 */
export function wildcardPattern(domain: string): string {
  return PATTERN_HEAD + domain.replace(REGEX_META, (meta) => `\\${meta}`) + PATTERN_TAIL;
}

/** The wildcard a pattern of ours stands for, or `undefined` when it is not one we write. */
function patternWildcard(pattern: string): string | undefined {
  if (!pattern.startsWith(PATTERN_HEAD) || !pattern.endsWith(PATTERN_TAIL)) return undefined;
  const domain = pattern.slice(PATTERN_HEAD.length, -PATTERN_TAIL.length).replaceAll("\\.", ".");
  const host = `*.${domain}`;
  return hostProblem(host) === undefined && wildcardPattern(domain) === pattern ? host : undefined;
}

/**
 * The hosts in the order their rules are written: exact names first, then wildcards, each in
 * the order given, so an exact name's rule comes before any wildcard's.
 *
 * @example
 * ```ts
 * import { blockOrder } from "./rewrite_rule.ts";
 *
 * blockOrder(["*.example.com", "a.example.com"]); // ["a.example.com", "*.example.com"]
 * ```
 */
export function blockOrder(hosts: readonly string[]): readonly string[] {
  return blockOrderOf(hosts);
}

/**
 * The rewrite rule for one host, without indentation or newline. Callers validate first
 * ({@linkcode rewriteInputProblem}); this function only formats.
 *
 * @example
 * ```ts
 * import { rewriteRule } from "./rewrite_rule.ts";
 *
 * rewriteRule("app.example.com", "proxy.ns.svc.cluster.local.");
 * // "rewrite name app.example.com proxy.ns.svc.cluster.local."
 * ```
 */
export function rewriteRule(host: string, fqdn: string): string {
  const domain = wildcardDomain(host);
  if (domain !== undefined) return `rewrite name regex ${wildcardPattern(domain)} ${fqdn} answer auto`;
  return `rewrite name ${host} ${fqdn}`;
}

/**
 * Whether the words of one line are a rewrite rule ouroboros (or the original) could have
 * written: `rewrite name <host> <target>` or the explicit `rewrite name exact <host> <target>`.
 * Used to tell our own lines apart from anything a person added between the markers.
 *
 * @example
 * ```ts
 * import { isOwnRewriteRule } from "./rewrite_rule.ts";
 *
 * isOwnRewriteRule(["rewrite", "name", "a.example.com", "p.ns.svc.cluster.local."]); // true
 * isOwnRewriteRule(["log"]); // false
 * ```
 */
export function isOwnRewriteRule(words: readonly string[]): boolean {
  return ownRuleHost(words) !== undefined;
}

/**
 * The host of a rule {@linkcode isOwnRewriteRule} accepts (`*.<domain>` for a wildcard's regex
 * rule), or `undefined` for any other line.
 *
 * @example
 * ```ts
 * import { ownRuleHost } from "./rewrite_rule.ts";
 *
 * ownRuleHost(["rewrite", "name", "a.example.com", "p.ns.svc.cluster.local."]); // "a.example.com"
 * ownRuleHost(["rewrite", "name", "regex", "^[^.]+\\.example\\.com\\.$", "p.ns.svc.cluster.local.", "answer", "auto"]);
 * // "*.example.com"
 * ```
 */
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
