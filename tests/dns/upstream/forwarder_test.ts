// @ts-types="@types/dns-packet"
import * as packet from "dns-packet";
import assert from "node:assert/strict";
import type { UpstreamErrorReason } from "../../../lib/dns/dns_metrics.ts";
import { Forwarder, type ForwarderOptions } from "../../../lib/dns/upstream/forwarder.ts";
import { frameMessage } from "../../../lib/dns/wire/tcp_frames.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import {
  answerWith,
  decodeMessage,
  encodeQuery,
  freeDnsPort,
  parsedQuery,
  startFakeUpstream,
} from "../../support/dns_tools.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { prng } from "../../support/random.ts";

function forwarder(
  options: Partial<ForwarderOptions> & Pick<ForwarderOptions, "upstreams">,
): { forwarder: Forwarder; errors: UpstreamErrorReason[] } {
  const errors: UpstreamErrorReason[] = [];
  const created = new Forwarder({
    maxUdpPayload: 1232,
    timeoutMs: 1_000,
    clock: systemClock,
    random: prng(9),
    onError: (reason) => errors.push(reason),
    ...options,
  });
  return { forwarder: created, errors };
}

Deno.test("Forwarder: relays the upstream's answer with the client's ID", async () => {
  await using upstream = await startFakeUpstream((query) => answerWith(query, ["192.0.2.5"]));
  const { forwarder: f, errors } = forwarder({ upstreams: [upstream.endpoint] });
  try {
    const result = await f.forward(parsedQuery("Shop.Test", { id: 4321 }));
    assert.equal(result.kind, "answer");
    if (result.kind !== "answer") return;
    const message = decodeMessage(result.bytes);
    assert.deepEqual([message.id, message.questions[0]?.name, message.answers[0]?.data], [
      4321,
      "Shop.Test",
      "192.0.2.5",
    ]);
    assert.notEqual(decodeMessage(upstream.received[0]!.bytes).id, 4321, "the upstream saw a fresh ID");
    assert.deepEqual(errors, []);
  } finally {
    f.close();
  }
});

Deno.test("Forwarder: a silent upstream times out, the next answers and is asked first from then on", async () => {
  await using silent = await startFakeUpstream();
  await using good = await startFakeUpstream((query) => answerWith(query, ["192.0.2.6"]));
  const clock = new FakeClock();
  const { forwarder: f, errors } = forwarder({ upstreams: [silent.endpoint, good.endpoint], clock });
  try {
    const first = f.forward(parsedQuery("a.test", { id: 4321 }));
    await silent.waitForPackets(1);
    await clock.advance(1_000);
    assert.equal((await first).kind, "answer");
    assert.equal((await f.forward(parsedQuery("b.test", { id: 4321 }))).kind, "answer");
    assert.equal(silent.received.length, 1, "the second query went to the upstream that answered");
    assert.deepEqual(errors, ["timeout"]);
  } finally {
    f.close();
  }
});

Deno.test("Forwarder: when no upstream answers it fails (the server's SERVFAIL), after two tries of a lone one", async () => {
  await using silent = await startFakeUpstream();
  const clock = new FakeClock();
  const { forwarder: f, errors } = forwarder({ upstreams: [silent.endpoint], clock });
  try {
    const pending = f.forward(parsedQuery("a.test", { id: 4321 }));
    await silent.waitForPackets(1);
    await clock.advance(1_000);
    await silent.waitForPackets(2);
    await clock.advance(1_000);
    const result = await pending;
    assert.equal(result.kind, "failed");
    if (result.kind === "failed") assert.match(result.reason, /127\.0\.0\.1:\d+: no reply within 1s/);
    assert.deepEqual(errors, ["timeout", "timeout"]);
  } finally {
    f.close();
  }
});

