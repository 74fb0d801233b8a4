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
 * Hosts reach this module already validated by the hostname rules (RFC 1123, two labels, no
 * wildcard), sorted and de-duplicated. This module checks again, narrowly: a value containing
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
  const [directive, field, ...rest] = words;
  if (directive !== "rewrite" || field !== "name") return false;
  const args = rest.length === 3 && rest[0] === "exact" ? rest.slice(1) : rest;
  if (args.length !== 2) return false;
  const [from, to] = args as [string, string];
  return hostProblem(from) === undefined && fqdnProblem(to) === undefined;
}
