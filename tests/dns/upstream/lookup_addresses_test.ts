import assert from "node:assert/strict";
import { lookupAddresses } from "../../../lib/dns/upstream/lookup_addresses.ts";
import { answerWith, startDnsmasq, startFakeUpstream } from "../../support/dns_tools.ts";
import { skipWithout } from "../../support/tools.ts";

const NO_DNSMASQ = skipWithout("lookupAddresses against dnsmasq", ["dnsmasq"]);

Deno.test({
  name: "lookupAddresses: A and AAAA of a name dnsmasq knows, with their TTL; NXDOMAIN for one it refuses",
  ignore: NO_DNSMASQ,
  fn: async () => {
    await using server = await startDnsmasq({
      hosts: [{ name: "shop.example.test", addresses: ["10.96.14.2", "fd00::e:2"] }],
      extraArgs: ["--address=/gone.example.test/", "--local-ttl=17"],
    });
    const a = await lookupAddresses(server.endpoint, "Shop.Example.Test.", { type: "A" });
    assert.deepEqual(a, { kind: "answer", rcode: 0, addresses: ["10.96.14.2"], ttl: 17 });
    const aaaa = await lookupAddresses(server.endpoint, "shop.example.test", { type: "AAAA" });
    assert.deepEqual(aaaa, { kind: "answer", rcode: 0, addresses: ["fd00::e:2"], ttl: 17 });
    const gone = await lookupAddresses(server.endpoint, "gone.example.test", { type: "A" });
    assert.deepEqual(gone, { kind: "answer", rcode: 3, addresses: [] });
  },
});

Deno.test({
  name: "lookupAddresses: a reply too large for UDP is asked again over TCP and read whole",
  ignore: NO_DNSMASQ,
  fn: async () => {
    // 90 A records: 1,477 bytes, more than the 1,232 the query advertises, so dnsmasq sets TC.
    const many = Array.from({ length: 90 }, (_, i) => `10.1.0.${i}`);
    await using server = await startDnsmasq({
      extraArgs: many.map((address) => `--address=/big.example.test/${address}`),
    });
    const result = await lookupAddresses(server.endpoint, "big.example.test", { type: "A" });
    assert.equal(result.kind, "answer");
    if (result.kind === "answer") assert.deepEqual([...result.addresses].sort(), [...many].sort());
  },
});

Deno.test("lookupAddresses: SERVFAIL from the server is an answer with its RCODE", async () => {
  await using server = await startFakeUpstream((query) => answerWith(query, [], { rcode: 2 }));
  const result = await lookupAddresses(server.endpoint, "shop.example.test", { type: "A" });
  assert.deepEqual(result, { kind: "answer", rcode: 2, addresses: [] });
});

Deno.test("lookupAddresses: a server that never answers is a timeout after two UDP attempts", async () => {
  await using silent = await startFakeUpstream();
  const result = await lookupAddresses(silent.endpoint, "shop.example.test", { type: "A", timeoutMs: 150 });
  assert.equal(result.kind, "no-answer");
  if (result.kind === "no-answer") {
    assert.equal(result.timedOut, true);
    assert.equal(result.reason, "no reply within 150ms, asked 2 times");
  }
  assert.equal(silent.received.length, 2);
});

Deno.test("lookupAddresses: the signal ends the wait at once", async () => {
  await using silent = await startFakeUpstream();
  const stop = new AbortController();
  const pending = lookupAddresses(silent.endpoint, "shop.example.test", {
    type: "A",
    timeoutMs: 60_000,
    signal: stop.signal,
  });
  await silent.waitForPackets(1);
  stop.abort();
  assert.deepEqual(await pending, { kind: "no-answer", timedOut: false, reason: "aborted" });
});

Deno.test("lookupAddresses: a name that is not a host name is a TypeError, before any packet", async () => {
  await using silent = await startFakeUpstream();
  await assert.rejects(lookupAddresses(silent.endpoint, "a..b", { type: "A" }), TypeError);
  assert.equal(silent.received.length, 0);
});
