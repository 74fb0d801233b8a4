import assert from "node:assert/strict";
import {
  blockOrderOf,
  HostnameMatcher,
  parentDomain,
  splitWildcards,
  wildcardDomain,
  wildcardMatches,
} from "../../lib/hostnames/wildcard.ts";
import { prng } from "../support/random.ts";

Deno.test("wildcardMatches follows TLS: exactly one label under the domain", async (t) => {
  const cases: readonly [string, string, boolean][] = [
    ["*.example.com", "a.example.com", true],
    ["*.example.com", "shop-1.example.com", true],
    ["*.example.com", "example.com", false],
    ["*.example.com", "a.b.example.com", false],
    ["*.example.com", ".example.com", false],
    ["*.example.com", "aexample.com", false],
    ["*.example.com", "a.example.com.evil", false],
    ["*.example.com", "a.example.org", false],
    ["*.apps.example.com", "shop.apps.example.com", true],
    ["*.apps.example.com", "shop.example.com", false],
    ["shop.example.com", "shop.example.com", false],
  ];
  for (const [pattern, name, expected] of cases) {
    await t.step(`${pattern} ~ ${name}`, () => assert.equal(wildcardMatches(pattern, name), expected));
  }
});

Deno.test("wildcardDomain, parentDomain, splitWildcards and blockOrderOf", () => {
  assert.equal(wildcardDomain("*.example.com"), "example.com");
  assert.equal(wildcardDomain("example.com"), undefined);
  assert.equal(parentDomain("a.example.com"), "example.com");
  assert.equal(parentDomain("com"), undefined);
  assert.equal(parentDomain(".com"), undefined);
  assert.equal(parentDomain("a."), undefined);
  assert.deepEqual(splitWildcards(["*.b.com", "a.b.com", "*.a.com", "c.b.com"]), {
    exact: ["a.b.com", "c.b.com"],
    wildcards: ["*.b.com", "*.a.com"],
  });
  assert.deepEqual(blockOrderOf(["*.b.com", "a.b.com"]), ["a.b.com", "*.b.com"]);
  const exactOnly = ["a.b.com"];
  assert.equal(blockOrderOf(exactOnly), exactOnly, "no copy without wildcards");
});

Deno.test("HostnameMatcher: an exact name wins, a wildcard covers one label, nothing else matches", () => {
  const matcher = new HostnameMatcher(["api.example.com", "*.example.com", "*.apps.example.com"]);
  assert.equal(matcher.match("api.example.com"), "exact");
  assert.equal(matcher.match("shop.example.com"), "wildcard");
  assert.equal(matcher.match("x.apps.example.com"), "wildcard");
  assert.equal(matcher.match("apps.example.com"), "wildcard", "one label under *.example.com");
  assert.equal(matcher.match("example.com"), undefined);
  assert.equal(matcher.match("a.b.example.com"), undefined);
  assert.equal(matcher.match("*.example.com"), "wildcard", "the literal name '*' is one label too");
  assert.equal(new HostnameMatcher([]).match("a.example.com"), undefined);
});

Deno.test("property: HostnameMatcher agrees with checking every entry one by one", () => {
  const labels = ["a", "b", "ab", "x-1", "example", "com"];
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    const random = prng(seed);
    const name = () =>
      Array.from({ length: 1 + Math.floor(random() * 4) }, () => labels[Math.floor(random() * labels.length)])
        .join(".");
    const hosts = Array.from({ length: 12 }, () => (random() < 0.4 ? `*.${name()}` : name()));
    const matcher = new HostnameMatcher(hosts);
    for (let i = 0; i < 400; i++) {
      const query = name();
      const exact = hosts.includes(query);
      const wildcard = hosts.some((host) => wildcardMatches(host, query));
      assert.equal(
        matcher.match(query),
        exact ? "exact" : wildcard ? "wildcard" : undefined,
        `seed ${seed}: ${query} against ${hosts.join(" ")}`,
      );
    }
  }
});
