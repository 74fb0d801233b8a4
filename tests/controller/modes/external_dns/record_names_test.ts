import assert from "node:assert/strict";
import {
  dnsEndpointName,
  recordNames,
  serviceName,
} from "../../../../lib/controller/modes/external_dns/record_names.ts";
import { prng } from "../../../support/random.ts";
import { DNS1035_LABEL, DNS1123_SUBDOMAIN } from "./support.ts";

/** A hostname of exactly `length` characters, in labels of up to 63, made of `fill`. */
function longHost(length: number, fill = "a"): string {
  const labels: string[] = [];
  let left = length;
  while (left > 0) {
    const size = Math.min(63, left === 64 ? 62 : left);
    labels.push(fill.repeat(size));
    left -= size + 1;
  }
  const host = labels.join(".");
  assert.equal(host.length, length, "test helper built the wrong length");
  return host;
}

function assertServiceName(name: string): void {
  assert.ok(name.length <= 63, `${name} has ${name.length} characters`);
  assert.match(name, DNS1035_LABEL);
}

function assertDnsEndpointName(name: string): void {
  assert.ok(name.length <= 253, `${name} has ${name.length} characters`);
  assert.match(name, DNS1123_SUBDOMAIN);
}

Deno.test("names read like the hostname and end with a hash (and the family for DNSEndpoints)", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["service", serviceName("shop.example.com"), /^ouroboros-shop-example-com-[0-9a-f]{12}$/],
    ["A record", dnsEndpointName("shop.example.com", 4), /^ouroboros-shop-example-com-[0-9a-f]{12}-v4$/],
    ["AAAA record", dnsEndpointName("shop.example.com", 6), /^ouroboros-shop-example-com-[0-9a-f]{12}-v6$/],
    ["underscore", serviceName("_acme.example.com"), /^ouroboros-acme-example-com-[0-9a-f]{12}$/],
  ];
  for (const [name, actual, pattern] of cases) {
    await t.step(name, () => assert.match(actual, pattern));
  }
  assert.equal(
    dnsEndpointName("shop.example.com", 4).slice(0, -3),
    dnsEndpointName("shop.example.com", 6).slice(0, -3),
    "both families share the stem, so a person sees they belong together",
  );
});

Deno.test("names are deterministic: the same hostname always gives the same names", () => {
  for (const host of ["a.example.com", longHost(253), "x_y.example.org"]) {
    assert.equal(serviceName(host), serviceName(String(host)));
    assert.equal(dnsEndpointName(host, 4), dnsEndpointName(`${host}`, 4));
    assert.deepEqual(recordNames(host, "crd"), [dnsEndpointName(host, 4), dnsEndpointName(host, 6)]);
    assert.deepEqual(recordNames(host, "service"), [serviceName(host)]);
  }
  // Pinned (hash from Python's hashlib), so a change of the naming scheme, which would orphan every
  // published record, is noticed.
  assert.equal(serviceName("shop.example.com"), "ouroboros-shop-example-com-951623a26f8b");
  // A hostname that fails to build still has its names computed (to keep its records): the hash
  // is of its UTF-8 bytes (pinned from Python's hashlib too).
  assert.equal(serviceName("bücher.example"), "ouroboros-b-cher-example-c6b737c4a99b");
  // A wildcard's readable part says so; its hash is of the exact text as for any hostname.
  assert.equal(
    dnsEndpointName("*.Shop.example.com", 6),
    "ouroboros-wildcard-shop-example-com-fdb64804540c-v6",
  );
});

Deno.test("hostnames the original folded onto one name get distinct names", async (t) => {
  const groups: [string, string[]][] = [
    ["dot, dash, underscore", ["a.b.com", "a-b.com", "a_b.com"]],
    ["runs of separators", ["a..b.com", "a.-b.com", "a--b.com", "a-.b.com"]],
    ["leading separator", ["-a.com", "a.com", "_a.com"]],
    ["differ only past the readable budget", [longHost(240) + ".x.com", longHost(240) + ".y.com"]],
  ];
  for (const [name, hosts] of groups) {
    await t.step(name, () => {
      for (
        const make of [
          serviceName,
          (h: string) => dnsEndpointName(h, 4),
          (h: string) => dnsEndpointName(h, 6),
        ]
      ) {
        const names = hosts.map(make);
        assert.equal(new Set(names).size, hosts.length, names.join(" "));
      }
    });
  }
});

Deno.test("names stay valid for their kind for hostnames of every length up to 253", () => {
  for (const length of [1, 2, 40, 41, 52, 53, 54, 63, 64, 100, 127, 200, 226, 227, 228, 252, 253]) {
    const host = longHost(length);
    assertServiceName(serviceName(host));
    assertDnsEndpointName(dnsEndpointName(host, 4));
    assertDnsEndpointName(dnsEndpointName(host, 6));
  }
  assert.equal(serviceName(longHost(253)).length, 63, "a long hostname fills the Service name budget");
});

Deno.test("names are valid even when the hostname has nothing readable", async (t) => {
  for (const host of ["", "...", "___", "-", "*.example.com", "UPPER.Example.COM"]) {
    await t.step(JSON.stringify(host), () => {
      assertServiceName(serviceName(host));
      assertDnsEndpointName(dnsEndpointName(host, 4));
    });
  }
  assert.match(serviceName("..."), /^ouroboros-[0-9a-f]{12}$/);
  assert.notEqual(serviceName("..."), serviceName("___"));
});

Deno.test("property: 5,000 random hostnames give valid names and no two share one", () => {
  const random = prng(20_253);
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_.";
  const hosts = new Set<string>();
  while (hosts.size < 5_000) {
    const length = 1 + Math.floor(random() * (random() < 0.2 ? 253 : 20));
    let host = "";
    for (let i = 0; i < length; i++) host += alphabet[Math.floor(random() * alphabet.length)];
    hosts.add(host);
  }
  const services = new Set<string>();
  const endpoints = new Set<string>();
  for (const host of hosts) {
    const service = serviceName(host);
    assertServiceName(service);
    services.add(service);
    for (const family of [4, 6] as const) {
      const endpoint = dnsEndpointName(host, family);
      assertDnsEndpointName(endpoint);
      endpoints.add(endpoint);
    }
  }
  assert.equal(services.size, hosts.size);
  assert.equal(endpoints.size, hosts.size * 2);
});
