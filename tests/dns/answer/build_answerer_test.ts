/**
 * The answer planning: the four steps in their order (par manager Records, par proxy, hairpin,
 * forward), families, case, clients that are not pods, and a property test against a plain
 * reading of the rules.
 */

import assert from "node:assert/strict";
import { type AnswerInputs, buildAnswerer } from "../../../lib/dns/answer/build_answerer.ts";
import type { LocalDecision } from "../../../lib/dns/local_answer.ts";
import { prng } from "../../support/random.ts";
import { pod, records } from "./fixtures.ts";

const PODS = [
  pod({ name: "web-1", labels: { app: "web" }, ips: ["10.244.1.10", "fd00:10:244:1::a"] }),
  pod({ name: "api-1", labels: { app: "api" }, ips: ["10.244.1.11"] }),
  pod({ name: "egress-1", labels: { app: "egress", tier: "x" }, ips: ["10.244.1.12"] }),
  pod({ name: "other-1", namespace: "blog", labels: { app: "web" }, ips: ["10.244.3.3"] }),
  pod({ name: "node-agent", labels: { app: "web" }, ips: ["192.168.1.5"], hostNetwork: true }),
  pod({ name: "proxy-1", namespace: "par", labels: { "par.dev/proxy": "true" }, ips: ["10.244.2.2"] }),
  pod({ name: "batch-1", namespace: "par", labels: { job: "batch" }, ips: ["10.244.2.3"] }),
];

const RECORDS = [
  records("shop", "egress", [
    { labels: { app: "web" }, hostname: "Pay.Example.com.", ips: ["192.0.2.1", "2001:DB8::1", "192.0.2.1"] },
    { labels: { app: "web" }, hostname: "pay.example.com", ips: ["192.0.2.2"] },
    { hostname: "all.example.com", ips: ["192.0.2.9"] },
    { labels: { app: "egress" }, type: "proxy" },
    { labels: { app: "egress" }, hostname: "internal.example.com", ips: ["192.0.2.5"] },
    { labels: { app: "web" }, hostname: "v6only.example.com", ips: ["2001:db8::6"] },
  ]),
  records("par", "everyone", [{ type: "proxy" }]),
];

const INPUTS: AnswerInputs = {
  pods: PODS,
  records: RECORDS,
  hairpinHosts: ["shop.example.com", "pay.example.com", "internal.example.com"],
  proxyAddresses: ["10.96.0.10", "FD00::10"],
  parProxyAddresses: ["10.96.0.20"],
  parNamespace: "par",
  ttl: 30,
};

function local(source: "records" | "par-proxy" | "hairpin", addresses: string[]): LocalDecision {
  return { kind: "local", source, ttl: 30, addresses };
}
const FORWARD: LocalDecision = { kind: "forward" };

