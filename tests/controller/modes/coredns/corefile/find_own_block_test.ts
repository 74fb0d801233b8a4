/**
 * Reading our block from the raw lines (`own_block.ts`) instead of tokenizing its rules: what it
 * accepts, what it leaves to the full analysis, and that both ways give the same analysis, the
 * same edits and the same refusals.
 */

import assert from "node:assert/strict";
import { applyCorefileBlock } from "../../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import {
  analyzeCorefile,
  type CorefileAnalysis,
} from "../../../../../lib/controller/modes/coredns/corefile/analyze_corefile.ts";
import type { CorefileRefusal } from "../../../../../lib/controller/modes/coredns/corefile/corefile_refusal.ts";
import { splitLines } from "../../../../../lib/controller/modes/text_lines.ts";
import { findOwnBlock } from "../../../../../lib/controller/modes/coredns/corefile/find_own_block.ts";
import { blockMarkers, DEFAULT_MARKERS } from "../../../../../lib/controller/modes/markers.ts";
import { prng } from "../../../../support/random.ts";
import { FIXTURES, KUBEADM, toCrlf, toTabs } from "../fixtures/corefiles.ts";

const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
const BEGIN = DEFAULT_MARKERS.begin;
const END = DEFAULT_MARKERS.end;

function corefileWith(interior: readonly string[], indent = "    "): string {
  return `.:53 {\n${indent}errors\n${indent}${BEGIN}\n${interior.join("\n")}${
    interior.length > 0 ? "\n" : ""
  }` +
    `${indent}${END}\n${indent}reload\n}\n`;
}

Deno.test("findOwnBlock reads our rules from the raw lines", () => {
  const text = corefileWith([
    `    rewrite name a.example.com ${FQDN}`,
    "",
    `\trewrite   name b.example.com\t${FQDN}  `,
  ]);
  const own = findOwnBlock(text, { lines: splitLines(text), markers: DEFAULT_MARKERS });
  assert.deepEqual(own && { hosts: own.hosts, target: own.target, exact: own.exact, lines: own.skipLines }, {
    hosts: ["a.example.com", "b.example.com"],
    target: FQDN,
    exact: false,
    lines: 3,
  });
  const mixed = corefileWith([
    `    rewrite name a.example.com ${FQDN}`,
    "    rewrite name exact b.example.com x.y.",
  ]);
  const read = findOwnBlock(mixed);
  assert.deepEqual(read && { target: read.target, exact: read.exact }, { target: undefined, exact: true });
  const empty = corefileWith([]);
  assert.deepEqual(findOwnBlock(empty)?.hosts, []);
});

Deno.test("findOwnBlock leaves everything unusual to the full analysis", () => {
  const cases: [string, string][] = [
    ["a foreign directive", corefileWith(["    log"])],
    ["a comment between the markers", corefileWith(["    # note"])],
    ["a quote", corefileWith([`    rewrite name "a.example.com" ${FQDN}`])],
    ["a brace", corefileWith([`    rewrite name a.example.com ${FQDN} {`])],
    ["a vertical tab", corefileWith([`    rewrite name a.example.com\v${FQDN}`])],
    ["a non-ASCII space", corefileWith([`    rewrite name a.example.com\u00a0${FQDN}`])],
    ["a target without its dot", corefileWith(["    rewrite name a.example.com proxy.ns.svc"])],
    ["a host spelled like a match type", corefileWith([`    rewrite name regex ${FQDN}`])],
    ["two BEGIN markers", corefileWith([`    ${BEGIN}`])],
    ["END before BEGIN", `.:53 {\n    ${END}\n    ${BEGIN}\n}\n`],
    ["no markers", ".:53 {\n    errors\n}\n"],
    ["another release's markers only", corefileWith([]).replaceAll("ouroboros (", "ouroboros edge (")],
  ];
  for (const [name, text] of cases) {
    assert.equal(findOwnBlock(text), undefined, name);
  }
});

/** What must agree between the two ways: the markers, the tokens, or the refusal. */
function summary(result: CorefileAnalysis | CorefileRefusal): unknown {
  if (result.kind === "refused") return result;
  const { markers } = result;
  const outside = result.tokens.filter((token) =>
    markers.kind !== "present" || token.line < markers.beginLine || token.line > markers.endLine
  ).map((token) => [token.kind, token.text, token.start, token.line, token.depth]);
  return { markers, outside, root: [result.rootOpenLine, result.rootCloseLine] };
}

Deno.test("property: reading our block from the raw lines gives the same analysis, edit and refusal as tokenizing it", () => {
  const variants: ((text: string) => string)[] = [
    (text) => text,
    toCrlf,
    toTabs,
    // Damage and foreign content the fast path must leave to the full analysis.
    (text) => text.replace(`${END}`, `${END}\n    ${END}`),
    (text) => text.replace(`    ${BEGIN}\n`, `    ${BEGIN}\n    log\n`),
    (text) => text.replace(`    ${BEGIN}\n`, `    "${BEGIN}\n`).replace(`    ${END}\n`, `    ${END}"\n`),
    (text) =>
      text.replace(`    ${BEGIN}\n`, `    hosts {\n    ${BEGIN}\n`).replace(
        `    ${END}\n`,
        `    ${END}\n    }\n`,
      ),
  ];
  for (let seed = 1; seed <= 150; seed++) {
    const random = prng(seed);
    const fixture = FIXTURES[Math.floor(random() * FIXTURES.length)] ?? { text: KUBEADM };
    const id = random() < 0.3 ? "edge" : "";
    const markers = blockMarkers(id);
    const count = Math.floor(random() * 40);
    const hosts = [
      ...new Set(Array.from({ length: count }, (_, i) => `h${Math.floor(random() * 1e6)}-${i}.example.com`)),
    ]
      .sort();
    const first = applyCorefileBlock(fixture.text, { hosts, fqdn: FQDN, markers });
    const base = first.kind === "changed" ? first.corefile : fixture.text;
    for (const [index, variant] of variants.entries()) {
      const raw = id === ""
        ? variant(base)
        : variant(base.replaceAll(markers.begin, BEGIN).replaceAll(markers.end, END))
          .replaceAll(BEGIN, markers.begin).replaceAll(END, markers.end);
      const fast = analyzeCorefile(raw, { markers });
      const full = analyzeCorefile(raw, { markers, tokenizeOwnBlock: true });
      assert.deepEqual(summary(fast), summary(full), `seed ${seed}, variant ${index}`);
      if (index < 3 && hosts.length > 0) {
        assert.ok(
          fast.kind === "analysis" && fast.own !== undefined,
          `seed ${seed}: the fast path was taken`,
        );
        assert.ok(full.kind === "analysis" && full.own === undefined);
      }
      const changed = [...hosts.slice(1), `zz${seed}.example.org`].sort();
      const edit = applyCorefileBlock(raw, { hosts: changed, fqdn: FQDN, markers });
      if (full.kind === "refused") {
        assert.deepEqual(edit, full, `seed ${seed}, variant ${index}: the same refusal`);
      } else assert.equal(edit.kind, "changed", `seed ${seed}, variant ${index}`);
    }
  }
});
