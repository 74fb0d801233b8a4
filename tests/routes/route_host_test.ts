import assert from "node:assert/strict";
import { checkHostname } from "../../lib/hostnames/hostname.ts";
import {
  backendNameProblem,
  checkRequestedName,
  type RequestedName,
  routeHostProblem,
} from "../../lib/routes/route_host.ts";
import { prng } from "../support/random.ts";

const NORMAL_FORM = "is not in normal form (lower case, no trailing dot, no padding); write";
const BAD_WILDCARD = "uses '*' or '?' other than as one whole leading label; only '*.<domain>' is a wildcard";
const SINGLE_LABEL = "has a single label; only names with a dot can be public hostnames";
const UNDERSCORE = "contains '_'; a hostname has only letters, digits, '-' and '.'";

Deno.test("routeHostProblem: a name or one whole leading *. label that checkHostname accepts, in normal form", async (t) => {
  const cases: readonly [string, string | undefined][] = [
    ["app.example.com", undefined],
    ["*.example.com", undefined],
    ["*.apps.example.com", undefined],
    ["web.ns.svc.cluster.local", undefined],
    ["xn--bcher-kva.example", undefined],
    ["localhost", SINGLE_LABEL],
    ["*.com", `after its '*.' ${SINGLE_LABEL}`],
    ["a.*.com", BAD_WILDCARD],
    ["*a.example.com", BAD_WILDCARD],
    ["*.*.example.com", BAD_WILDCARD],
    ["*", BAD_WILDCARD],
    ["?.example.com", BAD_WILDCARD],
    ["App.example.com", `${NORMAL_FORM} "app.example.com"`],
    ["app.example.com.", `${NORMAL_FORM} "app.example.com"`],
    [" app.example.com\t", `${NORMAL_FORM} "app.example.com"`],
    ["*.Apps.example.com.", `${NORMAL_FORM} "*.apps.example.com"`],
    ["*.a_b.com", `after its '*.' ${UNDERSCORE}`],
    ["*.10.0.0.1", "after its '*.' is an IPv4 address, not a hostname"],
    ["10.0.0.1", "is an IPv4 address, not a hostname"],
    ["a..com", "has an empty label (two dots in a row, or a leading dot)"],
    ["a,b.example.com", "contains ',', which has a meaning in DNS configuration"],
    ["app.example.com\n", "contains the control character U+000A"],
    [`*.${"a.".repeat(125)}com`, "is 255 characters long; a DNS name has at most 253"],
    ["", "is empty"],
    [" \t", "is only spaces and tabs"],
  ];
  for (const [host, problem] of cases) {
    await t.step(JSON.stringify(host).slice(0, 40), () => assert.equal(routeHostProblem(host), problem));
  }
});

Deno.test("backendNameProblem: as a table host, but one host, not a wildcard", async (t) => {
  const cases: readonly [string, string | undefined][] = [
    ["web.ns.svc.cluster.local", undefined],
    ["gateway.example.com", undefined],
    ["*.ns.svc.cluster.local", "is a wildcard; a backend is one host"],
    ["web", SINGLE_LABEL],
    ["Web.ns.svc.cluster.local", `${NORMAL_FORM} "web.ns.svc.cluster.local"`],
    ["svc.cluster.local.", `${NORMAL_FORM} "svc.cluster.local"`],
    ["10.96.0.012", "ends in the numeric label '012', which resolvers read as an IPv4 address"],
    ["a_b.ns.svc", UNDERSCORE],
    ["", "is empty"],
  ];
  for (const [name, problem] of cases) {
    await t.step(JSON.stringify(name), () => assert.equal(backendNameProblem(name), problem));
  }
});

function routable(name: string): RequestedName {
  return { kind: "routable", name };
}

function unroutable(reason: string): RequestedName {
  return { kind: "unroutable", reason };
}

