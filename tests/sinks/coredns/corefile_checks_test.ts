import assert from "node:assert/strict";
import { hasReloadPlugin, importCovers } from "../../../lib/sinks/coredns/corefile_checks.ts";
import { FIXTURES, K3S, lines, toCrlf } from "./fixtures/corefiles.ts";

const KEY = "ouroboros.override";

Deno.test("distribution Corefiles: reload plugin and override import detected as shipped", async (t) => {
  for (const fixture of FIXTURES) {
    await t.step(fixture.name, () => {
      assert.equal(hasReloadPlugin(fixture.text), fixture.reload, "reload");
      assert.equal(hasReloadPlugin(toCrlf(fixture.text)), fixture.reload, "reload, CRLF");
      assert.equal(importCovers(fixture.text, KEY), fixture.importsOverride, "import");
    });
  }
});

Deno.test("hasReloadPlugin: only the reload directive of a server block counts", async (t) => {
  const cases: [string, string, boolean][] = [
    ["reload with an interval", lines(".:53 {", "    reload 5s", "}"), true],
    ["reload with interval and jitter", lines(".:53 {", "    reload 30s 15s", "}"), true],
    ["commented out", lines(".:53 {", "    # reload", "}"), false],
    ["longer word", lines(".:53 {", "    reloaded", "}"), false],
    ["argument of another plugin", lines(".:53 {", "    log reload", "}"), false],
    [
      "hosts plugin option (k3s)",
      lines(".:53 {", "    hosts /etc/hosts {", "      reload 15s", "    }", "}"),
      false,
    ],
    ["quoted", lines(".:53 {", '    "reload"', "}"), true],
    ["in another server block", lines(".:53 {", "    errors", "}", "example.org {", "    reload", "}"), true],
    ["in an imported snippet", lines("(base) {", "    reload", "}", ".:53 {", "    import base", "}"), true],
    ["in a snippet nobody imports", lines("(base) {", "    reload", "}", ".:53 {", "    errors", "}"), false],
    ["top-level word, not a directive", lines("reload", ".:53 {", "    errors", "}"), false],
    ["empty", "", false],
    ["unbalanced braces", lines(".:53 {", "    reload"), false],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.equal(hasReloadPlugin(text), expected));
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
