/**
 * The pure parts of the BIND and external-dns helpers of the real-component suite: the key
 * `tsig-keygen` prints, the configuration named is given, a zone transfer as dig prints it, and
 * external-dns's command line.
 *
 * @module
 */

import assert from "node:assert/strict";
import { namedConf, parseTsigKey, parseZoneTransfer, zoneFile } from "./bind.ts";
import { externalDnsArgs } from "./external_dns.ts";

const KEY_TEXT = `key "named-externaldns" {
\talgorithm hmac-sha256;
\tsecret "t1PRWS5FHMuAn4b2RnoNXuzSJCtXGwP8/OQD2cJq3gw=";
};
`;

Deno.test("parseTsigKey reads tsig-keygen's key block", () => {
  assert.deepEqual(parseTsigKey(KEY_TEXT), {
    name: "named-externaldns",
    algorithm: "hmac-sha256",
    secret: "t1PRWS5FHMuAn4b2RnoNXuzSJCtXGwP8/OQD2cJq3gw=",
  });
  assert.throws(() => parseTsigKey("tsig-keygen: unknown algorithm"), /printed no key/);
});

Deno.test("namedConf allows updates and transfers with the key only, on the one address and port", () => {
  const conf = namedConf({
    dir: "/tmp/x",
    host: "127.0.0.1",
    port: 5353,
    key: parseTsigKey(KEY_TEXT),
    zones: ["example.org", "example.net"],
  });
  assert.match(conf, /listen-on port 5353 \{ 127\.0\.0\.1; \};/);
  assert.match(conf, /listen-on-v6 \{ none; \};/);
  assert.match(conf, /controls \{ \};/);
  assert.equal(conf.match(/allow-update \{ key "named-externaldns"; \};/g)?.length, 2);
  assert.equal(conf.match(/allow-transfer \{ key "named-externaldns"; \};/g)?.length, 2);
  assert.ok(conf.includes('zone "example.net" {\n    type primary;\n    file "/tmp/x/example.net.zone";'));
  assert.ok(zoneFile("example.org", "127.0.0.1").includes("\nns  IN A   127.0.0.1\n"));
});

Deno.test("parseZoneTransfer keeps the records of dig's AXFR output, names without the dot", () => {
  const output = `
; <<>> DiG 9.18 <<>> @127.0.0.1 -p 5353 -y hmac-sha256:k:s example.org AXFR
;; global options: +cmd
example.org.\t\t300\tIN\tSOA\tns.example.org. hostmaster.example.org. 5 60 30 600 5
Shop.example.org.\t120\tIN\tA\t127.96.0.10
a-shop.example.org.\t0\tIN\tTXT\t"heritage=external-dns,external-dns/owner=o,external-dns/resource=crd/ns/x"
;; Query time: 1 msec
`;
  assert.deepEqual(parseZoneTransfer(output).slice(1), [
    { name: "shop.example.org", ttl: 120, type: "A", data: "127.96.0.10" },
    {
      name: "a-shop.example.org",
      ttl: 0,
      type: "TXT",
      data: '"heritage=external-dns,external-dns/owner=o,external-dns/resource=crd/ns/x"',
    },
  ]);
});

Deno.test("externalDnsArgs: rfc2136 with TSIG for updates and AXFR, the TXT registry, each zone, the prefix when given", () => {
  const bind = { host: "127.0.0.1", port: 5353, zones: ["a.test", "b.test"], key: parseTsigKey(KEY_TEXT) };
  const options = {
    account: { namespace: "x", name: "y" },
    sources: ["service" as const],
    ownerId: "public",
  };
  const args = externalDnsArgs(options, bind, "/k", 7000);
  for (
    const expected of [
      "--kubeconfig=/k",
      "--source=service",
      "--provider=rfc2136",
      "--rfc2136-host=127.0.0.1",
      "--rfc2136-port=5353",
      "--rfc2136-zone=a.test",
      "--rfc2136-zone=b.test",
      "--rfc2136-tsig-keyname=named-externaldns",
      "--rfc2136-tsig-secret-alg=hmac-sha256",
      "--rfc2136-tsig-axfr",
      "--registry=txt",
      "--txt-owner-id=public",
      "--metrics-address=127.0.0.1:7000",
    ]
  ) assert.ok(args.includes(expected), `${expected} in ${args.join(" ")}`);
  assert.ok(!args.some((arg) => arg.startsWith("--annotation-prefix")), "external-dns's default prefix");
  assert.ok(
    externalDnsArgs({ ...options, annotationPrefix: "internal-dns.example.com/" }, bind, "/k", 7000)
      .includes("--annotation-prefix=internal-dns.example.com/"),
  );
});
