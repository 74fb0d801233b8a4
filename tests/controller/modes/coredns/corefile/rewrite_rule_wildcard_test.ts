/**
 * The wildcard's CoreDNS rule: `rewrite name regex ^[^.]+\.<domain>\.$ <fqdn> answer auto`, its
 * reading back, and the property that no value can make the pattern match outside one label
 * under its domain.
 *
 * The patterns are exercised with JavaScript's RegExp as a stand-in for Go's RE2, which CoreDNS
 * uses: for these patterns (anchors, one negated class with `+`, escaped literals) the two
 * engines agree, since neither backreferences, lookaround nor any flag is involved.
 */

import assert from "node:assert/strict";
import { checkHostname } from "../../../../../lib/hostnames/hostname.ts";
import {
  blockOrder,
  hostProblem,
  isOwnRewriteRule,
  ownRuleHost,
  rewriteInputProblem,
  rewriteRule,
  wildcardPattern,
} from "../../../../../lib/controller/modes/coredns/corefile/rewrite_rule.ts";
import { prng } from "../../../../support/random.ts";
import { FQDN } from "../support.ts";

const REGEX_META = [..."\\^$.|?*+()[]{}"];

Deno.test("rewriteRule writes a wildcard as an anchored regex rule whose answer carries the asked name", () => {
  assert.equal(
    rewriteRule("*.example.com", FQDN),
    `rewrite name regex ^[^.]+\\.example\\.com\\.$ ${FQDN} answer auto`,
  );
  assert.equal(
    rewriteRule("*.my-apps.example.co.uk", FQDN),
    `rewrite name regex ^[^.]+\\.my-apps\\.example\\.co\\.uk\\.$ ${FQDN} answer auto`,
  );
  assert.equal(rewriteRule("shop.example.com", FQDN), `rewrite name shop.example.com ${FQDN}`);
});

Deno.test("blockOrder puts every exact name's rule before any wildcard's", () => {
  assert.deepEqual(blockOrder(["*.a.com", "*.b.com", "a.b.com", "x.a.com"]), [
    "a.b.com",
    "x.a.com",
    "*.a.com",
    "*.b.com",
  ]);
});

Deno.test("hostProblem refuses a wildcard whose domain is anything but [a-z0-9-] labels", async (t) => {
  assert.equal(hostProblem("*.example.com"), undefined);
  for (
    const host of ["*.", "*.com", "*.Example.com", "*.a..com", "*.a.com.", "*.a_b.com", "*.a(b).com", "*.a.*"]
  ) {
    await t.step(host, () => assert.match(hostProblem(host) ?? "", /wildcard/));
  }
  assert.deepEqual(rewriteInputProblem(["a.com", "*.a+b.com"], FQDN)?.field, "host");
});

Deno.test("ownRuleHost reads our wildcard rule back and refuses any rule we would not write", async (t) => {
  const words = (line: string) => line.split(" ");
  assert.equal(ownRuleHost(words(rewriteRule("*.example.com", FQDN))), "*.example.com");
  assert.equal(ownRuleHost(words(rewriteRule("a.example.com", FQDN))), "a.example.com");
  const foreign = [
    `rewrite name regex ^.+\\.example\\.com\\.$ ${FQDN} answer auto`,
    `rewrite name regex ^[^.]+\\.example.com\\.$ ${FQDN} answer auto`,
    `rewrite name regex [^.]+\\.example\\.com\\.$ ${FQDN} answer auto`,
    `rewrite name regex ^[^.]+\\.example\\.com\\. ${FQDN} answer auto`,
    `rewrite name regex ^[^.]+\\.example\\.com\\.$ ${FQDN}`,
    `rewrite name regex ^[^.]+\\.example\\.com\\.$ ${FQDN} answer name a b`,
    `rewrite name regex ^[^.]+\\.example\\.com\\.$ not-fqdn answer auto`,
    `rewrite name regex ^[^.]+\\.com\\.$ ${FQDN} answer auto`,
    `rewrite name regex ^[^.]+\\.Example\\.com\\.$ ${FQDN} answer auto`,
    `rewrite stop name regex ^[^.]+\\.example\\.com\\.$ ${FQDN} answer auto`,
    `rewrite name *.example.com ${FQDN}`,
  ];
  for (const line of foreign) {
    await t.step(line, () => {
      assert.equal(ownRuleHost(words(line)), undefined);
      assert.equal(isOwnRewriteRule(words(line)), false);
    });
  }
});

