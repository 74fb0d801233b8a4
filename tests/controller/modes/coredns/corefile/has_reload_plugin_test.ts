import assert from "node:assert/strict";
import {
  hasReloadPlugin,
  hasReloadPluginIn,
} from "../../../../../lib/controller/modes/coredns/corefile/has_reload_plugin.ts";
import { tokenizeCorefile } from "../../../../../lib/controller/modes/coredns/corefile/tokenize_corefile.ts";
import { FIXTURES, lines, toCrlf } from "../fixtures/corefiles.ts";

Deno.test("hasReloadPlugin: distribution Corefiles detected as shipped", async (t) => {
  for (const fixture of FIXTURES) {
    await t.step(fixture.name, () => {
      assert.equal(hasReloadPlugin(fixture.text), fixture.reload, "reload");
      assert.equal(hasReloadPlugin(toCrlf(fixture.text)), fixture.reload, "reload, CRLF");
      const tokenized = tokenizeCorefile(fixture.text);
      assert.ok(tokenized.ok);
      assert.equal(hasReloadPluginIn(tokenized.tokens), fixture.reload, "from the tokens");
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
