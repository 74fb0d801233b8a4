import assert from "node:assert/strict";
import { desiredHostnames } from "../../lib/hostnames/desired_set.ts";
import { checkHostname } from "../../lib/hostnames/hostname.ts";
import { formatLoggedValue } from "../../lib/hostnames/rejection_log.ts";
import { prng } from "../support/random.ts";
import { ingress } from "./factories.ts";

const CLUSTER = "cluster.local";
const SEEDS = Array.from({ length: 20 }, (_, index) => 1000 + index);
const CASES_PER_SEED = 500;

/**
 * Pieces a hostile or sloppy value is made of: name characters (both cases), dots and hyphens
 * (weighted up so that valid names actually occur), wildcards, whitespace and control characters,
 * Corefile and shell punctuation, IP-literal punctuation, and non-ASCII look-alikes (the Kelvin
 * sign lower-cases to an ASCII "k", U+0130 to "i" plus a combining dot).
 */
const ALPHABET: readonly string[] = [
  ..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
  ...".....-----",
  "cluster.local",
  "svc",
  "xn--",
  "*",
  "?",
  " ",
  "\t",
  "\n",
  "\r",
  "\u0000",
  "\u001b",
  "\u007f",
  "\u0085",
  ..."{}#;\"\\$'()|<>`,/@",
  ..."_:[]%!+=&~^",
  "\u00fc",
  "\u0430",
  "\u200d",
  "\u3002",
  "\u212a",
  "\u0130",
  "\u00a0",
  "\u2028",
  "\u{1f600}",
];

function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[Math.floor(random() * items.length)];
  if (item === undefined) throw new Error("empty list");
  return item;
}

function hostileString(random: () => number): string {
  const length = Math.floor(random() * 40);
  let text = "";
  for (let i = 0; i < length; i++) text += pick(random, ALPHABET);
  return text;
}

/** Mostly well-formed names with one random piece spliced in, so that many are accepted. */
function nearlyValidName(random: () => number): string {
  const labels = Array.from({ length: 1 + Math.floor(random() * 4) }, () => {
    let label = "";
    const length = 1 + Math.floor(random() * (random() < 0.05 ? 70 : 10));
    for (let i = 0; i < length; i++) label += pick(random, [..."abcXYZ019-"]);
    return label;
  });
  let name = labels.join(".");
  if (random() < 0.5) {
    const at = Math.floor(random() * (name.length + 1));
    name = name.slice(0, at) + pick(random, ALPHABET) + name.slice(at);
  }
  if (random() < 0.2) name += ".";
  if (random() < 0.1) name = ` ${name} `;
  return name;
}

function assertSafeAcceptedHost(raw: string, host: string): void {
  const why = `raw ${JSON.stringify(raw)} gave ${JSON.stringify(host)}`;
  assert.match(host, /^[a-z0-9.-]+$/, why);
  const labels = host.split(".");
  assert.ok(labels.length >= 2, `fewer than two labels: ${why}`);
  assert.ok(host.length <= 253, `too long: ${why}`);
  for (const label of labels) {
    assert.ok(label.length >= 1 && label.length <= 63, `label length: ${why}`);
    assert.ok(!label.startsWith("-") && !label.endsWith("-"), `label hyphen: ${why}`);
  }
  assert.ok(!/^[0-9]+$/.test(labels[labels.length - 1] ?? ""), `numeric last label: ${why}`);
  assert.ok(host !== CLUSTER && !host.endsWith(`.${CLUSTER}`), `under the cluster domain: ${why}`);
}

Deno.test("property: random hostile strings never yield an accepted host outside [a-z0-9.-] or with one label (T-3.1)", () => {
  const tally = { accepted: 0, dropped: 0, rejected: 0, wildcard: 0 };
  const reasons = new Set<string>();
  for (const seed of SEEDS) {
    const random = prng(seed);
    for (let i = 0; i < CASES_PER_SEED; i++) {
      const raw = random() < 0.5 ? hostileString(random) : nearlyValidName(random);
      const check = checkHostname(raw, { clusterDomain: CLUSTER });
      tally[check.kind]++;
      if (check.kind === "accepted") {
        assertSafeAcceptedHost(raw, check.host);
        assert.deepEqual(
          checkHostname(check.host, { clusterDomain: CLUSTER }),
          check,
          `not a fixed point (seed ${seed}, case ${i})`,
        );
      } else if (check.kind === "rejected") {
        reasons.add(check.reason);
        assert.match(check.text, /^[\u0020-\u007e]+$/, `text echoes raw input (seed ${seed}, case ${i})`);
      }
    }
  }
  // Guard against a vacuous pass: the generators must reach every outcome often.
  const total = SEEDS.length * CASES_PER_SEED;
  const { wildcard, ...outcomes } = tally;
  for (const [kind, count] of Object.entries(outcomes)) {
    assert.ok(count > total / 100, `only ${count} of ${total} cases were ${kind}`);
  }
  assert.equal(wildcard, 0, "without the wildcards option nothing is a wildcard");
  assert.ok(reasons.size >= 10, `only these reasons were reached: ${[...reasons].join(", ")}`);
});

