import assert from "node:assert/strict";
import { closestName, editDistance, tolerance } from "../../lib/cli/suggest.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";
import { prng } from "../support/random.ts";

Deno.test("editDistance counts the single-letter edits, a swap of neighbours as one", async (t) => {
  const cases: readonly [string, string, number][] = [
    ["", "", 0],
    ["", "abc", 3],
    ["proxy", "proxy", 0],
    ["prxy", "proxy", 1], // one left out
    ["proxxy", "proxy", 1], // one too many
    ["proxi", "proxy", 1], // one wrong
    ["prxoy", "proxy", 1], // two swapped
    ["listen_http", "listen-http", 1],
    ["dail-timout", "dial-timeout", 2],
    ["ca", "abc", 3], // optimal string alignment: a swapped pair is not edited again
    ["bogus", "proxy", 5],
    ["Proxy", "proxy", 1], // case-sensitive; closestName lowers both
  ];
  for (const [a, b, expected] of cases) {
    await t.step(`${JSON.stringify(a)} → ${JSON.stringify(b)}`, () => {
      assert.equal(editDistance(a, b), expected);
      assert.equal(editDistance(b, a), expected, "symmetric");
    });
  }
});

Deno.test("editDistance: zero only for equal words, symmetric, within the lengths, swaps cost one", () => {
  const random = prng(17);
  const word = () =>
    Array.from({ length: Math.floor(random() * 9) }, () => "abc-"[Math.floor(random() * 4)]).join("");
  for (let i = 0; i < 500; i++) {
    const [a, b] = [word(), word()];
    const d = editDistance(a, b);
    assert.equal(d === 0, a === b, `${a} ${b}`);
    assert.equal(editDistance(b, a), d, `${a} ${b}`);
    assert.ok(d >= Math.abs(a.length - b.length) && d <= Math.max(a.length, b.length), `${a} ${b}`);
    // Appending letters costs one each; swapping two different neighbours costs exactly one.
    assert.equal(editDistance(a, `${a}${b}`), b.length, `${a} ${b}`);
    const at = Math.floor(random() * (a.length - 1));
    if (a.length >= 2 && a[at] !== a[at + 1]) {
      assert.equal(editDistance(a, a.slice(0, at) + a[at + 1] + a[at] + a.slice(at + 2)), 1, a);
    }
  }
});

Deno.test("tolerance: one edit per three letters typed, at least one, at most three", () => {
  const cases: readonly [string, number][] = [
    ["", 1],
    ["dns", 1],
    ["prxy", 1],
    ["proxie", 2],
    ["dial-tim", 2],
    ["dial-timout", 3],
    ["leader-election-lease-duratoin", 3],
  ];
  for (const [typed, expected] of cases) assert.equal(tolerance(typed), expected, typed);
});

const PROXY_FLAGS = [
  ...Object.values(PROXY_OPTIONS.options).flatMap((spec) => spec.flag === null ? [] : [spec.flag]),
  "help",
];

Deno.test("closestName suggests the proxy flag a typo was meant to be, and nothing for a stranger", async (t) => {
  const cases: readonly [string, string | undefined][] = [
    ["dial-timout", "dial-timeout"],
    ["dail-timeout", "dial-timeout"],
    ["listen_http", "listen-http"],
    ["listen-htp", "listen-http"],
    ["listen-httpss", "listen-https"],
    ["Target-Host", "target-host"], // only the case differs
    ["proxy-protocl", "proxy-protocol"],
    ["hlep", "help"],
    ["bogus", undefined],
    ["timeout", undefined], // five edits from idle-timeout: too far for seven letters
    ["x", undefined],
    ["", undefined],
    ["dial-timeout", undefined], // a known name is no typo
  ];
  for (const [typed, expected] of cases) {
    await t.step(`--${typed}`, () => assert.equal(closestName(typed, PROXY_FLAGS), expected));
  }
});

Deno.test("closestName: the nearest wins, and the earlier candidate on a tie", () => {
  assert.equal(closestName("abcd", ["abxy", "abcx"]), "abcx");
  assert.equal(closestName("abcd", ["abcx", "abcy"]), "abcx");
  assert.equal(closestName("abcd", ["abcy", "abcx"]), "abcy");
  assert.equal(closestName("abcd", []), undefined);
});

Deno.test("closestName only ever suggests a candidate within tolerance", () => {
  const random = prng(4);
  const names = ["listen-http", "listen-https", "dial-timeout", "drain-delay", "help"];
  for (let i = 0; i < 300; i++) {
    const base = names[Math.floor(random() * names.length)]!;
    const at = Math.floor(random() * base.length);
    const typed = random() < 0.5
      ? base.slice(0, at) + base.slice(at + 1)
      : base.slice(0, at) + "q" + base.slice(at);
    const meant = closestName(typed, names);
    if (meant !== undefined) assert.ok(editDistance(typed, meant) <= tolerance(typed), `${typed} → ${meant}`);
    // A single slip is always caught.
    if (!names.includes(typed)) assert.notEqual(meant, undefined, typed);
  }
});
