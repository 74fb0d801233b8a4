// @ts-types="@types/dns-packet"
import * as packet from "dns-packet";
import assert from "node:assert/strict";
import type { ParsedQuery } from "../../../lib/dns/wire/classify_query.ts";
import { relayReply, type ReplyVerdict } from "../../../lib/dns/wire/relay_reply.ts";
import { decodeMessage, encodeQuery, parsedQuery } from "../../support/dns_tools.ts";

const SENT_ID = 0x5151;

interface ReplyShape {
  id?: number;
  name?: string;
  type?: packet.RecordType;
  rcode?: string;
  answers?: number;
  edns?: number;
  flags?: number;
  noQuestion?: boolean;
}

/** An upstream reply: `answers` A records of `name`, optionally an OPT record. */
function reply(shape: ReplyShape = {}): Uint8Array {
  const name = shape.name ?? "shop.example.com";
  return new Uint8Array(packet.encode({
    type: "response",
    id: shape.id ?? SENT_ID,
    flags: (shape.flags ?? packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE) |
      ({ NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as Record<string, number>)[
        shape.rcode ?? "NOERROR"
      ]!,
    questions: shape.noQuestion ? [] : [{ name, type: shape.type ?? "A", class: "IN" }],
    answers: Array.from({ length: shape.answers ?? 1 }, (_, i) => ({
      type: "A" as const,
      name,
      ttl: 60,
      data: `192.0.2.${i % 250}`,
    })),
    additionals: shape.edns === undefined
      ? []
      : [{ type: "OPT", name: ".", udpPayloadSize: shape.edns } as packet.Answer],
  }));
}

function relay(query: ParsedQuery, bytes: Uint8Array): ReplyVerdict {
  return relayReply(bytes, { query, sentId: SENT_ID, maxUdpPayload: 1232 });
}

Deno.test("relayReply: relays with the client's ID and the client's question bytes", () => {
  const query = parsedQuery("Shop.EXAMPLE.com", { id: 7 });
  const verdict = relay(query, reply({ name: "shop.example.com", answers: 2 }));
  assert.equal(verdict.kind, "relay");
  if (verdict.kind !== "relay") return;
  const message = decodeMessage(verdict.bytes);
  assert.equal(message.id, 7);
  assert.equal(message.questions[0]?.name, "Shop.EXAMPLE.com");
  assert.equal(message.answers.length, 2);
  assert.deepEqual([verdict.truncated, verdict.upstreamTruncated, verdict.rcode], [false, false, 0]);
});

Deno.test("relayReply: rejects what is not the answer to what was sent", async (t) => {
  const query = parsedQuery("shop.example.com", { id: 7 });
  const cases: [string, Uint8Array, string][] = [
    ["another ID", reply({ id: SENT_ID + 1 }), "mismatch"],
    ["another name", reply({ name: "evil.example.com" }), "mismatch"],
    ["another type", reply({ type: "AAAA" }), "mismatch"],
    ["a query, not a response", encodeQuery("shop.example.com", { id: SENT_ID }), "mismatch"],
    ["an answer without a question", reply({ noQuestion: true }), "mismatch"],
    ["cut short", reply().subarray(0, 30), "malformed"],
    ["garbage", new Uint8Array([0x51, 0x51, 0x80]), "malformed"],
  ];
  for (const [name, bytes, reason] of cases) {
    await t.step(name, () => {
      const verdict = relay(query, bytes);
      assert.equal(verdict.kind === "reject" ? verdict.reason : "relayed", reason);
    });
  }
});

Deno.test("relayReply: an error reply without a question is relayed as that error, question restored", () => {
  const query = parsedQuery("shop.example.com", { id: 7, edns: 1232 });
  const verdict = relay(query, reply({ noQuestion: true, rcode: "SERVFAIL", answers: 0 }));
  assert.equal(verdict.kind, "relay");
  if (verdict.kind !== "relay") return;
  const message = decodeMessage(verdict.bytes);
  assert.deepEqual([message.rcode, message.questions.length, message.additionals.length], ["SERVFAIL", 1, 1]);
});

Deno.test("relayReply: a reply over the client's limit is truncated; under it, relayed whole", async (t) => {
  // 40 A records: 12 + 22 + 40 × 32 = 1314 bytes uncompressed (dns-packet does not compress).
  const big = reply({ answers: 40, edns: 4096 });
  const cases: [string, ParsedQuery, boolean][] = [
    ["UDP without EDNS", parsedQuery("shop.example.com", { id: 7 }), true],
    ["UDP with 1232", parsedQuery("shop.example.com", { id: 7, edns: 1232 }), true],
    ["TCP", parsedQuery("shop.example.com", { id: 7, transport: "tcp", edns: 1232 }), false],
  ];
  for (const [name, query, truncated] of cases) {
    await t.step(name, () => {
      const verdict = relay(query, big);
      assert.equal(verdict.kind, "relay");
      if (verdict.kind !== "relay") return;
      assert.equal(verdict.truncated, truncated);
      assert.ok(verdict.bytes.length <= query.limit);
      const message = decodeMessage(verdict.bytes);
      assert.equal(message.flag_tc, truncated);
      assert.equal(message.answers.length, truncated ? 0 : 40);
      assert.equal(message.questions.length, 1);
      assert.equal(message.additionals.length, query.opt === undefined ? 0 : 1);
    });
  }
});

Deno.test("relayReply: the upstream's OPT size is replaced by ours; its TC bit is reported", () => {
  const query = parsedQuery("shop.example.com", { id: 7, edns: 1232 });
  const verdict = relay(query, reply({ edns: 4096, flags: packet.TRUNCATED_RESPONSE, answers: 0 }));
  assert.equal(verdict.kind, "relay");
  if (verdict.kind !== "relay") return;
  assert.equal(verdict.upstreamTruncated, true);
  assert.equal(decodeMessage(verdict.bytes).additionals[0]?.udpPayloadSize, 1232);
});