Deno.test("buildAnswerer: the four steps in order, per client, per family", async (t) => {
  const { answer, problems } = buildAnswerer(INPUTS);
  assert.deepEqual(problems, []);
  const records = (...addresses: string[]) => local("records", addresses);
  const hairpin = (...addresses: string[]) => local("hairpin", addresses);
  const parProxy = (...addresses: string[]) => local("par-proxy", addresses);
  /** [why, "<type> <name> from <client>", expected] */
  const cases: [string, string, LocalDecision][] = [
    [
      "manager: A, the IPv4 addresses of every matching entry, once each",
      "A pay.example.com from 10.244.1.10",
      records("192.0.2.1", "192.0.2.2"),
    ],
    [
      "manager: AAAA, the IPv6 ones, in RFC 5952 form",
      "AAAA pay.example.com from 10.244.1.10",
      records("2001:db8::1"),
    ],
    ["manager: another type is NOERROR without data", "MX pay.example.com from 10.244.1.10", records()],
    ["manager, IPv6 only: A is NODATA, not forwarded", "A v6only.example.com from 10.244.1.10", records()],
    [
      "the same pod over IPv6 is the same client",
      "A pay.example.com from fd00:10:244:1::a",
      records("192.0.2.1", "192.0.2.2"),
    ],
    ["Records win over hairpin for the pods they select", "TXT pay.example.com from 10.244.1.10", records()],
    [
      "a pod the entry does not select gets the hairpin answer",
      "A pay.example.com from 10.244.1.11",
      hairpin("10.96.0.10"),
    ],
    ["hairpin AAAA: the proxy's IPv6 address", "AAAA shop.example.com from 10.244.1.11", hairpin("fd00::10")],
    ["hairpin, another type: NOERROR without data", "TYPE65 shop.example.com from 10.244.1.11", hairpin()],
    [
      "empty labels select every pod of the Records' namespace",
      "A all.example.com from 10.244.1.11",
      records("192.0.2.9"),
    ],
    ["but no pod of another namespace", "A all.example.com from 10.244.3.3", FORWARD],
    [
      "nor one with the same labels in another namespace",
      "A pay.example.com from 10.244.3.3",
      hairpin("10.96.0.10"),
    ],
    [
      "proxy entry: every A of its clients goes to the par proxy",
      "A x.example.org from 10.244.1.12",
      parProxy("10.96.0.20"),
    ],
    [
      "proxy entry: AAAA, the par proxy's IPv6 addresses (none: NODATA)",
      "AAAA x.example.org from 10.244.1.12",
      parProxy(),
    ],
    ["proxy entry: other types are forwarded", "MX x.example.org from 10.244.1.12", FORWARD],
    ["proxy entry: over hairpin too", "A shop.example.com from 10.244.1.12", parProxy("10.96.0.20")],
    [
      "a manager entry selecting a proxied pod comes first",
      "A internal.example.com from 10.244.1.12",
      records("192.0.2.5"),
    ],
    ["par's own proxy pods resolve normally", "A x.example.org from 10.244.2.2", FORWARD],
    [
      "par's proxy pods still get hairpin answers",
      "A shop.example.com from 10.244.2.2",
      hairpin("10.96.0.10"),
    ],
    [
      "other pods of the par namespace, proxied by an entry there",
      "A x.example.org from 10.244.2.3",
      parProxy("10.96.0.20"),
    ],
    ["a name nobody answers is forwarded", "A example.net from 10.244.1.10", FORWARD],
    [
      "a source that is no pod is forwarded, hairpinned name or not",
      "A shop.example.com from 10.0.0.99",
      FORWARD,
    ],
    ["a host-network pod's address names no pod: forwarded", "A pay.example.com from 192.168.1.5", FORWARD],
  ];
  for (const [why, ask, expected] of cases) {
    const [type = "", name = "", , client = ""] = ask.split(" ");
    await t.step(why, () => assert.deepEqual(answer({ name, type }, client), expected));
  }
});

Deno.test("buildAnswerer: names match whatever their case or trailing dot, on both sides", () => {
  const { answer } = buildAnswerer({ ...INPUTS, hairpinHosts: ["Shop.Example.COM."] });
  for (const name of ["shop.example.com", "SHOP.example.com", "shop.example.com."]) {
    assert.deepEqual(answer({ name, type: "A" }, "10.244.1.11"), local("hairpin", ["10.96.0.10"]), name);
  }
  assert.deepEqual(
    answer({ name: "PAY.EXAMPLE.COM", type: "A" }, "10.244.1.10"),
    local("records", ["192.0.2.1", "192.0.2.2"]),
  );
});

Deno.test("buildAnswerer: without a par proxy address, proxied clients fall through to hairpin, then forward", () => {
  const { answer } = buildAnswerer({ ...INPUTS, parProxyAddresses: [] });
  assert.deepEqual(
    answer({ name: "shop.example.com", type: "A" }, "10.244.1.12"),
    local("hairpin", ["10.96.0.10"]),
  );
  assert.deepEqual(answer({ name: "anything.example.org", type: "A" }, "10.244.1.12"), FORWARD);
});

Deno.test("buildAnswerer: without a hairpin proxy address, hairpinned names are forwarded, not emptied", () => {
  const { answer } = buildAnswerer({ ...INPUTS, proxyAddresses: [] });
  assert.deepEqual(answer({ name: "shop.example.com", type: "A" }, "10.244.1.11"), FORWARD);
  assert.deepEqual(answer({ name: "shop.example.com", type: "MX" }, "10.244.1.11"), FORWARD);
});

Deno.test("buildAnswerer: the answer carries the TTL asked for", () => {
  const { answer } = buildAnswerer({ ...INPUTS, ttl: 5 });
  assert.deepEqual(answer({ name: "shop.example.com", type: "A" }, "10.244.1.11"), {
    kind: "local",
    source: "hairpin",
    ttl: 5,
    addresses: ["10.96.0.10"],
  });
});

