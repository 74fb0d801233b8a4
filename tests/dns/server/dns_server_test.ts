import assert from "node:assert/strict";
import { DnsServer } from "../../../lib/dns/server/dns_server.ts";
import { createDnsMetrics } from "../../../lib/dns/dns_metrics.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import {
  answerWith,
  decodeMessage,
  DnsTcpClient,
  encodeQuery,
  queryDns,
  startFakeUpstream,
  udpExchange,
} from "../../support/dns_tools.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { LogRecorder } from "../../support/log_recorder.ts";
import { skipWithout } from "../../support/tools.ts";
import { waitFor } from "../../support/wait.ts";
import { startTestServer } from "./server_harness.ts";

Deno.test("DnsServer: an upstream that never answers gets the client a SERVFAIL, never a fake NOERROR", async () => {
  await using silent = await startFakeUpstream();
  const clock = new FakeClock();
  await using served = await startTestServer({
    upstreams: [silent.endpoint],
    clock,
    upstreamTimeoutMs: 2_000,
  });
  const answer = udpExchange(served.endpoint, encodeQuery("elsewhere.test", { id: 5, edns: 1232 }), 10_000);
  await silent.waitForPackets(1);
  await clock.advance(2_000);
  await silent.waitForPackets(2);
  await clock.advance(2_000);
  const message = decodeMessage(await answer);
  assert.deepEqual([message.id, message.rcode, message.answers.length], [5, "SERVFAIL", 0]);
  assert.equal(message.additionals[0]?.type, "OPT", "the SERVFAIL keeps the query's EDNS");
  assert.equal(served.sample('ouroboros_dns_queries_total{transport="udp",outcome="servfail"}'), 1);
  assert.equal(served.sample('ouroboros_dns_upstream_errors_total{reason="timeout"}'), 2);
  assert.equal(served.log.find("warn", "no upstream answered").length, 1);
});

Deno.test({
  name: "DnsServer: dig gets SERVFAIL when nothing listens at the upstream's port",
  ignore: skipWithout("dig", ["dig"]),
  async fn() {
    const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = closed.addr.port;
    closed.close();
    await using served = await startTestServer({
      upstreams: [{ host: "127.0.0.1", port }],
      upstreamTimeoutMs: 150,
    });
    const [reply] = await queryDns(served.endpoint, [{ name: "nowhere.test" }], { timeoutSeconds: 3 });
    assert.equal(reply?.status, "SERVFAIL");
  },
});

Deno.test("DnsServer: setAnswerer swaps the answers from the next query on", async () => {
  await using upstream = await startFakeUpstream((query) => answerWith(query, ["192.0.2.99"]));
  await using served = await startTestServer({ upstreams: [upstream.endpoint] });
  const ask = async () =>
    decodeMessage(await udpExchange(served.endpoint, encodeQuery("shop.local.test"))).answers[0]?.data;
  assert.equal(await ask(), "10.0.0.1");
  served.server.setAnswerer(() => ({ kind: "forward" }));
  assert.equal(await ask(), "192.0.2.99");
  served.server.setAnswerer(() => ({ kind: "local", source: "records", ttl: 5, addresses: ["10.9.9.9"] }));
  assert.equal(await ask(), "10.9.9.9");
  assert.equal(served.sample('ouroboros_dns_local_answers_total{source="records"}'), 1);
});

Deno.test("DnsServer: an answerer that throws costs the query a SERVFAIL, not the server", async () => {
  await using served = await startTestServer({
    upstreams: [{ host: "127.0.0.1", port: 9 }],
    answer: () => {
      throw new Error("broken cache");
    },
  });
  const message = decodeMessage(await udpExchange(served.endpoint, encodeQuery("a.test")));
  assert.equal(message.rcode, "SERVFAIL");
  assert.equal(served.log.find("error", "the answerer failed").length, 1);
});

Deno.test("DnsServer: the answerer sees the client's address, IPv4-mapped as IPv4; both families on ':0'", async () => {
  const clients: string[] = [];
  await using served = await startTestServer({
    listen: { host: undefined, port: 0 },
    upstreams: [{ host: "127.0.0.1", port: 9 }],
    answer: (_question, client) => {
      clients.push(client);
      return { kind: "local", source: "hairpin", ttl: 1, addresses: [] };
    },
  });
  assert.match(served.server.addresses.udp, /^(\[::\]|0\.0\.0\.0):\d+$/);
  assert.equal(served.server.addresses.tcp, served.server.addresses.udp);
  await udpExchange({ host: "127.0.0.1", port: served.server.port }, encodeQuery("a.test"));
  await using tcp = await DnsTcpClient.connect({ host: "127.0.0.1", port: served.server.port });
  await tcp.send(encodeQuery("a.test"));
  await tcp.receive();
  const expected = ["127.0.0.1", "127.0.0.1"];
  if (served.server.addresses.udp.startsWith("[::]")) {
    await udpExchange({ host: "::1", port: served.server.port }, encodeQuery("a.test"));
    expected.push("::1");
  }
  assert.deepEqual(clients, expected);
});

Deno.test("DnsServer: start fails with the address named when the port is taken, leaving nothing open", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    await assert.rejects(
      DnsServer.start({
        listen: { host: "127.0.0.1", port: taken.addr.port },
        answer: () => ({ kind: "forward" }),
        upstreams: [{ host: "127.0.0.1", port: 53 }],
        maxUdpPayload: 1232,
        upstreamTimeoutMs: 1_000,
        tcpIdleTimeoutMs: 1_000,
        clock: systemClock,
        log: new LogRecorder(),
        metrics: createDnsMetrics({ rss: () => 0, version: "test" }),
      }),
      new RegExp(`^Error: listen dns 127\\.0\\.0\\.1:${taken.addr.port}: `),
    );
  } finally {
    taken.close();
  }
});

