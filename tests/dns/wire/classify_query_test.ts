import assert from "node:assert/strict";
import { classifyQuery, type QueryVerdict, responseLimit } from "../../../lib/dns/wire/classify_query.ts";
import { encodeQuery } from "../../support/dns_tools.ts";
import { concat } from "../../support/conn_io.ts";

const UDP = { transport: "udp", maxUdpPayload: 1232 } as const;

/** `bytes` with the header's 16-bit field at `offset` set to `value`. */
function withField(bytes: Uint8Array, offset: number, value: number): Uint8Array {
  const out = bytes.slice();
  out[offset] = value >> 8;
  out[offset + 1] = value & 0xff;
  return out;
}

function summary(verdict: QueryVerdict): string {
  if (verdict.kind === "drop") return "drop";
  if (verdict.kind === "reject") return `${verdict.outcome}/${verdict.rcode}/echo=${verdict.query.echoEnd}`;
  return `ask ${verdict.question.name} ${verdict.question.type}`;
}

Deno.test("classifyQuery: the decision for each kind of packet", async (t) => {
  const query = encodeQuery("Shop.Example.COM", { id: 9 });
  const questionEnd = query.length;
  const edns = encodeQuery("a.example", { edns: 1232 });
  const cases: [string, Uint8Array, string][] = [
    ["a query", query, "ask shop.example.com A"],
    ["an unknown type", withField(encodeQuery("a"), 15, 65280), "ask a TYPE65280"],
    ["11 bytes", query.subarray(0, 11), "drop"],
    ["a response (QR set)", withField(query, 2, 0x8100), "drop"],
    ["a header only, claiming a question", query.subarray(0, 12), "formerr/1/echo=12"],
    ["a question cut short", query.subarray(0, questionEnd - 1), "formerr/1/echo=12"],
    ["opcode STATUS", withField(query, 2, 0x1100), `notimp/4/echo=${questionEnd}`],
    ["opcode UPDATE", withField(query, 2, 0x2800), `notimp/4/echo=${questionEnd}`],
    ["no question", withField(query.subarray(0, 12), 4, 0), "formerr/1/echo=12"],
    ["two questions", withField(concat(query, query.subarray(12)), 4, 2), "formerr/1/echo=12"],
    ["class CH", encodeQuery("version.bind", { class: "CH", type: "TXT" }), "refused/5/echo=30"],
    ["class ANY", encodeQuery("a", { class: "ANY" }), "refused/5/echo=19"],
    ["AXFR", encodeQuery("example.com", { type: "AXFR" }), "refused/5/echo=29"],
    ["IXFR", encodeQuery("example.com", { type: "IXFR" }), "refused/5/echo=29"],
    [
      "EDNS version 1",
      (() => {
        const bytes = edns.slice();
        bytes[bytes.length - 5] = 1;
        return bytes;
      })(),
      "badvers/16/echo=27",
    ],
    [
      "two OPT records",
      withField(concat(edns, edns.subarray(edns.length - 11)), 10, 2),
      "formerr/1/echo=27",
    ],
  ];
  for (const [name, bytes, expected] of cases) {
    await t.step(name, () => assert.equal(summary(classifyQuery(bytes, UDP)), expected));
  }
});

Deno.test("classifyQuery: a FORMERR keeps the query's ID and, when it was read, its OPT record", () => {
  const edns = encodeQuery("a.example", { id: 0xbeef, edns: 4096 });
  const broken = concat(withField(edns, 10, 2), new Uint8Array([0xc0]));
  const verdict = classifyQuery(broken, UDP);
  assert.equal(verdict.kind, "reject");
  if (verdict.kind !== "reject") return;
  assert.equal(verdict.query.id, 0xbeef);
  assert.equal(verdict.query.opt?.payloadSize, 4096);
  assert.equal(verdict.query.limit, 1232);
});

Deno.test("responseLimit: 512 without EDNS, the client's size (at least 512) capped by ours, 65,535 over TCP", async (t) => {
  const opt = (payloadSize: number) => ({
    offset: 0,
    payloadSize,
    extendedRcode: 0,
    version: 0,
    dnssecOk: false,
  });
  const cases: [string, Parameters<typeof responseLimit>, number][] = [
    ["UDP without OPT", [undefined, UDP], 512],
    ["UDP, client says 100", [opt(100), UDP], 512],
    ["UDP, client says 1000", [opt(1000), UDP], 1000],
    ["UDP, client says 4096", [opt(4096), UDP], 1232],
    ["UDP, ours set below 512", [opt(4096), { transport: "udp", maxUdpPayload: 100 }], 512],
    ["TCP without OPT", [undefined, { transport: "tcp", maxUdpPayload: 1232 }], 65535],
    ["TCP, client says 512", [opt(512), { transport: "tcp", maxUdpPayload: 1232 }], 65535],
  ];
  for (const [name, args, limit] of cases) {
    await t.step(name, () => assert.equal(responseLimit(...args), limit));
  }
});
