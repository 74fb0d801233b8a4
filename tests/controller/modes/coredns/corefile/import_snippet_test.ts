import assert from "node:assert/strict";
import {
  importDataChange,
  importSnippet,
  snippetHosts,
} from "../../../../../lib/controller/modes/coredns/corefile/import_snippet.ts";
import { FQDN } from "../support.ts";

Deno.test("importSnippet: one rewrite line per host, every line ending with a newline", () => {
  assert.equal(
    importSnippet(["a.example.com", "b.example.com"], FQDN),
    `rewrite name a.example.com ${FQDN}\nrewrite name b.example.com ${FQDN}\n`,
  );
  assert.equal(importSnippet(["a.example.com"], FQDN), `rewrite name a.example.com ${FQDN}\n`);
});

Deno.test("importSnippet: zero hosts means delete the key", () => {
  assert.equal(importSnippet([], FQDN), undefined);
});

Deno.test("importSnippet refuses values that could break out of a line", async (t) => {
  const cases: [string, readonly string[], string, RegExp][] = [
    ["empty target", ["a.example.com"], "", /empty target/],
    ["target without trailing dot", ["a.example.com"], "proxy.ns.svc.cluster.local", /trailing dot/],
    ["newline in a host", ["a.example.com\nlog"], FQDN, /U\+000A/],
    ["brace in a host", ["a.example.com {"], FQDN, /U\+0020/],
    ["import in a host", ["a.example.com;import"], FQDN, /";"/],
    ["bad target with zero hosts", [], "x", /trailing dot/],
  ];
  for (const [name, hosts, fqdn, message] of cases) {
    await t.step(name, () => {
      assert.throws(() => importSnippet(hosts, fqdn), (error: unknown) => {
        assert.ok(error instanceof RangeError);
        assert.match(error.message, /^build import snippet: /);
        assert.match(error.message, message);
        return true;
      });
    });
  }
});

Deno.test("importDataChange: the four branches of the original, plus the empty-string key", async (t) => {
  const value = `rewrite name a.example.com ${FQDN}\n`;
  const other = `rewrite name b.example.com ${FQDN}\n`;
  const cases: [string, string | undefined, string | undefined, string][] = [
    ["nothing wanted, no key", undefined, undefined, "none"],
    ["nothing wanted, key present", value, undefined, "delete"],
    ["nothing wanted, key present but empty", "", undefined, "delete"],
    ["same value", value, value, "none"],
    ["no key yet", undefined, value, "write"],
    ["different value", other, value, "write"],
    ["empty key, value wanted", "", value, "write"],
  ];
  for (const [name, existing, desired, expected] of cases) {
    await t.step(name, () => assert.equal(importDataChange(existing, desired), expected));
  }
});

Deno.test("snippetHosts reads back the hosts of what importSnippet wrote, and of the explicit exact form", () => {
  const hosts = ["a.example.com", "b.example.com"];
  assert.deepEqual(snippetHosts(importSnippet(hosts, FQDN) ?? ""), hosts);
  assert.deepEqual(snippetHosts(`  rewrite name exact c.example.com ${FQDN}\n`), ["c.example.com"]);
  assert.deepEqual(
    snippetHosts(`log\n# rewrite name d.example.com ${FQDN}\nrewrite name suffix .x ${FQDN}\n`),
    [],
  );
  assert.deepEqual(snippetHosts(""), []);
});

Deno.test("importSnippet writes wildcards' regex rules after every exact rule, and reads them back", () => {
  const snippet = importSnippet(["*.apps.example.com", "a.example.com", "z.example.com"], FQDN);
  assert.equal(
    snippet,
    `rewrite name a.example.com ${FQDN}\n` +
      `rewrite name z.example.com ${FQDN}\n` +
      `rewrite name regex ^[^.]+\\.apps\\.example\\.com\\.$ ${FQDN} answer auto\n`,
  );
  assert.deepEqual(snippetHosts(snippet ?? ""), ["a.example.com", "z.example.com", "*.apps.example.com"]);
  assert.throws(() => importSnippet(["*.a b.com"], FQDN), RangeError);
});