Deno.test("buildAnswerer: one address claimed by two pods belongs to the Running one, then the newer", () => {
  const ip = "10.244.9.9";
  const old = pod({ name: "old", labels: { app: "web" }, ips: [ip], created: "2026-01-01T00:00:00Z" });
  const fresh = pod({ name: "fresh", labels: { app: "api" }, ips: [ip], created: "2026-01-02T00:00:00Z" });
  const pending = pod({
    name: "pending",
    labels: { app: "web" },
    ips: [ip],
    phase: "Pending",
    created: "2026-01-03T00:00:00Z",
  });
  const done = pod({
    name: "done",
    labels: { app: "web" },
    ips: [ip],
    phase: "Succeeded",
    created: "2026-01-04T00:00:00Z",
  });
  const question = { name: "pay.example.com", type: "A" };
  const web = local("records", ["192.0.2.1", "192.0.2.2"]);
  const api = local("hairpin", ["10.96.0.10"]);
  for (
    const [pods, expected, why] of [
      [[old, fresh], api, "the newer Running pod (api) wins"],
      [[fresh, old], api, "whatever the list order"],
      [[old, pending], web, "a Running pod wins over a newer Pending one"],
      [[done], FORWARD, "a finished pod is nobody's client"],
      [[pending], web, "a Pending pod with an address is a client"],
    ] as const
  ) {
    const { answer } = buildAnswerer({ ...INPUTS, pods });
    assert.deepEqual(answer(question, ip), expected, why);
  }
});

Deno.test("buildAnswerer: pod addresses are matched in canonical form (podIP alone, upper-case IPv6)", () => {
  const pods = [
    pod({ name: "a", labels: { app: "web" }, podIP: "10.244.5.5" }),
    pod({ name: "b", labels: { app: "web" }, ips: ["FD00:0:0:0:0:0:0:B"] }),
  ];
  const { answer } = buildAnswerer({ ...INPUTS, pods });
  const web = local("records", ["192.0.2.1", "192.0.2.2"]);
  assert.deepEqual(answer({ name: "pay.example.com", type: "A" }, "10.244.5.5"), web);
  assert.deepEqual(answer({ name: "pay.example.com", type: "A" }, "fd00::b"), web);
});

Deno.test("buildAnswerer: Records problems are returned, the valid entries still answer", () => {
  const { answer, problems } = buildAnswerer({
    ...INPUTS,
    records: [
      records("shop", "broken", [
        { labels: { app: "web" }, hostname: "ok.example.com", ips: ["192.0.2.7", "not-an-ip"] },
        { labels: { app: "web" }, hostname: "bad.example.com", ips: ["192.0.2.8"], type: "forward" },
      ]),
    ],
  });
  assert.deepEqual(
    answer({ name: "ok.example.com", type: "A" }, "10.244.1.10"),
    local("records", ["192.0.2.7"]),
  );
  assert.deepEqual(answer({ name: "bad.example.com", type: "A" }, "10.244.1.10"), FORWARD);
  assert.equal(problems.length, 2);
  assert.match(
    problems[0]!,
    /^Records shop\/broken spec\.a\[0\]: ip-addresses\[1\] "not-an-ip" is not an IP address/,
  );
  assert.match(
    problems[1]!,
    /^Records shop\/broken spec\.a\[1\]: forward-type "forward" is not known \(accepted: manager, proxy\)/,
  );
});

/** The rules read plainly, one linear scan per question: the model the indexed answerer must agree with. */
function reference(
  inputs: AnswerInputs,
  question: { name: string; type: string },
  client: string,
): LocalDecision {
  const live = inputs.pods.filter((p) =>
    !p.spec.hostNetwork && p.status.phase !== "Succeeded" && p.status.phase !== "Failed"
  );
  const owner = live.find((p) => p.status.podIPs.includes(client));
  if (owner === undefined) return FORWARD;
  const name = question.name.toLowerCase().replace(/\.$/, "");
  const family = (ip: string) => (ip.includes(":") ? "AAAA" : "A");
  const pick = (source: "records" | "par-proxy" | "hairpin", addresses: readonly string[]) =>
    local(
      source,
      question.type === "A" || question.type === "AAAA"
        ? addresses.filter((ip) => family(ip) === question.type)
        : [],
    );
  const selects = (labels: Readonly<Record<string, string>>) =>
    Object.entries(labels).every(([key, value]) => owner.metadata.labels[key] === value);
  const entries = inputs.records.filter((r) => r.metadata.namespace === owner.metadata.namespace).flatMap((
    r,
  ) => r.spec.a)
    .filter((entry) => selects(entry.labels));
  const manager = entries.filter((entry) =>
    entry.forwardType === "manager" && entry.hostname.toLowerCase() === name
  );
  if (manager.length > 0) return pick("records", [...new Set(manager.flatMap((entry) => entry.ipAddresses))]);
  const parProxyPod = owner.metadata.namespace === inputs.parNamespace &&
    owner.metadata.labels["par.dev/proxy"] === "true";
  if (
    !parProxyPod && inputs.parProxyAddresses.length > 0 &&
    entries.some((entry) => entry.forwardType === "proxy")
  ) {
    return question.type === "A" || question.type === "AAAA"
      ? pick("par-proxy", inputs.parProxyAddresses)
      : FORWARD;
  }
  if (inputs.proxyAddresses.length > 0 && inputs.hairpinHosts.includes(name)) {
    return pick("hairpin", inputs.proxyAddresses);
  }
  return FORWARD;
}

