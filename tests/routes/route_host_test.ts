import assert from "node:assert/strict";
import { hostnameProblem, normaliseHostname, routeHostProblem } from "../../lib/routes/route_host.ts";

Deno.test("normaliseHostname lower-cases and drops one trailing dot", () => {
  assert.equal(normaliseHostname("App.Example.COM."), "app.example.com");
  assert.equal(normaliseHostname("a.example.com.."), "a.example.com.");
  assert.equal(normaliseHostname("localhost"), "localhost");
});

Deno.test("hostnameProblem accepts RFC 1123 names and says what is wrong with the rest", async (t) => {
  const cases: readonly [string, string | undefined][] = [
    ["app.example.com", undefined],
    ["localhost", undefined],
    ["xn--bcher-kva.example", undefined],
    ["a-1.b2.example.com", undefined],
    ["", "is empty"],
    ["a..com", "has an empty label (a leading dot or two dots in a row)"],
    [".a.com", "has an empty label (a leading dot or two dots in a row)"],
    [`${"a".repeat(64)}.com`, "has a label of 64 characters; a label has at most 63"],
    [`${"a.".repeat(127)}com`, "is 257 characters long; a hostname has at most 253"],
    ["a_b.com", `has the label "a_b"; a label holds only a-z, 0-9 and '-' (not at either end)`],
    ["-a.com", `has the label "-a"; a label holds only a-z, 0-9 and '-' (not at either end)`],
    ["A.com", `has the label "A"; a label holds only a-z, 0-9 and '-' (not at either end)`],
    ["a b.com", "holds a space, a control or a non-ASCII character"],
    ["a\u0000.com", "holds a space, a control or a non-ASCII character"],
    ["b\u00fccher.com", "holds a space, a control or a non-ASCII character"],
    ["10.0.0.1", "ends in a numeric label: an IP address is not a hostname"],
    ["app.0x7f", "ends in a numeric label: an IP address is not a hostname"],
    ["*.example.com", `has the label "*"; a label holds only a-z, 0-9 and '-' (not at either end)`],
  ];
  for (const [name, problem] of cases) {
    await t.step(JSON.stringify(name).slice(0, 40), () => assert.equal(hostnameProblem(name), problem));
  }
});

Deno.test("routeHostProblem: two labels or more, or one whole leading *. wildcard label", async (t) => {
  const cases: readonly [string, string | undefined][] = [
    ["app.example.com", undefined],
    ["*.example.com", undefined],
    ["*.apps.example.com", undefined],
    ["localhost", "has a single label; a routed name has two or more"],
    ["*.com", "has a single label after its '*.'; a routed name has two or more"],
    ["a.*.com", "has '*' other than as a whole first label; a wildcard is written *.example.com"],
    ["*a.example.com", "has '*' other than as a whole first label; a wildcard is written *.example.com"],
    ["*.*.example.com", "has '*' other than as a whole first label; a wildcard is written *.example.com"],
    ["*", "has '*' other than as a whole first label; a wildcard is written *.example.com"],
    ["App.example.com", `is not lower case without a trailing dot; write "app.example.com"`],
    ["app.example.com.", `is not lower case without a trailing dot; write "app.example.com"`],
    [
      "*.a_b.com",
      `after its '*.' has the label "a_b"; a label holds only a-z, 0-9 and '-' (not at either end)`,
    ],
    ["*.10.0.0.1", "after its '*.' ends in a numeric label: an IP address is not a hostname"],
    [`*.${"a.".repeat(125)}com`, "is 255 characters long; a hostname has at most 253"],
  ];
  for (const [host, problem] of cases) {
    await t.step(host.slice(0, 40), () => assert.equal(routeHostProblem(host), problem));
  }
});
