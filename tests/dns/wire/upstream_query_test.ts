import assert from "node:assert/strict";
import { classifyQuery, type ParsedQuery } from "../../../lib/dns/wire/classify_query.ts";
import { rootProbeQuery, upstreamQuery, upstreamUdpLimit } from "../../../lib/dns/wire/upstream_query.ts";
import { decodeMessage, encodeQuery } from "../../support/dns_tools.ts";

function parsed(bytes: Uint8Array): ParsedQuery {
  const verdict = classifyQuery(bytes, { transport: "udp", maxUdpPayload: 1232 });
  if (verdict.kind !== "ask") throw new Error(verdict.kind);
  return verdict.query;
}

Deno.test("upstreamQuery: the client's bytes with our ID and our payload size, the original untouched", () => {
  const bytes = encodeQuery("Mixed.Case.example", { id: 1, edns: 65535, dnssecOk: true });
  const query = parsed(bytes);
  const sent = upstreamQuery(query, { id: 0xa5a5, maxUdpPayload: 1232 });
  const message = decodeMessage(sent);
  assert.equal(message.id, 0xa5a5);
  assert.deepEqual(message.questions.map((q) => q.name), ["Mixed.Case.example"]);
  const opt = message.additionals[0];
  assert.deepEqual([opt?.udpPayloadSize, opt?.flag_do], [1232, true]);
  assert.deepEqual(bytes, encodeQuery("Mixed.Case.example", { id: 1, edns: 65535, dnssecOk: true }));
});

Deno.test("upstreamUdpLimit: what the upstream may send us over UDP", () => {
  assert.equal(upstreamUdpLimit(parsed(encodeQuery("a")), 1232), 512);
  assert.equal(upstreamUdpLimit(parsed(encodeQuery("a", { edns: 4096 })), 1232), 1232);
});

Deno.test("rootProbeQuery: . NS, recursion desired", () => {
  const message = decodeMessage(rootProbeQuery(0x0102));
  assert.deepEqual([message.id, message.flag_rd, message.questions], [0x0102, true, [{
    name: ".",
    type: "NS",
    class: "IN",
  }]]);
});
