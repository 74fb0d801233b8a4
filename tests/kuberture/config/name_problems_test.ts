import assert from "node:assert/strict";
import { annotationPrefixProblem, hostnameProblem } from "../../../lib/kuberture/config/name_problems.ts";
import { prng } from "../../support/random.ts";

const label63 = "a".repeat(63);
/** 253 characters: three labels of 63 and one of 61, with three dots. */
const name253 = `${label63}.${label63}.${label63}.${"b".repeat(61)}`;
const name254 = `${label63}.${label63}.${label63}.${"b".repeat(62)}`;

Deno.test("hostnameProblem accepts what kuberture accepts: wildcards, a trailing dot, upper case, 253 characters", async (t) => {
  const accepted = [
    "example.com",
    "a.b.c.d.example.com",
    "*.example.com",
    "test-host.example.com",
    "example.com.",
    "*.example.com.",
    "Example.COM",
    "123.456.com",
    "xn--bcher-kva.example",
    `${label63}.example.com`,
    name253,
    `${name253}.`,
  ];
  for (const host of accepted) {
    await t.step(host.length > 40 ? `${host.slice(0, 40)}… (${host.length})` : host, () => {
      assert.equal(hostnameProblem(host), undefined);
    });
  }
});

Deno.test("hostnameProblem says what is wrong with each refused hostname and what is accepted", async (t) => {
  const cases: readonly [string, string][] = [
    ["", "is empty; give a DNS name such as api.example.com"],
    [
      "spaces in name.com",
      `"spaces in name.com" contains " "; a hostname holds only letters, digits, '-' and '.' (internationalised names as xn-- A-labels)`,
    ],
    [
      "ün.example.com",
      `"ün.example.com" contains "ü"; a hostname holds only letters, digits, '-' and '.' (internationalised names as xn-- A-labels)`,
    ],
    [
      "api_1.example.com",
      `"api_1.example.com" contains "_"; a hostname holds only letters, digits, '-' and '.' (internationalised names as xn-- A-labels)`,
    ],
    [
      "https://api.example.com",
      `"https://api.example.com" contains ":"; a hostname holds only letters, digits, '-' and '.' (internationalised names as xn-- A-labels)`,
    ],
    [name254, `"${name254}" is 254 characters long; a hostname has at most 253 (without the trailing dot)`],
    [
      "*.*.example.com",
      `"*.*.example.com" has '*' outside a leading "*." label; only a whole first label may be a wildcard, such as *.example.com`,
    ],
    [
      "foo.*.example.com",
      `"foo.*.example.com" has '*' outside a leading "*." label; only a whole first label may be a wildcard, such as *.example.com`,
    ],
    [
      "api*.example.com",
      `"api*.example.com" has '*' outside a leading "*." label; only a whole first label may be a wildcard, such as *.example.com`,
    ],
    ["a..example.com", `"a..example.com" has an empty label (a leading dot or two dots in a row)`],
    [".example.com", `".example.com" has an empty label (a leading dot or two dots in a row)`],
    ["example.com..", `"example.com.." has an empty label (a leading dot or two dots in a row)`],
    [
      `${"a".repeat(64)}.example.com`,
      `"${"a".repeat(64)}.example.com" has a label of 64 characters; a label has at most 63`,
    ],
    ["-leading.com", `"-leading.com" has the label "-leading", which starts or ends with '-'`],
    ["api.trailing-.com", `"api.trailing-.com" has the label "trailing-", which starts or ends with '-'`],
    [
      "localhost",
      `"localhost" is a single label; give a name of at least two labels, such as api.example.com`,
    ],
    [
      "localhost.",
      `"localhost." is a single label; give a name of at least two labels, such as api.example.com`,
    ],
    ["*.com", `"*.com" is a single label; give a name of at least two labels, such as *.example.com`],
    [
      "10.0.0.1",
      `"10.0.0.1" is an IP address or ends in a numeric label; give a DNS name (the addresses come from addressSource)`,
    ],
    [
      "api.example.123",
      `"api.example.123" is an IP address or ends in a numeric label; give a DNS name (the addresses come from addressSource)`,
    ],
  ];
  for (const [host, problem] of cases) {
    await t.step(host === "" ? "(empty)" : host.slice(0, 40), () => {
      assert.equal(hostnameProblem(host), problem);
    });
  }
});

Deno.test("hostnameProblem: a generated name of valid labels passes, and one bad character anywhere fails it (property)", () => {
  const random = prng(12);
  const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-";
  const pick = (text: string) => text[Math.floor(random() * text.length)]!;
  const label = () => {
    const length = 1 + Math.floor(random() * 20);
    let out = pick("abcdefghijklmnopqrstuvwxyz0123456789");
    while (out.length < length - 1) out += pick(alphabet);
    return length === 1 ? out : out + pick("abcdefghijklmnopqrstuvwxyz0123456789");
  };
  for (let round = 0; round < 500; round++) {
    const labels = Array.from({ length: 2 + Math.floor(random() * 4) }, label);
    // The last label is a letter label so the name is never numeric.
    labels[labels.length - 1] = `x${labels.at(-1)!.replace(/-/g, "")}`;
    const name = `${random() < 0.3 ? "*." : ""}${labels.join(".")}${random() < 0.3 ? "." : ""}`;
    assert.equal(hostnameProblem(name), undefined, name);
    const at = Math.floor(random() * name.length);
    const broken = `${name.slice(0, at)}${pick("_ /:@!\u00e9")}${name.slice(at)}`;
    assert.notEqual(hostnameProblem(broken), undefined, broken);
  }
});

Deno.test("annotationPrefixProblem: a DNS subdomain followed by '/', and nothing else", async (t) => {
  const cases: readonly [string, string | undefined][] = [
    ["external-dns.alpha.kubernetes.io/", undefined],
    ["internal-dns.example.com/", undefined],
    ["internal/", undefined],
    [
      "no-slash",
      `"no-slash" does not end with '/'; external-dns reads <prefix>hostname, <prefix>target and <prefix>ttl, ` +
      "so the prefix must end with '/', such as internal-dns.example.com/",
    ],
    [
      "prefix.",
      `"prefix." does not end with '/'; external-dns reads <prefix>hostname, <prefix>target and <prefix>ttl, ` +
      "so the prefix must end with '/', such as internal-dns.example.com/",
    ],
    [
      "/",
      `"/" is not a DNS subdomain followed by '/' (lower-case letters, digits, '-' and '.'), which the API ` +
      "server requires of an annotation key's prefix; such as internal-dns.example.com/",
    ],
    [
      "Internal.DNS/",
      `"Internal.DNS/" is not a DNS subdomain followed by '/' (lower-case letters, digits, '-' and '.'), which ` +
      "the API server requires of an annotation key's prefix; such as internal-dns.example.com/",
    ],
    [
      "a/b/",
      `"a/b/" is not a DNS subdomain followed by '/' (lower-case letters, digits, '-' and '.'), which the API ` +
      "server requires of an annotation key's prefix; such as internal-dns.example.com/",
    ],
  ];
  for (const [prefix, problem] of cases) {
    await t.step(prefix, () => assert.equal(annotationPrefixProblem(prefix), problem));
  }
});
