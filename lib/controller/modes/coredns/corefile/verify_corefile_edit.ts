/**
 * The last gate before a Corefile is written: refuses anything but the intended change, since a
 * Corefile CoreDNS cannot parse takes cluster DNS down at the next pod restart.
 *
 * Pure: no I/O.
 *
 * Re-reads both texts from scratch and requires: the new one analyses cleanly, the block holds
 * exactly the wanted rules (or no markers remain), and the tokens and bytes outside the markers
 * are unchanged.
 *
 * @module
 */

import { analyzeCorefile, type CorefileAnalysis } from "./analyze_corefile.ts";
import { rewriteRule, type RewriteRules } from "./rewrite_rule.ts";
import type { CorefileToken } from "./tokenize_corefile.ts";

/**
 * `undefined` when `after` is `before` with only its block made to hold the rules of `options`,
 * else what differs. `before` may come analysed; a text is read with the default markers.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { verifyCorefileEdit } from "./verify_corefile_edit.ts";
 *
 * assert.equal(
 *   verifyCorefileEdit(".:53 {\n}\n", ".:53 {\n}\n}\n", { hosts: [], fqdn: "p.ns.svc.cluster.local." }),
 *   'edited Corefile: the Corefile does not parse: the "}" on line 3 closes nothing: there is no "{" open ' +
 *     "at that point; fix its syntax first",
 * );
 * ```
 */
export function verifyCorefileEdit(
  before: string | CorefileAnalysis,
  after: string,
  options: RewriteRules,
): string | undefined {
  const { hosts, fqdn } = options;
  const old = typeof before === "string" ? analyzeCorefile(before) : before;
  if (old.kind === "refused") return `original Corefile: ${old.message}`;
  const edited = analyzeCorefile(after, { markers: old.blockMarkers });
  if (edited.kind === "refused") return `edited Corefile: ${edited.message}`;

  if (hosts.length === 0) {
    if (edited.markers.kind !== "absent") return "markers remain after removing every host";
  } else {
    if (edited.markers.kind !== "present") return "the edited Corefile has no ouroboros block";
    const { beginLine, endLine } = edited.markers;
    const own = edited.own;
    if (own !== undefined) {
      // Read from the raw lines: every non-blank line was `rewrite name [exact] <host> <target>`.
      const exactly = !own.exact && own.hosts.length === hosts.length && own.target === fqdn &&
        own.hosts.every((host, index) => host === hosts[index]);
      if (!exactly) return "the block does not hold exactly the requested rewrite rules";
    } else {
      const got = edited.tokens.filter((token) => token.line > beginLine && token.line < endLine)
        .map((token) => token.text);
      const want = hosts.flatMap((host) => rewriteRule(host, fqdn).split(" "));
      if (got.length !== want.length || got.some((text, index) => text !== want[index])) {
        return "the block does not hold exactly the requested rewrite rules";
      }
    }
  }

  const oldTokens = tokensOutsideBlock(old);
  const newTokens = tokensOutsideBlock(edited);
  if (oldTokens.length !== newTokens.length) {
    return `the token count outside the markers changed from ${oldTokens.length} to ${newTokens.length}`;
  }
  for (let index = 0; index < oldTokens.length; index++) {
    const token = oldTokens[index] as CorefileToken;
    const other = newTokens[index];
    const same = other !== undefined && other.kind === token.kind && other.text === token.text &&
      other.depth === token.depth;
    if (!same) {
      const shown = JSON.stringify(token.text);
      return `token ${index + 1} outside the markers changed (${shown} on line ${token.line + 1})`;
    }
  }
  if (textOutsideBlock(old) !== textOutsideBlock(edited)) return "bytes outside the markers changed";
  return undefined;
}

function tokensOutsideBlock(analysis: CorefileAnalysis): CorefileAnalysis["tokens"] {
  const { markers, tokens } = analysis;
  if (markers.kind !== "present") return tokens;
  return tokens.filter((token) => token.line < markers.beginLine || token.line > markers.endLine);
}

function textOutsideBlock(analysis: CorefileAnalysis): string {
  const { markers, lines, text } = analysis;
  if (markers.kind !== "present") return text;
  const begin = lines[markers.beginLine];
  const end = lines[markers.endLine];
  if (begin === undefined || end === undefined) return text;
  return text.slice(0, begin.start) + text.slice(end.end);
}
