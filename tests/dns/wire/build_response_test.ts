import assert from "node:assert/strict";
import {
  buildAddressResponse,
  buildErrorResponse,
  buildTruncatedResponse,
} from "../../../lib/dns/wire/build_response.ts";
import { type ParsedQuery, RCODE } from "../../../lib/dns/wire/classify_query.ts";
import { decodeMessage, parsedQuery } from "../../support/dns_tools.ts";

const v4 = (...octets: number[]) => new Uint8Array(octets);

Deno.test("buildAddressResponse: records named by a pointer to the question, in the client's case", () => {
  const query = parsedQuery("Shop.EXAMPLE.com", { id: 4242, edns: 1232 });
  const built = buildAddressResponse(query, {
    type: 1,
    ttl: 30,
    addresses: [v4(10, 0, 0, 1), v4(10, 0, 0, 2)],
    maxUdpPayload: 1232,
  });
  assert.equal(built.truncated, false);
  // Two answers of 16 bytes each: the name costs 2 bytes, not 18.
  assert.equal(built.bytes.length, query.echoEnd + 2 * 16 + 11);
  const message = decodeMessage(built.bytes);
  assert.equal(message.id, 4242);
  assert.deepEqual(
    [message.flag_qr, message.flag_aa, message.flag_tc, message.flag_rd, message.flag_ra, message.rcode],
    [true, true, false, true, true, "NOERROR"],
  );
  assert.deepEqual(message.questions, [{ name: "Shop.EXAMPLE.com", type: "A", class: "IN" }]);
  assert.deepEqual(
    message.answers.map((a) => [a.name, a.type, a.ttl, a.data]),
    [["Shop.EXAMPLE.com", "A", 30, "10.0.0.1"], ["Shop.EXAMPLE.com", "A", 30, "10.0.0.2"]],
  );
  const opt = message.additionals[0];
  assert.deepEqual([opt?.type, opt?.udpPayloadSize], ["OPT", 1232]);
});

Deno.test("buildAddressResponse: AAAA records, and no records at all (NODATA)", () => {
  const query = parsedQuery("a.example", { type: "AAAA" });
  const six = new Uint8Array(16);
  six[0] = 0x20;
  six[1] = 0x01;
  six[15] = 1;
  const full = decodeMessage(
    buildAddressResponse(query, { type: 28, ttl: 5, addresses: [six], maxUdpPayload: 1232 }).bytes,
  );
  assert.deepEqual(full.answers.map((a) => a.data), ["2001::1"]);
  assert.equal(full.additionals.length, 0, "no OPT when the query had none");
  const empty = decodeMessage(
    buildAddressResponse(query, { type: 28, ttl: 5, addresses: [], maxUdpPayload: 1232 }).bytes,
  );
  assert.deepEqual([empty.rcode, empty.answers.length, empty.flag_aa], ["NOERROR", 0, true]);
  // RFC 2308 §3: the negative answer carries an SOA whose TTL and minimum are the answer TTL.
  assert.equal(empty.authorities.length, 1);
  const soa = empty.authorities[0]!;
  assert.equal(soa.type, "SOA");
  assert.equal(soa.name, "a.example");
  assert.equal(soa.ttl, 5);
  assert.deepEqual(soa.data, {
    mname: "a.example",
    rname: "a.example",
    serial: 1,
    refresh: 7200,
    retry: 1800,
    expire: 86400,
    minimum: 5,
  });
});

