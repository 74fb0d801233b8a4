/**
 * coredns-import mode's data: the value of the one key ouroboros owns in the import ConfigMap,
 * whether the key must be written, deleted or left alone, and which hosts a stored value holds.
 *
 * The value is plugin lines only, one `rewrite name <host> <fqdn>` per host (a wildcard's rule,
 * `rewrite name regex … answer auto`, after every exact one; see `rewrite_rule.ts`), each ending with
 * `\n` (the last one too), with no markers, comments or server block: CoreDNS splices the file
 * into the root server block through `import /etc/coredns/custom/*.override`, so the whole key is
 * ours and needs no markers. It is byte-identical to what the original writes, so switching
 * implementations causes no write.
 *
 * Zero hosts means "delete the key" rather than "write an empty value": an absent key leaves no
 * file behind in the mounted directory, which the import glob tolerates (an empty glob is not an
 * error for CoreDNS).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { blockOrder, ownRuleHost, rewriteInputProblem, rewriteRule } from "./rewrite_rule.ts";

/**
 * The key's value for `hosts`, or `undefined` for zero hosts (delete the key).
 *
 * @throws {RangeError} when a host or the target could break out of a rewrite line (a bug in
 * hostname validation upstream), or when the value does not read back as exactly these hosts
 * (the self-check); nothing must be written then.
 *
 * @example
 * ```ts
 * import { importSnippet } from "./import_snippet.ts";
 *
 * importSnippet(["a.example.com", "b.example.com"], "p.ns.svc.cluster.local.");
 * // "rewrite name a.example.com p.ns.svc.cluster.local.\n" +
 * // "rewrite name b.example.com p.ns.svc.cluster.local.\n"
 * importSnippet([], "p.ns.svc.cluster.local."); // undefined
 * ```
 */
export function importSnippet(hosts: readonly string[], fqdn: string): string | undefined {
  const problem = rewriteInputProblem(hosts, fqdn);
  if (problem !== undefined) throw new RangeError(`build import snippet: ${problem.reason}`);
  if (hosts.length === 0) return undefined;
  const ordered = blockOrder(hosts);
  const value = ordered.map((host) => rewriteRule(host, fqdn) + "\n").join("");
  const back = snippetHosts(value);
  if (back.length !== ordered.length || back.some((host, index) => host !== ordered[index])) {
    throw new RangeError("build import snippet: the value does not read back as the requested rules");
  }
  return value;
}

/** What to do with our key: nothing, write the desired value, or delete the key. */
export type ImportDataChange = "none" | "write" | "delete";

/**
 * Compares the key's stored value with the desired one.
 *
 * - no desired value, no key: `"none"`;
 * - no desired value, key present (even `""`): `"delete"`;
 * - equal values: `"none"`;
 * - otherwise: `"write"`.
 *
 * @example
 * ```ts
 * import { importDataChange } from "./import_snippet.ts";
 *
 * importDataChange(undefined, "rewrite name a.example.com p.ns.svc.cluster.local.\n"); // "write"
 * importDataChange("", undefined); // "delete"
 * importDataChange(undefined, undefined); // "none"
 * ```
 */
export function importDataChange(
  existing: string | undefined,
  desired: string | undefined,
): ImportDataChange {
  if (desired === undefined) return existing === undefined ? "none" : "delete";
  return existing === desired ? "none" : "write";
}

/**
 * The hosts of a stored value: the source name of every rule ouroboros (or the original) could
 * have written, in order; other lines are skipped.
 *
 * @example
 * ```ts
 * import { snippetHosts } from "./import_snippet.ts";
 *
 * snippetHosts("rewrite name a.example.com p.ns.svc.cluster.local.\nlog\n"); // ["a.example.com"]
 * ```
 */
export function snippetHosts(snippet: string): string[] {
  const hosts: string[] = [];
  for (const line of snippet.split("\n")) {
    const host = ownRuleHost(line.trim().split(/\s+/));
    if (host !== undefined) hosts.push(host);
  }
  return hosts;
}
