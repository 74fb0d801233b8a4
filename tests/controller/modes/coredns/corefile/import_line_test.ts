import assert from "node:assert/strict";
import {
  importCovers,
  importLineFor,
} from "../../../../../lib/controller/modes/coredns/corefile/import_line.ts";
import { FIXTURES, K3S, lines } from "../fixtures/corefiles.ts";

const KEY = "ouroboros.override";

Deno.test("importCovers: distribution Corefiles detected as shipped", async (t) => {
  for (const fixture of FIXTURES) {
    await t.step(fixture.name, () => assert.equal(importCovers(fixture.text, KEY), fixture.importsOverride));
  }
});

Deno.test("importCovers: an import in the root block whose pattern picks up the key", async (t) => {
  const root = (...body: string[]): string => lines(".:53 {", "    errors", ...body, "}");
  const cases: [string, string, boolean][] = [
    ["k3s absolute glob", root("    import /etc/coredns/custom/*.override"), true],
    ["AKS relative glob", root("    import custom/*.override"), true],
    ["glob over every file", root("    import /etc/coredns/custom/*"), true],
    ["single-character wildcard", root("    import /etc/coredns/custom/ouroboros.overrid?"), true],
    ["the exact file name", root("    import /etc/coredns/custom/ouroboros.override"), true],
    ["bare file name", root("    import ouroboros.override"), true],
    ["other suffix", root("    import /etc/coredns/custom/*.server"), false],
    ["other file", root("    import /etc/coredns/custom/other.override"), false],
    ["commented out", root("    # import /etc/coredns/custom/*.override"), false],
    [
      "import with two arguments (CoreDNS rejects it)",
      root("    import /etc/coredns/custom/*.override x"),
      false,
    ],
    ["two wildcards (CoreDNS refuses the pattern)", root("    import /etc/coredns/*/*.override"), false],
    [
      "character class (CoreDNS refuses the pattern)",
      root("    import /etc/coredns/custom/[a-z]*.override"),
      false,
    ],
    [
      "only at the top level (k3s *.server style)",
      lines("import /etc/coredns/custom/*.override", ".:53 {", "}"),
      false,
    ],
    [
      "only in another server block",
      lines(".:53 {", "    errors", "}", "example.org {", "    import /etc/coredns/custom/*.override", "}"),
      false,
    ],
    [
      "through a snippet the root block imports",
      lines(
        "(custom) {",
        "    import /etc/coredns/custom/*.override",
        "}",
        ".:53 {",
        "    import custom",
        "}",
      ),
      true,
    ],
    ["no root block", lines("example.org {", "    import /etc/coredns/custom/*.override", "}"), false],
    ["unbalanced braces", lines(".:53 {", "    import /etc/coredns/custom/*.override"), false],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.equal(importCovers(text, KEY), expected));
  }
});

Deno.test("importCovers depends on the key", () => {
  assert.equal(importCovers(K3S, "ouroboros.override"), true);
  assert.equal(importCovers(K3S, "ouroboros.server"), false);
  assert.equal(importCovers(K3S, "custom.override"), true);
});

Deno.test("importLineFor: a glob over the key's suffix in the conventional mount directory", () => {
  assert.equal(importLineFor("ouroboros.override"), "import /etc/coredns/custom/*.override");
  assert.equal(importLineFor("ouroboros.server.override"), "import /etc/coredns/custom/*.override");
  assert.equal(importLineFor("ouroboros"), "import /etc/coredns/custom/*ouroboros");
  assert.equal(importLineFor(".override"), "import /etc/coredns/custom/*.override");
  for (const key of ["ouroboros.override", "ouroboros", "rules.conf"]) {
    const corefile = lines(".:53 {", `    ${importLineFor(key)}`, "}");
    assert.equal(importCovers(corefile, key), true, `the line covers ${key}`);
  }
});