Deno.test("buildAddressResponse: over the client's limit, the records that fit with TC, question and OPT kept", async (t) => {
  const addresses = Array.from({ length: 40 }, (_, i) => v4(10, 0, 1, i));
  const cases: [string, ParsedQuery, number, number][] = [
    // 12 + 18 + 40 × 16 = 670 > 512: 30 records fit in the 482 octets left.
    ["UDP without EDNS: 512", parsedQuery("many.example"), 30, 12 + 18 + 30 * 16],
    ["UDP, client's 1232", parsedQuery("many.example", { edns: 1232 }), 40, 12 + 18 + 640 + 11],
    // The same rule at any limit: 559 octets left after the OPT hold 34 records.
    ["UDP, client's 600", parsedQuery("many.example", { edns: 600 }), 34, 12 + 18 + 34 * 16 + 11],
    ["TCP without EDNS", parsedQuery("many.example", { transport: "tcp" }), 40, 12 + 18 + 640],
  ];
  for (const [name, query, answers, size] of cases) {
    await t.step(name, () => {
      const built = buildAddressResponse(query, { type: 1, ttl: 30, addresses, maxUdpPayload: 1232 });
      assert.equal(built.truncated, answers < 40);
      assert.equal(built.bytes.length, size);
      assert.ok(built.bytes.length <= query.limit);
      const message = decodeMessage(built.bytes);
      assert.equal(message.flag_tc, answers < 40);
      assert.deepEqual(
        message.answers.map((answer) => answer.data),
        addresses.slice(0, answers).map((a) => a.join(".")),
      );
      assert.deepEqual(message.questions.map((q) => q.name), ["many.example"]);
    });
  }
});

Deno.test("buildAddressResponse: the TTL is clamped to 0 … 2^31−1 and the DO bit copied", () => {
  const query = parsedQuery("a", { edns: 1232, dnssecOk: true });
  const high = decodeMessage(
    buildAddressResponse(query, { type: 1, ttl: 2 ** 40, addresses: [v4(1, 2, 3, 4)], maxUdpPayload: 1232 })
      .bytes,
  );
  assert.equal(high.answers[0]?.ttl, 0x7fffffff);
  assert.equal(high.additionals[0]?.flag_do, true);
  const low = decodeMessage(
    buildAddressResponse(query, { type: 1, ttl: -5, addresses: [v4(1, 2, 3, 4)], maxUdpPayload: 1232 }).bytes,
  );
  assert.equal(low.answers[0]?.ttl, 0);
});

Deno.test("buildErrorResponse: echoes ID, opcode, RD and the question; RA set; OPT when the query had one", async (t) => {
  const cases: [string, ParsedQuery, number, string, boolean][] = [
    [
      "REFUSED with EDNS",
      parsedQuery("Version.Bind", { class: "CH", type: "TXT", edns: 4096 }),
      RCODE.REFUSED,
      "REFUSED",
      true,
    ],
    ["SERVFAIL without EDNS", parsedQuery("a.example"), RCODE.SERVFAIL, "SERVFAIL", false],
    ["NOTIMP", parsedQuery("a.example", { recursionDesired: false }), RCODE.NOTIMP, "NOTIMP", false],
  ];
  for (const [name, query, rcode, text, hasOpt] of cases) {
    await t.step(name, () => {
      const message = decodeMessage(buildErrorResponse(query, { rcode, maxUdpPayload: 1232 }));
      assert.equal(message.id, query.id);
      assert.equal(message.rcode, text);
      assert.equal(message.flag_ra, true);
      assert.equal(message.flag_aa, false);
      assert.equal(message.flag_rd, (query.flags & 0x0100) !== 0);
      assert.equal(message.questions.length, 1);
      assert.equal(message.additionals.length, hasOpt ? 1 : 0);
    });
  }
});

Deno.test("buildErrorResponse: BADVERS puts its upper bits in the OPT record", () => {
  const query = parsedQuery("a.example", { edns: 1232 });
  const bytes = buildErrorResponse(query, { rcode: RCODE.BADVERS, maxUdpPayload: 1232 });
  assert.equal(bytes[3]! & 0x0f, 0, "header RCODE bits are 0");
  assert.equal(bytes[bytes.length - 6], 1, "extended RCODE 1 (16 >> 4)");
});

Deno.test("buildTruncatedResponse: TC set whatever the size, with the given RCODE", () => {
  const query = parsedQuery("big.example", { edns: 1232 });
  const message = decodeMessage(
    buildTruncatedResponse(query, { rcode: 3, authoritative: true, maxUdpPayload: 1232 }),
  );
  assert.deepEqual([message.flag_tc, message.flag_aa, message.rcode, message.answers.length], [
    true,
    true,
    "NXDOMAIN",
    0,
  ]);
});