Deno.test("property: the desired set of random objects is sorted, unique and made only of safe hosts", () => {
  for (const seed of SEEDS) {
    const random = prng(seed);
    const ingresses = Array.from({ length: 30 }, (_, index) =>
      ingress(`ns/web${index}`, {
        tls: Array.from({ length: Math.floor(random() * 5) }, () => nearlyValidName(random)),
        rules: Array.from({ length: Math.floor(random() * 3) }, () => hostileString(random)),
      }));
    const desired = desiredHostnames({ ingresses, gateways: [], routes: [] }, {
      clusterDomain: CLUSTER,
      ingressHosts: "all",
    });
    for (const host of desired.hosts) assertSafeAcceptedHost(host, host);
    assert.deepEqual(desired.hosts, [...new Set(desired.hosts)].sort(), `seed ${seed}`);
    for (const entry of desired.rejected) {
      assert.equal(checkHostname(entry.value, { clusterDomain: CLUSTER }).kind, "rejected");
    }
  }
});

Deno.test("property: a logged value is printable ASCII and decodes back to the value (T-3.8)", () => {
  for (const seed of SEEDS) {
    const random = prng(seed);
    for (let i = 0; i < CASES_PER_SEED; i++) {
      const value = hostileString(random);
      const formatted = formatLoggedValue(value);
      assert.match(formatted, /^[\u0020-\u007e]*$/, JSON.stringify(value));
      assert.equal(JSON.parse(formatted), value);
    }
  }
});

Deno.test("property: with wildcards, only '*.' before an acceptable name is a wildcard, and its domain is that name", () => {
  const tally = { accepted: 0, dropped: 0, rejected: 0, wildcard: 0 };
  const options = { clusterDomain: CLUSTER, wildcards: true } as const;
  for (const seed of SEEDS) {
    const random = prng(seed);
    for (let i = 0; i < CASES_PER_SEED; i++) {
      const tail = random() < 0.3 ? hostileString(random) : nearlyValidName(random);
      const head = pick(random, ["*.", "*.", "*.", "*", "**.", "*a.", "?.", "a.*.", "", " *."]);
      const raw = head + tail;
      const check = checkHostname(raw, options);
      tally[check.kind]++;
      const why = `seed ${seed}, case ${i}: ${JSON.stringify(raw)}`;
      if (check.kind === "wildcard") {
        assert.equal(check.host, `*.${check.domain}`, why);
        assertSafeAcceptedHost(raw, check.domain);
        assert.ok(check.host.length <= 253, why);
        assert.deepEqual(checkHostname(check.domain, options), { kind: "accepted", host: check.domain }, why);
        assert.deepEqual(checkHostname(check.host, options), check, `not a fixed point: ${why}`);
        assert.equal(checkHostname(raw, { clusterDomain: CLUSTER }).kind, "dropped", `skip drops it: ${why}`);
      } else if (check.kind === "accepted") {
        assertSafeAcceptedHost(raw, check.host);
      } else if (check.kind === "rejected") {
        assert.match(check.text, /^[\u0020-\u007e]+$/, `text echoes raw input: ${why}`);
      }
      // The reference: '*.' (after padding) before a name the exact check accepts is a wildcard,
      // unless the whole is too long; nothing else is.
      const trimmed = raw.replace(/^[ \t]+|[ \t]+$/g, "");
      const rest = trimmed.startsWith("*.") ? trimmed.slice(2) : undefined;
      const inner = rest === undefined || /[*? \t]/.test(rest)
        ? undefined
        : checkHostname(rest, { clusterDomain: CLUSTER });
      const expected = inner?.kind === "accepted" && inner.host.length + 2 <= 253;
      assert.equal(check.kind === "wildcard", expected, `reference disagrees: ${why}`);
    }
  }
  const total = SEEDS.length * CASES_PER_SEED;
  for (const kind of ["accepted", "rejected", "wildcard"] as const) {
    assert.ok(tally[kind] > total / 100, `only ${tally[kind]} of ${total} cases were ${kind}`);
  }
});
