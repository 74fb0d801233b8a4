/**
 * The forwarded-answer cache: what a reply may be kept for (its smallest TTL, capped; a negative
 * answer for its SOA's negative TTL, RFC 2308; nothing else), hits patched for their asker (ID,
 * name case, TTLs counted down, truncated to the asker's limit), the key's parts, and the bounds
 * (entries and bytes, least recently used first out). Then the Forwarder with a cache: a repeated
 * question does not reach the upstream until its TTL has run out.
 *
 * @module
 */

// @ts-types="@types/dns-packet"
import * as packet from "dns-packet";
import assert from "node:assert/strict";
import {
  AnswerCache,
  cacheKey,
  MAX_TTL_SECONDS,
  replyLifetime,
} from "../../../lib/dns/upstream/answer_cache.ts";
import { Forwarder } from "../../../lib/dns/upstream/forwarder.ts";
import { decodeMessage, parsedQuery, startFakeUpstream } from "../../support/dns_tools.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { prng } from "../../support/random.ts";

interface ReplyShape {
  readonly name?: string;
  readonly rcode?: number;
  readonly answers?: readonly { ttl: number; data: string }[];
  readonly soa?: { ttl: number; minimum: number };
  readonly edns?: boolean;
}

/** A reply as an upstream would send it (encoded by dns-packet, an independent encoder). */
function reply(shape: ReplyShape): Uint8Array {
  const name = shape.name ?? "shop.test";
  return new Uint8Array(packet.encode({
    type: "response",
    id: 7,
    flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (shape.rcode ?? 0),
    questions: [{ name, type: "A", class: "IN" }],
    answers: (shape.answers ?? []).map(({ ttl, data }) => ({ type: "A" as const, name, ttl, data })),
    authorities: shape.soa === undefined ? [] : [{
      type: "SOA",
      name: "test",
      ttl: shape.soa.ttl,
      data: {
        mname: "ns.test",
        rname: "hostmaster.test",
        serial: 1,
        refresh: 3600,
        retry: 600,
        expire: 86400,
        minimum: shape.soa.minimum,
      },
    }],
    additionals: shape.edns ? [{ type: "OPT", name: ".", udpPayloadSize: 1232 } as packet.Answer] : [],
  }));
}

Deno.test("replyLifetime: the smallest TTL, capped; negative answers by their SOA; nothing else", () => {
  const cases: [string, ReplyShape, number][] = [
    ["two addresses: the smaller TTL", {
      answers: [{ ttl: 300, data: "192.0.2.1" }, { ttl: 60, data: "192.0.2.2" }],
    }, 60],
    ["a day is capped", { answers: [{ ttl: 86_400, data: "192.0.2.1" }] }, MAX_TTL_SECONDS],
    [
      "the OPT record's TTL field is not a TTL",
      { answers: [{ ttl: 30, data: "192.0.2.1" }], edns: true },
      30,
    ],
    ["NXDOMAIN: min(SOA TTL, MINIMUM)", { rcode: 3, soa: { ttl: 900, minimum: 300 } }, 300],
    ["NODATA: min(SOA TTL, MINIMUM)", { soa: { ttl: 120, minimum: 600 } }, 120],
    ["NXDOMAIN without an SOA: not kept", { rcode: 3 }, 0],
    ["NODATA without an SOA: not kept", {}, 0],
    ["SERVFAIL: not kept", { rcode: 2 }, 0],
    ["REFUSED: not kept", { rcode: 5 }, 0],
    ["a TTL of 0: not kept", { answers: [{ ttl: 0, data: "192.0.2.1" }] }, 0],
  ];
  for (const [name, shape, ttl] of cases) assert.equal(replyLifetime(reply(shape)).ttl, ttl, name);
  assert.equal(replyLifetime(new Uint8Array([1, 2, 3])).ttl, 0, "malformed");
});

Deno.test("cacheKey: the name's case does not matter; the type, OPT, DO and CD do", () => {
  const key = (name: string, options: Parameters<typeof parsedQuery>[1] = {}) =>
    cacheKey(parsedQuery(name, options));
  assert.equal(key("Shop.TEST"), key("shop.test"));
  assert.notEqual(key("shop.test"), key("shop.test", { type: "AAAA" }));
  assert.notEqual(key("shop.test"), key("shop.test", { edns: 1232 }));
  assert.notEqual(key("shop.test", { edns: 1232 }), key("shop.test", { edns: 1232, dnssecOk: true }));
  assert.notEqual(key("shop.test"), key("shop.test2"));
});

