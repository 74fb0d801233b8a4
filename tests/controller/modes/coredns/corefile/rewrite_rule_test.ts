import assert from "node:assert/strict";
import {
  fqdnProblem,
  hostProblem,
  isOwnRewriteRule,
  rewriteInputProblem,
  rewriteRule,
} from "../../../../../lib/controller/modes/coredns/corefile/rewrite_rule.ts";
import { FQDN } from "../support.ts";

Deno.test("hostProblem accepts hostnames and refuses anything the Corefile lexer would read", async (t) => {
  const accepted = [
    "app.example.com",
    "xn--bcher-kva.example.com",
    "a-b.c-d.example",
    "1.example.com",
    "_acme.x.com",
  ];
  for (const host of accepted) {
    await t.step(`accepts ${host}`, () => assert.equal(hostProblem(host), undefined));
  }
  const refused: [string, RegExp][] = [
    ["", /empty/],
    ["a b.example.com", /U\+0020/],
    ["a.example.com\t", /U\+0009/],
    ["a.example.com\r", /U\+000D/],
    ["a\u0000.example.com", /U\+0000/],
    ["a\u007f.example.com", /U\+007F/],
    ["a\u0085.example.com", /U\+0085/],
    ["a\u00a0.example.com", /U\+00A0/],
    ["a\u2028.example.com", /U\+2028/],
    ["é.example.com", /U\+00E9/],
    ["{.example.com", /"\{"/],
    ["}.example.com", /"\}"/],
    ["#.example.com", /"#"/],
    ['".example.com', /"\\""/],
    [";.example.com", /";"/],
    ["\\.example.com", /"\\\\"/],
    ["$HOME.example.com", /"\$"/],
    ["`x`.example.com", /"`"/],
    ["exact", /match type/],
    ["Regex", /match type/],
  ];
  for (const [host, reason] of refused) {
    await t.step(`refuses ${JSON.stringify(host)}`, () => assert.match(hostProblem(host) ?? "", reason));
  }
});

Deno.test("fqdnProblem requires a safe name with a trailing dot", () => {
  assert.equal(fqdnProblem(FQDN), undefined);
  assert.equal(fqdnProblem("proxy.ns.svc.cozy.local."), undefined);
  assert.match(fqdnProblem("") ?? "", /^empty target$/);
  assert.match(fqdnProblem("proxy.ns.svc.cluster.local") ?? "", /^target must be FQDN with trailing dot/);
  assert.match(fqdnProblem(".") ?? "", /root zone/);
  assert.match(fqdnProblem("proxy .") ?? "", /U\+0020/);
  assert.match(fqdnProblem("proxy}.") ?? "", /"\}"/);
});

Deno.test("rewriteInputProblem checks the target first, then every host", () => {
  assert.equal(rewriteInputProblem(["a.example.com", "b.example.com"], FQDN), undefined);
  assert.equal(rewriteInputProblem([], FQDN), undefined);
  assert.deepEqual(rewriteInputProblem(["a b"], "x")?.field, "fqdn");
  assert.deepEqual(rewriteInputProblem(["ok.example.com", "a b"], FQDN)?.field, "host");
});

Deno.test("rewriteRule uses the plain form the original writes", () => {
  assert.equal(rewriteRule("a.example.com", FQDN), `rewrite name a.example.com ${FQDN}`);
});

Deno.test("isOwnRewriteRule recognises only the forms ouroboros writes", async (t) => {
  const cases: [string[], boolean][] = [
    [["rewrite", "name", "a.example.com", FQDN], true],
    [["rewrite", "name", "exact", "a.example.com", FQDN], true],
    [["rewrite", "name", "suffix", "a.example.com", FQDN], false],
    [["rewrite", "stop", "name", "a.example.com", FQDN], false],
    [["rewrite", "name", "a.example.com", FQDN, "answer", "auto"], false],
    [["rewrite", "name", "a.example.com", "no-dot"], false],
    [["rewrite", "name", "a.example.com"], false],
    [["log"], false],
    [[], false],
  ];
  for (const [words, expected] of cases) {
    await t.step(words.join(" ") || "(empty)", () => assert.equal(isOwnRewriteRule(words), expected));
  }
});
