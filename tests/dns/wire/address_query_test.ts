import assert from "node:assert/strict";
import { addressQuery } from "../../../lib/dns/wire/address_query.ts";
import { classifyQuery } from "../../../lib/dns/wire/classify_query.ts";
import { decodeMessage } from "../../support/dns_tools.ts";

Deno.test("addressQuery: one question, recursion desired, an OPT record with our size (read by dns-packet)", () => {
  const decoded = decodeMessage(
    addressQuery("Shop.Example.com.", { type: "AAAA", id: 0x4242, maxUdpPayload: 1400 }),
  );
  assert.equal(decoded.id, 0x4242);
  assert.equal(decoded.flag_qr, false);
  assert.equal(decoded.flag_rd, true);
  assert.deepEqual(decoded.questions, [{ name: "Shop.Example.com", type: "AAAA", class: "IN" }]);
  assert.equal(decoded.additionals.length, 1);
  assert.equal(decoded.additionals[0]!.type, "OPT");
  assert.equal(decoded.additionals[0]!.udpPayloadSize, 1400);
});

Deno.test("addressQuery: a trailing dot changes nothing; the server's own classifier asks the question", () => {
  assert.deepEqual(addressQuery("a.example", { type: "A" }), addressQuery("a.example.", { type: "A" }));
  const verdict = classifyQuery(addressQuery("a.example", { type: "A" }), {
    transport: "udp",
    maxUdpPayload: 1232,
  });
  assert.equal(verdict.kind, "ask");
  if (verdict.kind === "ask") assert.deepEqual(verdict.question, { name: "a.example", type: "A" });
});

Deno.test("addressQuery: names that are not host names are refused rather than sent as another name", () => {
  const bad = [
    "",
    ".",
    "a..b",
    `${"x".repeat(64)}.example`,
    "sp ace.example",
    "back\\slash.example",
    "é.example",
    Array.from({ length: 130 }, () => "a").join("."),
  ];
  for (const name of bad) {
    assert.throws(() => addressQuery(name, { type: "A" }), TypeError, JSON.stringify(name));
  }
  // The longest legal names still encode: 63-octet labels up to 255 octets in wire form.
  const longest = [63, 63, 63, 61].map((n) => "y".repeat(n)).join(".");
  assert.equal(addressQuery(longest, { type: "A" }).length, 12 + 255 + 4 + 11);
});