/** A random string with regex metacharacters, Corefile punctuation and name characters. */
function hostileLabel(random: () => number): string {
  const alphabet = [...REGEX_META, ..."abc-09", ..."#{}; \t\n\"'`$/@"];
  const length = 1 + Math.floor(random() * 6);
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
}

/** The reference: `name` is exactly one non-empty label without a dot, a dot, `domain`, a dot. */
function oneLabelUnder(name: string, domain: string): boolean {
  const suffix = `.${domain}.`;
  if (!name.endsWith(suffix)) return false;
  const label = name.slice(0, -suffix.length);
  return label.length > 0 && !label.includes(".");
}

/** Names near `domain`: one label under it, none, two, a dot short, with metacharacters read as such. */
function probes(random: () => number, domain: string): string[] {
  const label = () => hostileLabel(random).replaceAll(".", "");
  const meta = domain.replace(/\\./g, () => (random() < 0.5 ? "x" : "."));
  return [
    `${label() || "a"}.${domain}.`,
    `${label()}.${label()}.${domain}.`,
    `${domain}.`,
    `.${domain}.`,
    `${label()}.${domain}`,
    `${label()}.${meta}.`,
    `${label()}x${domain}.`,
    `${label()}.${domain}.x.`,
    `${label()}.${domain.toUpperCase()}.`,
    `${label()}.${domain.replace(/[\\^$.|?*+()[\]{}]/g, "")}.`,
  ];
}

Deno.test("property: a wildcard pattern never matches outside ^[^.]+\\.<domain>\\.?$, whatever the domain holds", () => {
  let compiled = 0;
  for (const seed of Array.from({ length: 20 }, (_, index) => 500 + index)) {
    const random = prng(seed);
    for (let i = 0; i < 300; i++) {
      const domain = Array.from({ length: 2 + Math.floor(random() * 3) }, () => hostileLabel(random)).join(
        ".",
      );
      // Escaping alone must already hold: the pattern for even a hostile domain matches only its children.
      const pattern = new RegExp(wildcardPattern(domain));
      compiled++;
      for (const name of probes(random, domain)) {
        if (pattern.test(name)) {
          assert.ok(oneLabelUnder(name, domain), `seed ${seed}: ${pattern} matched ${JSON.stringify(name)}`);
        }
      }
      assert.ok(
        pattern.test(`a.${domain}.`),
        `seed ${seed}: ${pattern} misses a child of ${JSON.stringify(domain)}`,
      );
    }
  }
  assert.equal(compiled, 6000);
});

Deno.test("property: no hostname with metacharacters in any label becomes a wildcard rule; valid ones give one safe line", () => {
  const tally = { written: 0, refused: 0 };
  for (const seed of Array.from({ length: 20 }, (_, index) => 900 + index)) {
    const random = prng(seed);
    for (let i = 0; i < 300; i++) {
      const labels = Array.from(
        { length: 2 + Math.floor(random() * 3) },
        () =>
          random() < 0.5
            ? hostileLabel(random)
            : ["shop", "example", "com", "a-1"][Math.floor(random() * 4)] ?? "a",
      );
      const raw = `*.${labels.join(".")}`;
      const check = checkHostname(raw, { clusterDomain: "cluster.local", wildcards: true });
      if (check.kind !== "wildcard") {
        tally.refused++;
        continue;
      }
      tally.written++;
      assert.match(check.domain, /^[a-z0-9-]+(\.[a-z0-9-]+)+$/, `seed ${seed}: ${JSON.stringify(raw)}`);
      assert.equal(hostProblem(check.host), undefined);
      const line = rewriteRule(check.host, FQDN);
      assert.match(line, /^[!-~]+( [!-~]+){6}$/, "seven printable words on one line");
      assert.doesNotMatch(line, /[{}#"';`]/, "nothing the Corefile lexer reads as structure");
      assert.equal(ownRuleHost(line.split(" ")), check.host, "reads back to the same wildcard");
      const pattern = new RegExp(line.split(" ")[3] ?? "");
      for (const name of probes(random, check.domain)) {
        if (pattern.test(name)) assert.ok(oneLabelUnder(name, check.domain), `${pattern} matched ${name}`);
      }
    }
  }
  assert.ok(tally.written > 300 && tally.refused > 300, JSON.stringify(tally));
});
