import assert from "node:assert/strict";
import { applyCorefileBlock } from "../../../../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { isMarkerProblem } from "../../../../../lib/controller/modes/coredns/corefile/corefile_refusal.ts";
import { lines, toCrlf } from "../fixtures/corefiles.ts";
import { BEGIN, blockLines, END, expectedBlock, FQDN } from "../support.ts";

const RULE = `    rewrite name old.example.com ${FQDN}`;

/** A kubeadm-like root block with the given lines between `cache 30` and `reload`. */
function root(...middle: string[]): string {
  return lines(
    ".:53 {",
    "    errors",
    "    forward . /etc/resolv.conf",
    "    cache 30",
    ...middle,
    "    reload",
    "}",
  );
}

// Each hand edit below must be refused for both a non-empty and an empty host set: no write, a
// problem code the reconciler can count, and a message naming the lines and the fix.
const DAMAGED: [string, string, string, RegExp][] = [
  [
    "END before BEGIN (the original duplicates every plugin line here)",
    root(`    ${END}`, RULE, `    ${BEGIN}`),
    "end-before-begin",
    /END marker on line 5 comes before the BEGIN marker on line 7/,
  ],
  ["BEGIN without END", root(`    ${BEGIN}`, RULE), "begin-without-end", /BEGIN marker on line 5 has no END/],
  ["END without BEGIN", root(RULE, `    ${END}`), "end-without-begin", /END marker on line 6 has no BEGIN/],
  [
    "two BEGINs",
    root(`    ${BEGIN}`, RULE, `    ${BEGIN}`, RULE, `    ${END}`),
    "duplicate-begin",
    /2 BEGIN markers \(lines 5, 7\)/,
  ],
  [
    "two ENDs",
    root(`    ${BEGIN}`, RULE, `    ${END}`, `    ${END}`),
    "duplicate-end",
    /2 END markers \(lines 7, 8\)/,
  ],
  [
    "two complete blocks",
    root(`    ${BEGIN}`, RULE, `    ${END}`, `    ${BEGIN}`, RULE, `    ${END}`),
    "duplicate-begin",
    /2 BEGIN markers/,
  ],
  [
    "pair in another server block",
    lines("example.org:53 {", `    ${BEGIN}`, RULE, `    ${END}`, "}", ".:53 {", "    errors", "}"),
    "marker-outside-root-block",
    /line 2 is outside the \.:53 server block \(lines 6–8\)/,
  ],
  [
    "pair at the top level",
    lines(BEGIN, RULE.trim(), END, ".:53 {", "    errors", "}"),
    "marker-outside-root-block",
    /line 1 is outside/,
  ],
  [
    "pair in a snippet definition",
    lines("(mine) {", `    ${BEGIN}`, RULE, `    ${END}`, "}", ".:53 {", "    import mine", "}"),
    "marker-outside-root-block",
    /line 2 is outside/,
  ],
  [
    "BEGIN in the root block, END after it",
    lines(".:53 {", "    errors", `    ${BEGIN}`, RULE, "}", END),
    "marker-outside-root-block",
    /line 6 is outside/,
  ],
  [
    "pair inside a plugin's block",
    lines(".:53 {", "    forward . 1.1.1.1 {", `        ${BEGIN}`, `        ${END}`, "    }", "}"),
    "marker-in-nested-block",
    /line 3 is inside a plugin's/,
  ],
  [
    "marker line inside a multi-line quoted string",
    lines(".:53 {", '    template IN A x "', `    ${BEGIN}`, '    "', "}"),
    "marker-in-quoted-string",
    /line 3 reads as an ouroboros marker but lies inside a quoted string/,
  ],
  [
    "BEGIN reworded as the uninstall hook greps it",
    root("    # === BEGIN ouroboros ===", RULE, `    ${END}`),
    "altered-marker",
    /line 5 has a comment that looks like an ouroboros marker/,
  ],
  [
    "END with changed case",
    root(`    ${BEGIN}`, RULE, "    # === end OUROBOROS ==="),
    "altered-marker",
    /line 7/,
  ],
  [
    "BEGIN with extra inner spaces",
    root("    #  ===  BEGIN ouroboros (do not edit by hand) ===", RULE, `    ${END}`),
    "altered-marker",
    /line 5/,
  ],
  [
    "marker after other text on its line",
    root(`    ${BEGIN}`, RULE, `    loop ${END}`),
    "altered-marker",
    /line 7/,
  ],
  [
    "marker indented with a no-break space",
    root(`\u00a0${BEGIN}`, RULE, `    ${END}`),
    "altered-marker",
    /line 5/,
  ],
  [
    "foreign plugin line between the markers",
    root(`    ${BEGIN}`, RULE, "    log", `    ${END}`),
    "foreign-content-in-block",
    /line 7, between the ouroboros markers on lines 5 and 8/,
  ],
  [
    "comment between the markers",
    root(`    ${BEGIN}`, "    # keep me", RULE, `    ${END}`),
    "foreign-content-in-block",
    /line 6/,
  ],
  [
    "rewrite rule of another form between the markers",
    root(`    ${BEGIN}`, `    rewrite stop name suffix .example.com ${FQDN}`, `    ${END}`),
    "foreign-content-in-block",
    /line 6/,
  ],
  [
    "rewrite rule with a target missing its dot",
    root(`    ${BEGIN}`, "    rewrite name a.example.com proxy.ns.svc.cluster.local", `    ${END}`),
    "foreign-content-in-block",
    /line 6/,
  ],
  [
    "plugin block between the markers",
    root(`    ${BEGIN}`, "    health {", "    }", `    ${END}`),
    "foreign-content-in-block",
    /line 6/,
  ],
];

