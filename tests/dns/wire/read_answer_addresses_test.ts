// @ts-types="@types/dns-packet"
import * as packet from "dns-packet";
import assert from "node:assert/strict";
import { readAnswerAddresses } from "../../../lib/dns/wire/read_answer_addresses.ts";
import { prng } from "../../support/random.ts";

type Answer = packet.Answer;

/** A response to `name`/`type` with these answers, encoded by dns-packet (name compression and all). */
function reply(
  type: "A" | "AAAA",
  answers: Answer[],
  options: { rcode?: number; tc?: boolean } = {},
): Uint8Array {
  return new Uint8Array(packet.encode({
    type: "response",
    id: 9,
    flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE |
      (options.tc ? packet.TRUNCATED_RESPONSE : 0) |
      (options.rcode ?? 0),
    questions: [{ name: "shop.example.com", type, class: "IN" }],
    answers,
  }));
}

Deno.test("readAnswerAddresses: the records of the type asked, their smallest TTL, repeats dropped", () => {
  const read = readAnswerAddresses(reply("A", [
    { type: "A", name: "shop.example.com", ttl: 30, data: "10.96.14.2" },
    { type: "A", name: "shop.example.com", ttl: 5, data: "10.96.14.3" },
    { type: "A", name: "shop.example.com", ttl: 30, data: "10.96.14.2" },
  ]));
  assert.deepEqual(read, { rcode: 0, addresses: ["10.96.14.2", "10.96.14.3"], ttl: 5, truncated: false });
});

Deno.test("readAnswerAddresses: through a CNAME chain the final addresses count; other types do not", () => {
  const read = readAnswerAddresses(reply("AAAA", [
    { type: "CNAME", name: "shop.example.com", ttl: 300, data: "lb.cloud.example" },
    { type: "AAAA", name: "lb.cloud.example", ttl: 60, data: "2001:DB8::0:1" },
    { type: "A", name: "lb.cloud.example", ttl: 1, data: "203.0.113.9" },
  ]));
  assert.deepEqual(read, { rcode: 0, addresses: ["2001:db8::1"], ttl: 60, truncated: false });
});

Deno.test("readAnswerAddresses: NXDOMAIN and NODATA have no addresses and no TTL; TC is told", () => {
  assert.deepEqual(readAnswerAddresses(reply("A", [], { rcode: 3 })), {
    rcode: 3,
    addresses: [],
    truncated: false,
  });
  assert.deepEqual(readAnswerAddresses(reply("A", [], { tc: true })), {
    rcode: 0,
    addresses: [],
    truncated: true,
  });
});

Deno.test("readAnswerAddresses: a TTL with the top bit set counts as 0 (RFC 2181)", () => {
  const bytes = reply("A", [{ type: "A", name: "shop.example.com", ttl: 7, data: "10.0.0.1" }]);
  bytes.set([0x80, 0, 0, 7], bytes.length - 10);
  assert.deepEqual(readAnswerAddresses(bytes), {
    rcode: 0,
    addresses: ["10.0.0.1"],
    ttl: 0,
    truncated: false,
  });
});

Deno.test("readAnswerAddresses: what is not an answer is unreadable, with the reason", () => {
  const good = reply("A", [{ type: "A", name: "shop.example.com", ttl: 7, data: "10.0.0.1" }]);
  const query = good.slice(0, 34);
  query.set([0, 0], 6);
  query[2] = 0x01;
  const wrongLength = good.slice(0, good.length - 1);
  wrongLength[wrongLength.length - 4] = 3;
  const cases: [string, Uint8Array, RegExp][] = [
    ["cut short", good.subarray(0, good.length - 2), /^malformed reply/],
    ["a query", query, /not a response/],
    ["an A record of 3 octets", wrongLength, /an address record of 3 octets, not 4/],
  ];
  for (const [what, bytes, reason] of cases) {
    const read = readAnswerAddresses(bytes);
    assert.ok("unreadable" in read, what);
    assert.match(read.unreadable, reason, what);
  }
});

Deno.test("readAnswerAddresses: random address sets survive dns-packet's encoding (property)", () => {
  const random = prng(15);
  for (let round = 0; round < 200; round++) {
    const v6 = random() < 0.5;
    const count = Math.floor(random() * 6);
    const addresses = Array.from(
      { length: count },
      (_, i) =>
        v6
          ? `fd00:${Math.floor(random() * 0xffff).toString(16)}::${(i + 1).toString(16)}`
          : `10.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${i}`,
    );
    const ttls = addresses.map(() => Math.floor(random() * 3600));
    const answers: Answer[] = addresses.map((data, i) => ({
      type: v6 ? "AAAA" : "A",
      name: "shop.example.com",
      ttl: ttls[i]!,
      data,
    }));
    const read = readAnswerAddresses(reply(v6 ? "AAAA" : "A", answers));
    assert.ok(!("unreadable" in read));
    assert.deepEqual(read.addresses, addresses, `round ${round}`);
    assert.equal(read.ttl, count === 0 ? undefined : Math.min(...ttls));
  }
});
