// @ts-types="@types/dns-packet"
import * as packet from "dns-packet";
import assert from "node:assert/strict";
import { type MessageView, nameEnd, readMessage } from "../../../lib/dns/wire/read_message.ts";
import { encodeHeader, encodeQuery } from "../../support/dns_tools.ts";
import { concat } from "../../support/conn_io.ts";
import { prng } from "../../support/random.ts";

/** A header with these counts, ID 0x0102, flags RD. */
function header(questions: number, answers = 0, authorities = 0, additionals = 0): Uint8Array {
  return encodeHeader({ questions, answers, authorities, additionals });
}

/** `name` in wire form, uncompressed. */
function wireName(name: string): Uint8Array {
  const parts = name === "" ? [] : name.split(".").map((label) => {
    const bytes = new TextEncoder().encode(label);
    return concat(new Uint8Array([bytes.length]), bytes);
  });
  return concat(...parts, new Uint8Array([0]));
}

const A_IN = new Uint8Array([0, 1, 0, 1]);
/** An A record's fixed part after its name: type, class, TTL 30, length 4, 192.0.2.1. */
const A_RECORD_TAIL = new Uint8Array([0, 1, 0, 1, 0, 0, 0, 30, 0, 4, 192, 0, 2, 1]);
const OPT_1232 = new Uint8Array([0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0]);

function malformed(bytes: Uint8Array): string | undefined {
  const view = readMessage(bytes);
  return "malformed" in view ? view.malformed : undefined;
}

Deno.test("readMessage: a plain query with an OPT record", () => {
  const view = readMessage(
    encodeQuery("Shop.example.com", { id: 77, type: "AAAA", edns: 1232, dnssecOk: true }),
  );
  assert.ok(!("malformed" in view));
  assert.equal(view.id, 77);
  assert.equal(view.questionCount, 1);
  assert.deepEqual(view.question, { nameEnd: 12 + 18, type: 28, class: 1 });
  assert.equal(view.questionEnd, 12 + 18 + 4);
  assert.deepEqual(view.opt, { offset: 34, payloadSize: 1232, extendedRcode: 0, version: 0, dnssecOk: true });
  assert.equal(view.optCount, 1);
});

Deno.test("readMessage: compression pointers that point backwards are followed", () => {
  // Question example.com, answer named by a pointer to it, a second answer "www" + pointer.
  const bytes = concat(
    header(1, 2),
    wireName("example.com"),
    A_IN,
    new Uint8Array([0xc0, 12]),
    A_RECORD_TAIL,
    new Uint8Array([3, 0x77, 0x77, 0x77, 0xc0, 12]),
    A_RECORD_TAIL,
  );
  const view = readMessage(bytes) as MessageView;
  assert.equal(view.answerCount, 2);
});

Deno.test("readMessage: refuses what would hang, overrun or mislead a reader", async (t) => {
  const longLabel = new Uint8Array([64, ...new Uint8Array(64).fill(0x61), 0]);
  // 4 labels of 63 octets: 4 × 64 + 1 = 257 octets.
  const longName = concat(
    ...Array.from({ length: 4 }, () => new Uint8Array([63, ...new Uint8Array(63).fill(0x61)])),
    new Uint8Array([0]),
  );
  const cases: [string, Uint8Array, RegExp][] = [
    ["11 bytes", new Uint8Array(11), /shorter than a header/],
    ["a question count with no question", header(1), /name runs past the end/],
    [
      "65,535 answers in a short packet",
      concat(header(0, 0xffff), wireName("a")),
      /record runs past the end/,
    ],
    [
      "a question cut in its type",
      concat(header(1), wireName("a"), new Uint8Array([0, 1])),
      /question runs past/,
    ],
    ["a pointer to itself", concat(header(0, 1), new Uint8Array([0xc0, 12]), A_RECORD_TAIL), /backwards/],
    ["a pointer forwards", concat(header(0, 1), new Uint8Array([0xc0, 14, 0]), A_RECORD_TAIL), /backwards/],
    [
      "a loop through two pointers",
      concat(
        header(1, 1),
        new Uint8Array([1, 0x61, 0]),
        A_IN,
        new Uint8Array([1, 0x62, 0xc0, 20]),
        A_RECORD_TAIL,
      ),
      /backwards/,
    ],
    [
      "a compressed question name",
      concat(header(1), new Uint8Array([0xc0, 0]), A_IN),
      /compressed question/,
    ],
    ["a label of 64 octets (length byte 0x40)", concat(header(1), longLabel, A_IN), /unknown label type/],
    ["a name of 257 octets", concat(header(1), longName, A_IN), /longer than 255/],
    ["label type 0x80", concat(header(1), new Uint8Array([0x81, 0]), A_IN), /unknown label type/],
    [
      "record data past the end",
      concat(header(0, 1), wireName("a"), new Uint8Array([0, 1, 0, 1, 0, 0, 0, 30, 0, 9, 1, 2])),
      /record data runs past/,
    ],
    [
      "a byte after the last record",
      concat(header(1), wireName("a"), A_IN, new Uint8Array([0])),
      /bytes after/,
    ],
    ["an OPT record among the answers", concat(header(0, 1), OPT_1232), /outside the additional/],
    [
      "an OPT record with a name",
      concat(header(0, 0, 0, 1), wireName("a"), OPT_1232.subarray(1)),
      /name other than the root/,
    ],
  ];
  for (const [name, bytes, reason] of cases) {
    await t.step(name, () => assert.match(malformed(bytes) ?? "accepted", reason));
  }
});

