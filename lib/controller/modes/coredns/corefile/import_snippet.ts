/**
 * coredns-import mode's data: the value of the one key ouroboros owns in the import ConfigMap,
 * whether the key must be written, deleted or left alone, and which hosts a stored value holds.
 *
 * Pure: no I/O.
 *
 * Rule lines only, each ending with `\n`: CoreDNS splices the file into the root block, so the key
 * needs no markers, and the value is byte-identical to the original's. Zero hosts deletes the key
 * (an empty import glob is no error for CoreDNS).
 *
 * @module
 */

import { blockOrder, ownRuleHost, rewriteInputProblem, rewriteRule } from "./rewrite_rule.ts";

/**
 * The key's value for `hosts`, or `undefined` for zero hosts (delete the key).
 *
 * @throws {RangeError} for a value that could break out of a rewrite line (an upstream bug), or
 * that does not read back as exactly these hosts: nothing must be written then.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { importSnippet } from "./import_snippet.ts";
 *
 * assert.equal(
 *   importSnippet(["a.example.com", "b.example.com"], "p.ns.svc.cluster.local."),
 *   "rewrite name a.example.com p.ns.svc.cluster.local.\n" +
 *     "rewrite name b.example.com p.ns.svc.cluster.local.\n",
 * );
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

/** Compares the stored value with the desired one; for none, a present key (even `""`) goes. */
export function importDataChange(
  existing: string | undefined,
  desired: string | undefined,
): ImportDataChange {
  if (desired === undefined) return existing === undefined ? "none" : "delete";
  return existing === desired ? "none" : "write";
}

/** The hosts of the rules in a stored value that we could have written, in order. */
export function snippetHosts(snippet: string): string[] {
  const hosts: string[] = [];
  for (const line of snippet.split("\n")) {
    const host = ownRuleHost(line.trim().split(/\s+/));
    if (host !== undefined) hosts.push(host);
  }
  return hosts;
}
