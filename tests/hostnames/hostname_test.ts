import assert from "node:assert/strict";
import { checkHostname, normaliseHostname, type RejectionReason } from "../../lib/hostnames/hostname.ts";
import { formatLoggedValue } from "../../lib/hostnames/rejection_log.ts";

const CLUSTER = "cluster.local";
const label63 = "a".repeat(63);
const label64 = "a".repeat(64);
/** 253 characters: four labels of 63 plus three dots is 255, so trim the last label to 61. */
const name253 = `${label63}.${label63}.${label63}.${"b".repeat(61)}`;
const name254 = `${label63}.${label63}.${label63}.${"b".repeat(62)}`;

Deno.test("checkHostname accepts plain names and normalises case, padding and one trailing dot (T-3.2, T-3.3, T-3.6)", async (t) => {
  const cases: readonly [string, string][] = [
    ["shop.example.com", "shop.example.com"],
    ["Foo.Example.COM", "foo.example.com"],
    ["  shop.example.com  ", "shop.example.com"],
    ["\tshop.example.com\t", "shop.example.com"],
    ["shop.example.com.", "shop.example.com"],
    ["SHOP.EXAMPLE.COM.", "shop.example.com"],
    ["xn--nicode-2ya.com", "xn--nicode-2ya.com"],
    ["xn--bcher-kva.example", "xn--bcher-kva.example"],
    ["a-b.c-d.example", "a-b.c-d.example"],
    ["123.example.com", "123.example.com"],
    ["1.2.3.4.example.com", "1.2.3.4.example.com"],
    [`${label63}.com`, `${label63}.com`],
    [name253, name253],
    ["a.b", "a.b"],
    ["my.cluster.local.example.com", "my.cluster.local.example.com"],
    ["notcluster.local", "notcluster.local"],
  ];
  for (const [raw, host] of cases) {
    await t.step(formatLoggedValue(raw), () => {
      assert.deepEqual(checkHostname(raw, { clusterDomain: CLUSTER }), { kind: "accepted", host });
    });
  }
});

Deno.test("checkHostname drops empty values and wildcards without calling them errors (T-3.4)", async (t) => {
  const cases: readonly [string, "empty" | "wildcard"][] = [
    ["", "empty"],
    ["   ", "empty"],
    [" \t ", "empty"],
    ["*", "wildcard"],
    ["*.example.com", "wildcard"],
    ["a.*.com", "wildcard"],
    ["?", "wildcard"],
    ["shop?.example.com", "wildcard"],
    ["*.Example.COM.", "wildcard"],
  ];
  for (const [raw, why] of cases) {
    await t.step(formatLoggedValue(raw), () => {
      assert.deepEqual(checkHostname(raw, { clusterDomain: CLUSTER }), { kind: "dropped", why });
    });
  }
});

Deno.test("checkHostname with wildcards accepts exactly one leading '*' label before a valid name", async (t) => {
  const options = { clusterDomain: CLUSTER, wildcards: true } as const;
  const cases: readonly [string, string][] = [
    ["*.example.com", "example.com"],
    ["*.Example.COM.", "example.com"],
    ["  *.shop.example.com ", "shop.example.com"],
    ["*.a.b", "a.b"],
    ["*.xn--bcher-kva.example", "xn--bcher-kva.example"],
    [`*.${label63}.com`, `${label63}.com`],
  ];
  for (const [raw, domain] of cases) {
    await t.step(formatLoggedValue(raw), () => {
      assert.deepEqual(checkHostname(raw, options), { kind: "wildcard", host: `*.${domain}`, domain });
    });
  }
  await t.step("exact names are still accepted as names", () => {
    assert.deepEqual(checkHostname("shop.example.com", options), {
      kind: "accepted",
      host: "shop.example.com",
    });
  });
});

