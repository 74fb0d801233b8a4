/** Which Records entries take effect, and the problem line for each that does not. */

import assert from "node:assert/strict";
import { acceptRecordsEntries, labelsMatch } from "../../../lib/dns/answer/records_entries.ts";
import { type EntryFixture, records } from "./fixtures.ts";

function check(entry: EntryFixture | Record<string, unknown>, namespace = "shop") {
  return acceptRecordsEntries([records(namespace, "egress", [entry])]);
}

Deno.test("acceptRecordsEntries: a manager entry is normalised (name case and dot, address spelling, duplicates)", () => {
  const { entries, problems } = check({
    labels: { app: "web" },
    hostname: " API.Example.COM. ",
    ips: ["192.0.2.1", "2001:DB8:0:0::1", "192.0.2.1", " 192.0.2.2 "],
  });
  assert.deepEqual(problems, []);
  assert.deepEqual(entries, [{
    records: "shop/egress",
    index: 0,
    namespace: "shop",
    labels: { app: "web" },
    forwardType: "manager",
    hostname: "api.example.com",
    ipv4: ["192.0.2.1", "192.0.2.2"],
    ipv6: ["2001:db8::1"],
  }]);
});

Deno.test("acceptRecordsEntries: a proxy entry needs no hostname or addresses (they are not used)", () => {
  const { entries, problems } = check({ labels: { app: "egress" }, type: "proxy", ips: ["not checked"] });
  assert.deepEqual(problems, []);
  assert.deepEqual(entries.map((entry) => [entry.forwardType, entry.hostname, entry.ipv4]), [[
    "proxy",
    "",
    [],
  ]]);
});

Deno.test("acceptRecordsEntries: names under the cluster domain are allowed (the entry only answers its own pods)", () => {
  const { entries, problems } = check({ hostname: "db.data.svc.cluster.local", ips: ["10.0.0.5"] });
  assert.deepEqual(problems, []);
  assert.equal(entries[0]?.hostname, "db.data.svc.cluster.local");
});

Deno.test("acceptRecordsEntries: each problem names the object, the entry, what is wrong and what is accepted", () => {
  const cases: [string, EntryFixture | Record<string, unknown>, string | string[], boolean][] = [
    [
      "an unknown forward type",
      { hostname: "a.example.com", ips: ["192.0.2.1"], type: "forward" },
      'forward-type "forward" is not known (accepted: manager, proxy); the entry is ignored',
      false,
    ],
    [
      "no forward type",
      { hostname: "a.example.com", "ip-addresses": ["192.0.2.1"] },
      "forward-type is missing (accepted: manager, proxy); the entry is ignored",
      false,
    ],
    [
      "a wildcard",
      { hostname: "*.example.com", ips: ["192.0.2.1"] },
      'hostname "*.example.com" is a wildcard (accepted: an exact DNS name of two labels or more, like api.example.com); the entry is ignored',
      false,
    ],
    [
      "one label",
      { hostname: "db", ips: ["192.0.2.1"] },
      'hostname "db" has a single label; only names with a dot can be public hostnames (accepted: an exact DNS name of two labels or more, like api.example.com); the entry is ignored',
      false,
    ],
    [
      "a line break",
      { hostname: "a.example.com\nevil", ips: ["192.0.2.1"] },
      'hostname "a.example.com\\nevil" contains the control character U+000A (accepted: an exact DNS name of two labels or more, like api.example.com); the entry is ignored',
      false,
    ],
    ["no hostname", { ips: ["192.0.2.1"] }, "hostname is missing; the entry is ignored", false],
    [
      "one bad address of two",
      { hostname: "a.example.com", ips: ["192.0.2.1", "192.0.2.300"] },
      'ip-addresses[1] "192.0.2.300" is not an IP address (accepted: IPv4 like 192.0.2.10 or IPv6 like 2001:db8::10); the address is left out',
      true,
    ],
    [
      "no address at all",
      { hostname: "a.example.com" },
      "ip-addresses is empty; a manager entry needs at least one address; the entry is ignored",
      false,
    ],
    [
      "only bad addresses",
      { hostname: "a.example.com", ips: ["a.example.com"] },
      [
        'ip-addresses[0] "a.example.com" is not an IP address (accepted: IPv4 like 192.0.2.10 or IPv6 like 2001:db8::10); the address is left out',
        "no ip-address is valid; the entry is ignored",
      ],
      false,
    ],
    [
      "namespaces without its own",
      { hostname: "a.example.com", ips: ["192.0.2.1"], namespaces: ["blog"] },
      `namespaces lists "blog" but not shop: an entry applies only to its Records' own namespace (shop); for another namespace, create a Records object there; the entry is ignored`,
      false,
    ],
    [
      "namespaces with its own and others",
      { hostname: "a.example.com", ips: ["192.0.2.1"], namespaces: ["shop", "test", "test"] },
      `namespaces also lists "test", which is not honoured: an entry applies only to its Records' own namespace (shop); for another namespace, create a Records object there`,
      true,
    ],
  ];
  for (const [name, entry, problem, kept] of cases) {
    const { entries, problems } = check(entry);
    const expected = (Array.isArray(problem) ? problem : [problem]).map((text) =>
      `Records shop/egress spec.a[0]: ${text}`
    );
    assert.deepEqual(problems, expected, name);
    assert.equal(entries.length, kept ? 1 : 0, name);
  }
});

Deno.test("acceptRecordsEntries: namespaces naming only its own, or empty, is no problem", () => {
  for (const namespaces of [["shop"], []]) {
    const { entries, problems } = check({ hostname: "a.example.com", ips: ["192.0.2.1"], namespaces });
    assert.deepEqual(problems, []);
    assert.equal(entries.length, 1);
  }
});

Deno.test("acceptRecordsEntries: forward-type is read without regard to case", () => {
  const { entries } = check({ type: "Proxy" });
  assert.equal(entries[0]?.forwardType, "proxy");
});

Deno.test("acceptRecordsEntries: decoding problems come through, named by object", () => {
  const { entries, problems } = acceptRecordsEntries([
    records("shop", "egress", [{ labels: "app=web", hostname: "a.example.com" }, {
      hostname: "b.example.com",
      ips: ["192.0.2.1"],
    }]),
  ]);
  assert.deepEqual(problems, [
    "Records shop/egress: spec.a[0].labels is a string, not a map; the entry is ignored",
  ]);
  assert.deepEqual(entries.map((entry) => [entry.index, entry.hostname]), [[1, "b.example.com"]]);
});

Deno.test("labelsMatch: every selector label, same value; an empty selector matches all", () => {
  assert.equal(labelsMatch({}, {}), true);
  assert.equal(labelsMatch({}, { app: "web" }), true);
  assert.equal(labelsMatch({ app: "web" }, { app: "web", tier: "x" }), true);
  assert.equal(labelsMatch({ app: "web" }, { app: "api" }), false);
  assert.equal(labelsMatch({ app: "web", tier: "x" }, { app: "web" }), false);
  assert.equal(labelsMatch({ app: "" }, {}), false, "a selector for an empty value needs the label present");
  assert.equal(labelsMatch({ toString: "x" }, {}), false, "inherited names are not labels");
});