Deno.test("readMessage: an OPT record read before a fault is still reported", () => {
  const bytes = concat(header(0, 0, 0, 2), OPT_1232, new Uint8Array([0xc0]));
  const view = readMessage(bytes);
  assert.ok("malformed" in view);
  assert.equal(view.opt?.payloadSize, 1232);
});

Deno.test("readMessage: two OPT records are counted (a FORMERR for the classifier)", () => {
  const view = readMessage(
    concat(header(1, 0, 0, 2), wireName("a"), A_IN, OPT_1232, OPT_1232),
  ) as MessageView;
  assert.equal(view.optCount, 2);
});

Deno.test("readMessage: agrees with dns-packet on random well-formed messages", () => {
  const random = prng(13);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const label = () =>
    Array.from({ length: 1 + Math.floor(random() * 12) }, () => pick([..."abcXYZ019-"])).join("");
  const name = () => Array.from({ length: 1 + Math.floor(random() * 4) }, label).join(".");
  for (let i = 0; i < 300; i++) {
    const answers: packet.Answer[] = Array.from(
      { length: Math.floor(random() * 5) },
      () =>
        pick<packet.Answer>([
          { type: "A", name: name(), ttl: 30, data: "192.0.2.7" },
          { type: "AAAA", name: name(), ttl: 30, data: "2001:db8::7" },
          { type: "TXT", name: name(), ttl: 30, data: label() },
          { type: "CNAME", name: name(), ttl: 30, data: name() },
          { type: "MX", name: name(), ttl: 30, data: { preference: 10, exchange: name() } },
        ]),
    );
    const edns = random() < 0.5;
    const message = {
      type: "response" as const,
      id: Math.floor(random() * 65536),
      questions: [{ type: "A" as const, name: name() }],
      answers,
      additionals: edns
        ? [{ type: "OPT", name: ".", udpPayloadSize: 512 + Math.floor(random() * 4000) } as packet.Answer]
        : [],
    };
    const bytes = new Uint8Array(packet.encode(message));
    const view = readMessage(bytes);
    assert.ok(!("malformed" in view), `message ${i} read as malformed: ${JSON.stringify(view)}`);
    const decoded = packet.decode(packet.encode(message));
    assert.equal(view.id, decoded.id);
    assert.equal(view.answerCount, decoded.answers?.length);
    assert.equal(view.additionalCount, decoded.additionals?.length);
    const opt = decoded.additionals?.find((record) => record.type === "OPT") as
      | { udpPayloadSize?: number }
      | undefined;
    assert.equal(view.opt?.payloadSize, opt?.udpPayloadSize);
    // Cut anywhere, it must be refused, never read past its end.
    const cut = 1 + Math.floor(random() * (bytes.length - 1));
    assert.ok("malformed" in readMessage(bytes.subarray(0, cut)), `message ${i} cut at ${cut} was accepted`);
  }
});

Deno.test("nameEnd: steps over a plain name and over a compression pointer", () => {
  const bytes = concat(header(1, 1), wireName("a.example"), A_IN, new Uint8Array([0xc0, 12]), A_RECORD_TAIL);
  assert.equal(nameEnd(bytes, 12), 12 + 11);
  assert.equal(nameEnd(bytes, 12 + 11 + 4), 12 + 11 + 4 + 2);
});