Deno.test("checkHostname with wildcards refuses every other wildcard, with the domain's own reason where it has one", async (t) => {
  const options = { clusterDomain: CLUSTER, wildcards: true, proxyFqdn: "proxy.example.net." } as const;
  const cases: readonly [string, RejectionReason][] = [
    ["*", "invalid-wildcard"],
    ["*.", "invalid-wildcard"],
    ["?", "invalid-wildcard"],
    ["a.*.com", "invalid-wildcard"],
    ["*foo.example.com", "invalid-wildcard"],
    ["foo*.example.com", "invalid-wildcard"],
    ["**.x.y", "invalid-wildcard"],
    ["*.*.example.com", "invalid-wildcard"],
    ["*.example.*", "invalid-wildcard"],
    ["shop?.example.com", "invalid-wildcard"],
    ["*.com", "single-label"],
    ["*..example.com", "empty-label"],
    ["*.-a.example.com", "label-hyphen"],
    ["*.a_b.example.com", "invalid-character"],
    ["*.10.0.0.1", "ip-literal"],
    ["*.cluster.local", "cluster-domain"],
    ["*.svc.cluster.local", "cluster-domain"],
    ["*.example.net", "proxy-name"],
    [`*.${name253}`, "too-long"],
    ["*.evil.com\n}", "control-character"],
    ["*.evil.com }", "whitespace"],
    ["*.evil{1}.com", "forbidden-character"],
    ["*.evil.com#", "forbidden-character"],
    ["*.a$b.com", "forbidden-character"],
  ];
  for (const [raw, reason] of cases) {
    await t.step(formatLoggedValue(raw), () => {
      const check = checkHostname(raw, options);
      assert.equal(check.kind === "rejected" ? check.reason : check.kind, reason);
    });
  }
  await t.step("a wildcard that does not match the proxy's name is fine", () => {
    assert.equal(checkHostname("*.a.example.net", options).kind, "wildcard");
  });
});