function cache(clock: FakeClock, maxEntries = 10, maxBytes?: number): AnswerCache {
  return new AnswerCache({
    maxEntries,
    clock,
    maxUdpPayload: 1232,
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
}

Deno.test("AnswerCache: a hit carries the asker's ID and name case, with TTLs counted down; it expires with its TTL", async () => {
  const clock = new FakeClock();
  const answers = cache(clock);
  const first = parsedQuery("shop.test", { id: 1 });
  answers.store(
    first,
    reply({ answers: [{ ttl: 60, data: "192.0.2.1" }, { ttl: 300, data: "192.0.2.2" }] }),
    0,
  );
  await clock.advance(10_500);
  const hit = answers.lookup(parsedQuery("SHOP.test", { id: 4242 }));
  assert.equal(hit.kind, "hit");
  const message = decodeMessage(hit.kind === "hit" ? hit.bytes : new Uint8Array());
  assert.equal(message.id, 4242);
  assert.equal(message.questions[0]?.name, "SHOP.test");
  assert.deepEqual(message.answers.map((answer) => [answer.data, answer.ttl]), [
    ["192.0.2.1", 50],
    ["192.0.2.2", 290],
  ]);
  await clock.advance(49_500);
  assert.equal(answers.lookup(first).kind, "miss", "60 s after it was kept");
  assert.equal(answers.size, 0);
});

Deno.test("AnswerCache: a negative answer is kept for its SOA's negative TTL; a hit too big for the asker is truncated", async () => {
  const clock = new FakeClock();
  const answers = cache(clock);
  const query = parsedQuery("gone.test", { id: 1 });
  answers.store(query, reply({ name: "gone.test", rcode: 3, soa: { ttl: 900, minimum: 30 } }), 3);
  await clock.advance(29_000);
  const hit = answers.lookup(query);
  assert.ok(hit.kind === "hit" && hit.rcode === 3);
  await clock.advance(1_000);
  assert.equal(answers.lookup(query).kind, "miss");
  // 40 addresses need more than the 512 bytes a query without EDNS may get.
  const many = Array.from({ length: 40 }, (_, i) => ({ ttl: 60, data: `192.0.2.${i + 1}` }));
  const big = parsedQuery("big.test", { edns: 4096 });
  answers.store(big, reply({ name: "big.test", answers: many, edns: true }), 0);
  const whole = answers.lookup(parsedQuery("big.test", { edns: 4096 }));
  assert.ok(whole.kind === "hit" && !whole.truncated);
  const small = answers.lookup({ ...parsedQuery("big.test", { edns: 4096 }), limit: 512 });
  assert.ok(small.kind === "hit" && small.truncated && small.bytes.length <= 512);
  assert.ok(small.kind === "hit" && (small.bytes[2]! & 0x02) !== 0, "TC is set");
});

Deno.test("AnswerCache: bounded by entries and bytes, least recently used first out", () => {
  const clock = new FakeClock();
  const answers = cache(clock, 2);
  const keep = (name: string) =>
    answers.store(parsedQuery(name), reply({ name, answers: [{ ttl: 60, data: "192.0.2.1" }] }), 0);
  keep("a.test");
  keep("b.test");
  assert.equal(answers.lookup(parsedQuery("a.test")).kind, "hit", "a is now the most recent");
  keep("c.test");
  assert.equal(answers.size, 2);
  assert.equal(answers.lookup(parsedQuery("b.test")).kind, "miss", "b was the least recently used");
  assert.equal(answers.lookup(parsedQuery("a.test")).kind, "hit");
  assert.equal(answers.lookup(parsedQuery("c.test")).kind, "hit");
  const oneReply = reply({ name: "a.test", answers: [{ ttl: 60, data: "192.0.2.1" }] }).length;
  const byBytes = cache(clock, 100, oneReply * 2);
  for (const name of ["a.test", "b.test", "c.test"]) {
    byBytes.store(parsedQuery(name), reply({ name, answers: [{ ttl: 60, data: "192.0.2.1" }] }), 0);
  }
  assert.equal(byBytes.size, 2);
  assert.ok(byBytes.bytes <= oneReply * 2);
});

Deno.test("Forwarder with a cache: a repeated question is answered without the upstream until its TTL runs out", async () => {
  let asked = 0;
  await using upstream = await startFakeUpstream((query) => {
    asked += 1;
    const decoded = decodeMessage(query);
    return new Uint8Array(packet.encode({
      type: "response",
      id: decoded.id,
      flags: packet.RECURSION_AVAILABLE,
      questions: decoded.questions as packet.Question[],
      answers: [{ type: "A", name: decoded.questions[0]!.name, ttl: 5, data: "192.0.2.9" }],
    }));
  });
  const clock = new FakeClock();
  const events: string[] = [];
  const forwarder = new Forwarder({
    upstreams: [upstream.endpoint],
    maxUdpPayload: 1232,
    timeoutMs: 1_000,
    clock,
    random: prng(3),
    cache: cache(clock),
    onCache: (event) => events.push(event),
  });
  try {
    for (const id of [1, 2, 3]) {
      const result = await forwarder.forward(parsedQuery("Cached.Test", { id }));
      assert.ok(result.kind === "answer");
      assert.equal(decodeMessage(result.bytes).id, id);
    }
    assert.equal(asked, 1);
    await clock.advance(5_000);
    await forwarder.forward(parsedQuery("cached.test", { id: 4 }));
    assert.equal(asked, 2, "asked again once the TTL ran out");
    assert.deepEqual(events, ["miss", "stored", "hit", "hit", "miss", "stored"]);
  } finally {
    forwarder.close();
  }
});