Deno.test("damaged markers fail closed with a code, the lines and the fix (T-2.6, T-2.7, T-2.8)", async (t) => {
  for (const [name, text, problem, detail] of DAMAGED) {
    await t.step(name, () => {
      for (const hosts of [["new.example.com"], []]) {
        const edit = applyCorefileBlock(text, { hosts, fqdn: FQDN });
        assert.equal(edit.kind, "refused", `${name}, ${hosts.length} hosts: expected a refusal`);
        if (edit.kind !== "refused") return;
        assert.equal(edit.problem, problem);
        assert.match(edit.message, detail);
        assert.match(edit.message, /writes nothing until then/);
        assert.ok(isMarkerProblem(edit.problem), `${edit.problem} should count as marker damage`);
      }
    });
  }
});

Deno.test("marker lines are compared after trimming ASCII whitespace only (T-2.7)", async (t) => {
  const cases: [string, string][] = [
    ["tab indent and trailing spaces", root(`\t${BEGIN}  `, RULE, `\t${END}\t`)],
    ["CRLF file", toCrlf(root(`    ${BEGIN}`, RULE, `    ${END}`))],
    ["stray CR in an LF file", root(`    ${BEGIN}\r`, RULE, `    ${END}`)],
    ["blank lines inside the block", root(`    ${BEGIN}`, "", RULE, "   ", `    ${END}`)],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const edit = applyCorefileBlock(text, { hosts: ["new.example.com"], fqdn: FQDN });
      assert.equal(edit.kind, "changed", edit.kind === "refused" ? edit.message : "");
      if (edit.kind !== "changed") return;
      assert.deepEqual(edit.previousHosts, ["old.example.com"]);
      const newline = text.startsWith(".:53 {\r\n") ? "\r\n" : "\n";
      assert.deepEqual(blockLines(edit.corefile), expectedBlock(["new.example.com"], "    ", newline));
    });
  }
});

Deno.test("comments that merely mention ouroboros are not markers", () => {
  const text = root("    # ouroboros manages the rewrite rules below", "    # see: begin ouroboros-docs");
  const edit = applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.equal(edit.kind, "changed", edit.kind === "refused" ? edit.message : "");
});

Deno.test("marker text inside a single-line quoted string is data, not a marker", () => {
  const text = root(`    template IN TXT x "${BEGIN}"`);
  const edit = applyCorefileBlock(text, { hosts: ["a.example.com"], fqdn: FQDN });
  assert.equal(edit.kind, "changed", edit.kind === "refused" ? edit.message : "");
});

Deno.test("isMarkerProblem separates marker damage from other refusals", () => {
  assert.equal(isMarkerProblem("end-before-begin"), true);
  assert.equal(isMarkerProblem("foreign-content-in-block"), true);
  assert.equal(isMarkerProblem("no-root-block"), false);
  assert.equal(isMarkerProblem("invalid-host"), false);
  assert.equal(isMarkerProblem("self-check-failed"), false);
});