Deno.test("checkHostname rejects every unsafe or invalid value with its reason (T-3.1, T-3.2, T-3.5, T-3.6, T-3.7)", async (t) => {
  const cases: readonly [string, RejectionReason, string][] = [
    // Injection into a line-based file: line breaks, braces, comments, quoting, substitution.
    ["evil.com\n}", "control-character", "U+000A"],
    ["a.example.com\n    forward . 6.6.6.6", "control-character", "U+000A"],
    ["a.example.com\r", "control-character", "U+000D"],
    ["\nshop.example.com", "control-character", "U+000A"],
    ["a\u0000.com", "control-character", "U+0000"],
    ["a\u001b[31m.com", "control-character", "U+001B"],
    ["a\u007f.com", "control-character", "U+007F"],
    ["a\u0085.com", "control-character", "U+0085"],
    ["a.com rewrite name x y", "whitespace", "whitespace"],
    ["a b.example.com", "whitespace", "whitespace"],
    ["a.example.com }", "whitespace", "whitespace"],
    ["a\tb.com", "whitespace", "whitespace"],
    ["a.com#", "forbidden-character", "'#'"],
    ["a.example.com{", "forbidden-character", "'{'"],
    ["a.example.com}", "forbidden-character", "'}'"],
    ["${x}.com", "forbidden-character", "'$'"],
    ["{$HOME}.example.com", "forbidden-character", "'{'"],
    ['"quoted"', "forbidden-character", `'"'`],
    ["a\\.com", "forbidden-character", "'\\'"],
    ["a;b.com", "forbidden-character", "';'"],
    ["it's.com", "forbidden-character", `'''`],
    ["(a).com", "forbidden-character", "'('"],
    ["a|b.com", "forbidden-character", "'|'"],
    ["<a>.com", "forbidden-character", "'<'"],
    ["`a`.com", "forbidden-character", "'`'"],
    ["a.com,b.com", "forbidden-character", "','"],
    ["https://a.com/", "forbidden-character", "'/'"],
    ["user@a.com", "forbidden-character", "'@'"],
    // Hostile and illegal characters beat the wildcard rule: they are reported, not skipped.
    ["*.evil.com\n}", "control-character", "U+000A"],
    ["*.ünïcode.com", "non-ascii", "U+00FC"],
    // IP literals.
    ["127.0.0.1", "ip-literal", "IPv4 address"],
    ["10.0.0.1", "ip-literal", "IPv4 address"],
    ["10.0.0.1.", "ip-literal", "IPv4 address"],
    ["127.1", "ip-literal", "numeric label '1'"],
    ["010.0.0.1", "ip-literal", "numeric label"],
    ["0x7f.0x1", "ip-literal", "numeric label '0x1'"],
    ["example.123", "ip-literal", "numeric label '123'"],
    ["::1", "ip-literal", "IPv6"],
    ["[fe80::1]", "ip-literal", "IPv6"],
    ["[::1]", "ip-literal", "IPv6"],
    ["::ffff:1.2.3.4", "ip-literal", "IPv6"],
    ["fe80::1%eth0", "ip-literal", "IPv6"],
    ["2001:DB8::1", "ip-literal", "IPv6"],
    // Non-ASCII: U-labels, homographs, invisible and look-alike characters.
    ["ünïcode.com", "non-ascii", "U+00FC"],
    ["bücher.example", "non-ascii", "U+00FC"],
    ["\u0430pple.com", "non-ascii", "U+0430"], // Cyrillic a
    ["a\u200db.com", "non-ascii", "U+200D"], // zero-width joiner
    ["shop\u3002example.com", "non-ascii", "U+3002"], // ideographic full stop
    ["\u212aube.example", "non-ascii", "U+212A"], // Kelvin sign, lower-cases to ASCII "k"
    ["shop.example.com\u00a0", "non-ascii", "U+00A0"], // no-break space is not padding
    ["a\u2028b.com", "non-ascii", "U+2028"],
    ["\u{1f600}.com", "non-ascii", "U+1F600"],
    // Shape: lengths, empty labels, hyphens, characters outside [a-z0-9-].
    [`${label64}.com`, "label-too-long", "64 characters"],
    [name254, "too-long", "254 characters"],
    [`${name253}x`, "too-long", "254 characters"],
    ["-a.com", "label-hyphen", "'-a'"],
    ["a-.com", "label-hyphen", "'a-'"],
    ["a.-.com", "label-hyphen", "'-'"],
    ["xn--.com", "label-hyphen", "'xn--'"],
    ["a..com", "empty-label", "empty label"],
    [".a.com", "empty-label", "empty label"],
    ["a.com..", "empty-label", "empty label"],
    [".", "empty-label", "root"],
    ["under_score.example.com", "invalid-character", "'_'"],
    ["a.com:443", "invalid-character", "':'"],
    ["a%2e.com", "invalid-character", "'%'"],
    ["a!.com", "invalid-character", "'!'"],
    ["[a].com", "invalid-character", "'['"],
    ["a+b.com", "invalid-character", "'+'"],
    ["a=b.com", "invalid-character", "'='"],
    // Single labels resolve through the search path: in-cluster or node names, never public.
    ["kubernetes", "single-label", "single label"],
    ["localhost", "single-label", "single label"],
    ["LOCALHOST.", "single-label", "single label"],
    // The cluster domain and anything under it.
    ["web.svc.cluster.local", "cluster-domain", "under the cluster domain 'cluster.local'"],
    ["ouroboros-proxy.ouroboros.svc.cluster.local", "cluster-domain", "under the cluster domain"],
    ["cluster.local", "cluster-domain", "is the cluster domain"],
    ["Cluster.Local.", "cluster-domain", "is the cluster domain"],
    ["kubernetes.default.svc.cluster.local.", "cluster-domain", "under the cluster domain"],
  ];
  for (const [raw, reason, fragment] of cases) {
    await t.step(formatLoggedValue(raw), () => {
      const check = checkHostname(raw, { clusterDomain: CLUSTER });
      assert.equal(check.kind, "rejected", `accepted or dropped: ${JSON.stringify(check)}`);
      assert.ok(check.kind === "rejected");
      assert.equal(check.reason, reason, check.text);
      assert.ok(check.text.includes(fragment), `"${check.text}" lacks "${fragment}"`);
    });
  }
});