Deno.test("checkRequestedName normalises a client's name, or says why no route can match it", async (t) => {
  const cases: readonly [string, RequestedName][] = [
    ["app.example.com", routable("app.example.com")],
    ["App.Example.COM.", routable("app.example.com")],
    [" app.example.com\t", routable("app.example.com")],
    ["xn--bcher-kva.example", routable("xn--bcher-kva.example")],
    ["a-1.b2.example.com", routable("a-1.b2.example.com")],
    ["A.com", routable("a.com")],
    ["localhost", unroutable(`"localhost" ${SINGLE_LABEL}`)],
    ["", unroutable('"" is empty')],
    ["   ", unroutable('"   " is only spaces and tabs')],
    ["a..com", unroutable('"a..com" has an empty label (two dots in a row, or a leading dot)')],
    [".a.com", unroutable('".a.com" has an empty label (two dots in a row, or a leading dot)')],
    [
      `${"a".repeat(64)}.com`,
      unroutable(
        `"${"a".repeat(40)}" (cut, 28 more characters) has a label of 64 characters; a label has at most 63`,
      ),
    ],
    [
      `${"a.".repeat(127)}com`,
      unroutable(
        `"${"a.".repeat(20)}" (cut, 217 more characters) is 257 characters long; a DNS name has at most 253`,
      ),
    ],
    ["a_b.com", unroutable(`"a_b.com" ${UNDERSCORE}`)],
    ["-a.com", unroutable(`"-a.com" has the label '-a', which starts or ends with '-'`)],
    ["a b.com", unroutable('"a b.com" contains whitespace')],
    ["a\u0000.com", unroutable('"a\\u0000.com" contains the control character U+0000')],
    [
      "b\u00fccher.com",
      unroutable(
        '"b\\u00fccher.com" contains the non-ASCII character U+00FC; write internationalised names as xn-- A-labels',
      ),
    ],
    ["10.0.0.1", unroutable('"10.0.0.1" is an IPv4 address, not a hostname')],
    ["::1", unroutable('"::1" is an IPv6 address, not a hostname')],
    [
      "app.0x7f",
      unroutable(`"app.0x7f" ends in the numeric label '0x7f', which resolvers read as an IPv4 address`),
    ],
    ["*.example.com", unroutable('"*.example.com" is a wildcard; a client names one host')],
    ["a.*.com", unroutable(`"a.*.com" ${BAD_WILDCARD}`)],
  ];
  for (const [name, expected] of cases) {
    await t.step(
      JSON.stringify(name).slice(0, 40),
      () => assert.deepEqual(checkRequestedName(name), expected),
    );
  }
});

Deno.test("property: a table host and a client name are judged by checkHostname, and a table host is what a client name normalises to", () => {
  const pieces = [
    "a",
    "b",
    "example",
    "com",
    "-",
    "_",
    ".",
    "..",
    "*",
    "*.",
    "A",
    "0",
    "0x7f",
    " ",
    "\t",
    "\n",
  ];
  const options = { clusterDomain: "", wildcards: true } as const;
  const random = prng(30);
  for (let round = 0; round < 5000; round++) {
    let raw = "";
    for (let count = 1 + Math.floor(random() * 6); count > 0; count--) {
      raw += pieces[Math.floor(random() * pieces.length)]!;
    }
    const check = checkHostname(raw, options);
    const asked = checkRequestedName(raw);
    assert.equal(asked.kind === "routable", check.kind === "accepted", JSON.stringify(raw));
    assert.equal(
      routeHostProblem(raw) === undefined,
      (check.kind === "accepted" || check.kind === "wildcard") && check.host === raw,
      JSON.stringify(raw),
    );
    if (asked.kind === "routable") {
      assert.match(asked.name, /^[a-z0-9-]+(?:\.[a-z0-9-]+)+$/, JSON.stringify(raw));
      assert.equal(routeHostProblem(asked.name), undefined, JSON.stringify(raw));
    } else assert.match(asked.reason, /^"[\x20-\x7e]*$/, JSON.stringify(raw));
  }
});