Deno.test("Forwarder: a forged reply is counted and skipped; the real one is relayed", async () => {
  await using upstream = await startFakeUpstream((query) => {
    const decoded = decodeMessage(query);
    upstreamRef.send(answerWith(encodeQuery("evil.test", { id: decoded.id }), ["203.0.113.1"]), lastFrom());
    return answerWith(query, ["192.0.2.7"]);
  });
  const upstreamRef = upstream;
  const lastFrom = () => upstream.received.at(-1)!.from;
  const { forwarder: f, errors } = forwarder({ upstreams: [upstream.endpoint] });
  try {
    const result = await f.forward(parsedQuery("good.test", { id: 4321 }));
    assert.equal(
      result.kind === "answer" ? decodeMessage(result.bytes).answers[0]?.data : result.kind,
      "192.0.2.7",
    );
    assert.deepEqual(errors, ["mismatch"]);
  } finally {
    f.close();
  }
});

Deno.test("Forwarder: a truncated UDP reply is fetched again over TCP for a TCP client, relayed as is for UDP", async () => {
  const port = await freeDnsPort();
  const truncated = (query: Uint8Array) => {
    const reply = answerWith(query, []);
    reply[2]! |= 0x02;
    return reply;
  };
  await using upstream = await startFakeUpstream(truncated, { port });
  const listener = Deno.listen({ hostname: "127.0.0.1", port });
  const serving = (async () => {
    const conn = await listener.accept();
    const buffer = new Uint8Array(4096);
    let length = 0;
    while (length < 2 || length < 2 + ((buffer[0]! << 8) | buffer[1]!)) {
      length += (await conn.read(buffer.subarray(length)))!;
    }
    const addresses = Array.from({ length: 60 }, (_, i) => `192.0.2.${i}`);
    await conn.write(frameMessage(answerWith(buffer.slice(2, length), addresses)));
    conn.close();
    listener.close();
  })();
  const { forwarder: f, errors } = forwarder({ upstreams: [upstream.endpoint] });
  try {
    const overUdp = await f.forward(parsedQuery("big.test", { id: 4321, edns: 1232 }));
    assert.equal(overUdp.kind === "answer" && decodeMessage(overUdp.bytes).flag_tc, true);
    const overTcp = await f.forward(parsedQuery("big.test", { id: 4321, edns: 1232, transport: "tcp" }));
    assert.equal(overTcp.kind, "answer");
    if (overTcp.kind === "answer") {
      const message = decodeMessage(overTcp.bytes);
      assert.deepEqual([message.flag_tc, message.answers.length, message.id], [false, 60, 4321]);
    }
    assert.deepEqual(errors, []);
  } finally {
    f.close();
    await serving;
  }
});

Deno.test("Forwarder: probe takes any reply, whatever its RCODE; reports who failed otherwise", async () => {
  await using refusing = await startFakeUpstream((query) => {
    const reply = query.slice();
    reply[2] = 0x81;
    reply[3] = packet.RECURSION_AVAILABLE | 5;
    return reply;
  });
  await using silent = await startFakeUpstream();
  const ok = forwarder({ upstreams: [refusing.endpoint] }).forwarder;
  const clock = new FakeClock();
  const bad = forwarder({ upstreams: [silent.endpoint], clock }).forwarder;
  try {
    assert.deepEqual(await ok.probe(AbortSignal.timeout(5_000)), { ok: true });
    assert.deepEqual(decodeMessage(refusing.received[0]!.bytes).questions, [{
      name: ".",
      type: "NS",
      class: "IN",
    }]);
    const pending = bad.probe(new AbortController().signal);
    await silent.waitForPackets(1);
    await clock.advance(1_000);
    const result = await pending;
    assert.equal(result.ok, false);
    if (!result.ok) assert.match(result.reason, /^127\.0\.0\.1:\d+: no reply within 1s$/);
  } finally {
    ok.close();
    bad.close();
  }
});

Deno.test("Forwarder: refuses an empty list and upstreams given by name", () => {
  assert.throws(() => forwarder({ upstreams: [] }), /at least one upstream/);
  assert.throws(
    () =>
      forwarder({
        upstreams: [{ host: "10.96.0.10", port: 53 }, { host: "kube-dns.kube-system", port: 53 }],
      }),
    /upstream "kube-dns\.kube-system" is not an IP address/,
  );
});