Deno.test("buildAnswerer agrees with a plain reading of the rules on random clusters (property, seeded)", () => {
  const random = prng(1313);
  const choose = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
  const NAMES = ["a.example.com", "b.example.com", "c.example.org", "d.example.net"];
  const LABELS = [{}, { app: "web" }, { app: "api" }, { app: "web", tier: "front" }, {
    "par.dev/proxy": "true",
  }];
  const NAMESPACES = ["shop", "blog", "par"];
  const V4 = ["192.0.2.1", "192.0.2.2", "198.51.100.3"];
  const V6 = ["2001:db8::1", "2001:db8::2"];
  for (let round = 0; round < 300; round++) {
    const pods = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) =>
      pod({
        name: `p${i}`,
        namespace: choose(NAMESPACES),
        labels: choose(LABELS),
        ips: random() < 0.5 ? [`10.244.0.${i}`] : [`10.244.0.${i}`, `fd00::${i + 1}`],
        hostNetwork: random() < 0.1,
        phase: choose(["Running", "Running", "Pending", "Failed"]),
      }));
    const recordObjects = NAMESPACES.filter(() => random() < 0.7).map((namespace) =>
      records(
        namespace,
        "r",
        Array.from({ length: Math.floor(random() * 4) }, () => ({
          labels: choose(LABELS),
          hostname: choose(NAMES),
          ips: [choose(V4), ...(random() < 0.5 ? [choose(V6)] : [])],
          type: random() < 0.25 ? "proxy" : "manager",
        })),
      )
    );
    const inputs: AnswerInputs = {
      pods,
      records: recordObjects,
      hairpinHosts: NAMES.filter(() => random() < 0.4),
      proxyAddresses: random() < 0.8 ? ["10.96.0.10", "fd00::10"].filter(() => random() < 0.8) : [],
      parProxyAddresses: random() < 0.7 ? ["10.96.0.20", "fd00::20"].filter(() => random() < 0.7) : [],
      parNamespace: "par",
      ttl: 30,
    };
    const { answer, problems } = buildAnswerer(inputs);
    assert.deepEqual(problems, []);
    const clients = [...pods.flatMap((p) => p.status.podIPs), "10.0.0.1"];
    for (const client of clients) {
      for (const name of [...NAMES, "unknown.example"]) {
        for (const type of ["A", "AAAA", "MX"]) {
          const question = { name: random() < 0.3 ? name.toUpperCase() : name, type };
          const got = answer(question, client);
          assert.deepEqual(
            got,
            reference(inputs, question, client),
            `round ${round}: ${type} ${name} from ${client}`,
          );
          if (got.kind === "local") {
            const wrongFamily = got.addresses.filter((
              ip,
            ) => (type === "A" ? ip.includes(":") : !ip.includes(":")));
            assert.deepEqual(type === "MX" ? got.addresses : wrongFamily, [], "only the question's family");
          }
        }
      }
    }
  }
});

Deno.test("buildAnswerer: a hairpinned wildcard answers exactly one label under its domain; exact names and Records win", () => {
  const { answer } = buildAnswerer({
    ...INPUTS,
    hairpinHosts: ["*.example.com", "*.Apps.Example.com.", "shop.example.com"],
  });
  const from = "10.244.1.11";
  const hairpin = local("hairpin", ["10.96.0.10"]);
  for (
    const name of ["anything.example.com", "SHOP.example.com.", "x.apps.example.com", "apps.example.com"]
  ) {
    assert.deepEqual(answer({ name, type: "A" }, from), hairpin, name);
  }
  for (const name of ["example.com", "a.b.example.com", "x.y.apps.example.com", "a.example.org"]) {
    assert.deepEqual(answer({ name, type: "A" }, from), FORWARD, name);
  }
  assert.deepEqual(answer({ name: "x.example.com", type: "AAAA" }, from), local("hairpin", ["fd00::10"]));
  assert.deepEqual(answer({ name: "x.example.com", type: "MX" }, from), local("hairpin", []));
  // A Records manager entry for a name the wildcard covers still answers first for the pods it selects.
  assert.deepEqual(
    answer({ name: "pay.example.com", type: "A" }, "10.244.1.10"),
    local("records", ["192.0.2.1", "192.0.2.2"]),
  );
});
