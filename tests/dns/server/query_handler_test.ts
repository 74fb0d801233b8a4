import assert from "node:assert/strict";
import { createDnsMetrics } from "../../../lib/dns/dns_metrics.ts";
import type { LocalDecision } from "../../../lib/dns/local_answer.ts";
import { type DnsQueryEvent, QueryHandler } from "../../../lib/dns/server/query_handler.ts";
import type { ForwardResult } from "../../../lib/dns/upstream/forwarder.ts";
import type { ParsedQuery } from "../../../lib/dns/wire/classify_query.ts";
import { decodeMessage, encodeQuery } from "../../support/dns_tools.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { LogRecorder } from "../../support/log_recorder.ts";

function handler(
  options: {
    decide?: (name: string, type: string, client: string) => LocalDecision;
    forward?: ForwardResult;
  },
) {
  const clock = new FakeClock();
  const events: DnsQueryEvent[] = [];
  const forwarded: ParsedQuery[] = [];
  const metrics = createDnsMetrics({ rss: () => 0, version: "test" });
  const created = new QueryHandler({
    answerer: (question, client) =>
      options.decide?.(question.name, question.type, client) ?? { kind: "forward" },
    forwarder: {
      forward: (query) => {
        forwarded.push(query);
        clock.advanceSync(12);
        return Promise.resolve(
          options.forward ?? { kind: "failed", reason: "10.0.0.53:53: no reply within 2s" },
        );
      },
    },
    maxUdpPayload: 1232,
    clock,
    log: new LogRecorder(),
    metrics,
    observe: (event) => events.push(event),
  });
  const sample = (series: string) =>
    Number(
      metrics.registry.render().split("\n").find((line) => line.startsWith(`${series} `))?.split(" ")[1],
    );
  return { handler: created, events, forwarded, sample };
}

const local = (addresses: string[]): LocalDecision => ({
  kind: "local",
  source: "par-proxy",
  ttl: 15,
  addresses,
});

Deno.test("QueryHandler: a local decision is answered at once, only with addresses of the question's family", () => {
  const calls: string[] = [];
  const { handler: h, events, sample } = handler({
    decide: (name, type, client) => {
      calls.push(`${name} ${type} ${client}`);
      return local(["10.0.0.1", "fd00::1", "not an address", "10.0.0.2"]);
    },
  });
  const response = h.handle(encodeQuery("Api.Example.com", { type: "A" }), {
    transport: "tcp",
    client: "10.1.2.3",
  });
  assert.ok(response instanceof Uint8Array, "no promise for a local answer");
  assert.deepEqual(decodeMessage(response).answers.map((a) => [a.data, a.ttl]), [["10.0.0.1", 15], [
    "10.0.0.2",
    15,
  ]]);
  const six = h.handle(encodeQuery("api.example.com", { type: "AAAA" }), {
    transport: "udp",
    client: "fd00::7",
  });
  assert.deepEqual(decodeMessage(six as Uint8Array).answers.map((a) => a.data), ["fd00::1"]);
  const mx = h.handle(encodeQuery("api.example.com", { type: "MX" }), {
    transport: "udp",
    client: "fd00::7",
  });
  assert.deepEqual([decodeMessage(mx as Uint8Array).rcode, decodeMessage(mx as Uint8Array).answers.length], [
    "NOERROR",
    0,
  ]);
  assert.deepEqual(calls, [
    "api.example.com A 10.1.2.3",
    "api.example.com AAAA fd00::7",
    "api.example.com MX fd00::7",
  ]);
  assert.deepEqual(events.map((e) => [e.transport, e.outcome, e.source]), [
    ["tcp", "local", "par-proxy"],
    ["udp", "local", "par-proxy"],
    ["udp", "nodata", "par-proxy"],
  ]);
  assert.equal(sample('ouroboros_dns_local_answers_total{source="par-proxy"}'), 3);
});

Deno.test("QueryHandler: forwarded queries resolve to the upstream's answer, or SERVFAIL when it fails", async () => {
  const failing = handler({});
  const response = await failing.handler.handle(encodeQuery("x.test", { id: 3 }), {
    transport: "udp",
    client: "10.0.0.9",
  });
  assert.deepEqual([decodeMessage(response!).id, decodeMessage(response!).rcode], [3, "SERVFAIL"]);
  assert.deepEqual(failing.events.map((e) => [e.outcome, e.reason, e.durationMs]), [
    ["servfail", "10.0.0.53:53: no reply within 2s", 12],
  ]);
  assert.equal(failing.sample('ouroboros_dns_query_duration_seconds_count{path="upstream"}'), 1);
  const relayed = new Uint8Array([0, 3, 0x81, 0x80, 0, 0, 0, 0, 0, 0, 0, 0]);
  const working = handler({ forward: { kind: "answer", bytes: relayed, truncated: false, rcode: 0 } });
  assert.equal(
    await working.handler.handle(encodeQuery("x.test", { id: 3 }), { transport: "tcp", client: "::1" }),
    relayed,
  );
  assert.equal(working.events[0]?.outcome, "forwarded");
  assert.equal(working.sample('ouroboros_dns_queries_total{transport="tcp",outcome="forwarded"}'), 1);
});

Deno.test("QueryHandler: drops and rejections are counted by outcome, the answerer never asked", () => {
  let asked = 0;
  const { handler: h, events, forwarded, sample } = handler({
    decide: () => {
      asked += 1;
      return local(["10.0.0.1"]);
    },
  });
  const response = encodeQuery("x.test");
  response[2]! |= 0x80;
  assert.equal(h.handle(response, { transport: "udp", client: "10.0.0.9" }), undefined);
  assert.equal(h.handle(new Uint8Array(5), { transport: "udp", client: "10.0.0.9" }), undefined);
  const refused = h.handle(encodeQuery("x.test", { class: "CH" }), { transport: "udp", client: "10.0.0.9" });
  assert.equal(decodeMessage(refused as Uint8Array).rcode, "REFUSED");
  assert.deepEqual(events.map((e) => e.outcome), ["dropped", "dropped", "refused"]);
  assert.equal(sample('ouroboros_dns_queries_total{transport="udp",outcome="dropped"}'), 2);
  assert.equal(sample('ouroboros_dns_query_duration_seconds_count{path="local"}'), 1, "drops are not timed");
  assert.deepEqual([asked, forwarded.length], [0, 0]);
});