Deno.test("checkHostname judges the cluster domain by the domain in use, not by cluster.local (T-3.7)", async (t) => {
  await t.step("cozy.local: names under cluster.local are ordinary two-label names", () => {
    assert.deepEqual(checkHostname("web.svc.cluster.local", { clusterDomain: "cozy.local" }), {
      kind: "accepted",
      host: "web.svc.cluster.local",
    });
  });
  await t.step("cozy.local: names under cozy.local are refused", () => {
    const check = checkHostname("web.svc.cozy.local", { clusterDomain: "cozy.local" });
    assert.equal(check.kind === "rejected" ? check.reason : check.kind, "cluster-domain");
  });
  await t.step("the domain may be given with a trailing dot or in upper case", () => {
    for (const domain of ["cozy.local.", "COZY.Local"]) {
      const check = checkHostname("web.svc.cozy.local", { clusterDomain: domain });
      assert.equal(check.kind === "rejected" ? check.reason : check.kind, "cluster-domain", domain);
    }
  });
  await t.step("a suffix match must be on a label boundary", () => {
    assert.deepEqual(checkHostname("mycozy.local", { clusterDomain: "cozy.local" }), {
      kind: "accepted",
      host: "mycozy.local",
    });
  });
  await t.step("an empty cluster domain disables the rule but not the others", () => {
    assert.deepEqual(checkHostname("web.svc.cluster.local", { clusterDomain: "" }), {
      kind: "accepted",
      host: "web.svc.cluster.local",
    });
    assert.equal(checkHostname("localhost", { clusterDomain: "" }).kind, "rejected");
  });
});

Deno.test("checkHostname refuses the proxy's own FQDN when it lies outside the cluster domain (T-3.7)", () => {
  const check = checkHostname("Proxy.Example.net", {
    clusterDomain: CLUSTER,
    proxyFqdn: "proxy.example.net.",
  });
  assert.equal(check.kind === "rejected" ? check.reason : check.kind, "proxy-name");
  assert.deepEqual(
    checkHostname("shop.example.net", { clusterDomain: CLUSTER, proxyFqdn: "proxy.example.net." }),
    {
      kind: "accepted",
      host: "shop.example.net",
    },
  );
});

Deno.test("checkHostname's rejection text never echoes control or non-ASCII characters (T-3.8)", () => {
  for (const raw of ["evil.com\n}", "a\u001b[2J.com", "bücher.example", "a\u202eb.com"]) {
    const check = checkHostname(raw, { clusterDomain: CLUSTER });
    assert.ok(check.kind === "rejected");
    assert.match(check.text, /^[\u0020-\u007e]+$/, JSON.stringify(check.text));
  }
});

Deno.test("normaliseHostname lower-cases and drops one trailing dot, and checks nothing", () => {
  assert.equal(normaliseHostname("App.Example.COM."), "app.example.com");
  assert.equal(normaliseHostname("a.example.com.."), "a.example.com.");
  assert.equal(normaliseHostname("localhost"), "localhost");
  assert.equal(normaliseHostname(" A_B "), " a_b ");
});

Deno.test("checkHostname trims padding in linear time: a long inner run of spaces is cheap to refuse", () => {
  const raw = `a${" ".repeat(256 * 1024)}b.example.com`;
  const started = performance.now();
  const check = checkHostname(raw, { clusterDomain: CLUSTER });
  assert.ok(performance.now() - started < 1_000, "a quadratic trim takes over a minute here");
  assert.deepEqual(check, { kind: "rejected", reason: "whitespace", text: "contains whitespace" });
});