Deno.test("DnsServer: start refuses an upstream given by name and leaves nothing open", async () => {
  await assert.rejects(
    startTestServer({ upstreams: [{ host: "dns.example", port: 53 }] }),
    /upstream "dns\.example" is not an IP address/,
  );
});

Deno.test("DnsServer: a TCP connection with nothing to do is closed after the idle timeout", async () => {
  const clock = new FakeClock();
  await using served = await startTestServer({
    upstreams: [{ host: "127.0.0.1", port: 9 }],
    clock,
    tcpIdleTimeoutMs: 5_000,
  });
  await using tcp = await DnsTcpClient.connect(served.endpoint);
  await tcp.send(encodeQuery("a.local.test"));
  assert.ok(await tcp.receive());
  await waitFor("the idle watch", () => clock.pending().includes(5_000));
  await clock.advance(4_999);
  await tcp.send(encodeQuery("b.local.test"));
  assert.ok(await tcp.receive(), "a query within the timeout keeps the connection");
  // Half a query is not activity: a client trickling bytes is idle too.
  await clock.advance(2_000);
  await tcp.sendRaw(new Uint8Array([0, 30, 1, 2]));
  await clock.advance(3_000);
  await waitFor(
    "the idle connection to close",
    () => served.sample("ouroboros_dns_tcp_connections_active") === 0,
    {
      timeoutMs: 2_000,
    },
  );
  assert.equal(await tcp.receive(), null);
});

Deno.test("DnsServer: connections over the limit are closed at once and counted", async () => {
  await using served = await startTestServer({
    upstreams: [{ host: "127.0.0.1", port: 9 }],
    maxTcpConnections: 1,
  });
  await using first = await DnsTcpClient.connect(served.endpoint);
  await first.send(encodeQuery("a.local.test"));
  assert.ok(await first.receive());
  await using second = await DnsTcpClient.connect(served.endpoint);
  assert.equal(await second.receive(), null);
  assert.equal(served.sample("ouroboros_dns_tcp_connections_rejected_total"), 1);
  await first.send(encodeQuery("b.local.test"));
  assert.ok(await first.receive(), "the first connection is unaffected");
});

Deno.test("DnsServer: at most `maxTcpQueriesPerConnection` queries of one connection are handled at once", async () => {
  await using silent = await startFakeUpstream();
  const clock = new FakeClock();
  await using served = await startTestServer({
    upstreams: [silent.endpoint],
    clock,
    upstreamTimeoutMs: 1_000,
    maxTcpQueriesPerConnection: 2,
  });
  await using tcp = await DnsTcpClient.connect(served.endpoint);
  await tcp.send(
    encodeQuery("slow1.test", { id: 1 }),
    encodeQuery("slow2.test", { id: 2 }),
    encodeQuery("fast.local.test", { id: 3 }),
  );
  await silent.waitForPackets(2);
  // Asserted at the end: a failure here would leave the forwarded queries waiting on the clock.
  const answeredBeforeASlotFreed = served.events.length;
  await clock.advance(1_000);
  await silent.waitForPackets(4);
  await clock.advance(1_000);
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push(decodeMessage((await tcp.receive())!).id);
  assert.deepEqual(ids.sort(), [1, 2, 3]);
  assert.equal(answeredBeforeASlotFreed, 0, "the local query waited for a free slot");
  assert.deepEqual(served.events.map((e) => e.outcome).sort(), ["local", "servfail", "servfail"]);
});

Deno.test("DnsServer: on shutdown the listener closes, and queries in flight are still answered", async () => {
  await using silent = await startFakeUpstream();
  const clock = new FakeClock();
  const served = await startTestServer({ upstreams: [silent.endpoint], clock, upstreamTimeoutMs: 1_000 });
  await using tcp = await DnsTcpClient.connect(served.endpoint);
  await tcp.send(encodeQuery("pending.test", { id: 9 }));
  await silent.waitForPackets(1);
  const stopping = served.stop();
  await assert.rejects(Deno.connect({ hostname: "127.0.0.1", port: served.endpoint.port }));
  await clock.advance(1_000);
  await silent.waitForPackets(2);
  await clock.advance(1_000);
  const message = decodeMessage((await tcp.receive())!);
  assert.deepEqual([message.id, message.rcode], [9, "SERVFAIL"]);
  assert.equal(await tcp.receive(), null, "then the connection closes");
  await stopping;
});

Deno.test("DnsServer: --cache-size answers a repeated forwarded question without the upstream, counted in /metrics; 0 turns it off", async () => {
  await using upstream = await startFakeUpstream((query) => answerWith(query, ["192.0.2.77"]));
  await using cached = await startTestServer({ upstreams: [upstream.endpoint], cacheSize: 100 });
  for (const id of [1, 2, 3]) {
    const message = decodeMessage(await udpExchange(cached.endpoint, encodeQuery("Away.Test", { id })));
    assert.deepEqual([message.id, message.answers[0]?.data], [id, "192.0.2.77"]);
  }
  assert.equal(upstream.received.length, 1, "asked once");
  assert.equal(cached.sample('ouroboros_dns_cache_lookups_total{result="hit"}'), 2);
  assert.equal(cached.sample('ouroboros_dns_cache_lookups_total{result="miss"}'), 1);
  assert.equal(cached.sample("ouroboros_dns_cache_entries"), 1);
  await using uncached = await startTestServer({ upstreams: [upstream.endpoint], cacheSize: 0 });
  for (const id of [4, 5]) await udpExchange(uncached.endpoint, encodeQuery("away.test", { id }));
  assert.equal(upstream.received.length, 3, "every question went upstream");
  assert.equal(uncached.sample('ouroboros_dns_cache_lookups_total{result="miss"}'), 0);
});
