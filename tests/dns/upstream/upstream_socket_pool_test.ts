import assert from "node:assert/strict";
import dgram from "node:dgram";
import { UDP_READ_BUFFER_BYTES, UpstreamSocketPool } from "../../../lib/dns/upstream/upstream_socket_pool.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import { answerWith, decodeMessage, encodeQuery, startFakeUpstream } from "../../support/dns_tools.ts";
import { FakeClock } from "../../support/fake_clock.ts";
import { prng } from "../../support/random.ts";
import { waitFor } from "../../support/wait.ts";

/** Builds a query carrying the ID the pool chose. */
const build = (name: string) => (id: number) => encodeQuery(name, { id });
const idOf = (bytes: Uint8Array) => (bytes[0]! << 8) | bytes[1]!;

Deno.test("UpstreamSocketPool: a reply reaches the query whose ID it carries", async () => {
  await using upstream = await startFakeUpstream((query) => answerWith(query, ["192.0.2.1"]));
  const pool = new UpstreamSocketPool(upstream.endpoint, {
    clock: systemClock,
    random: prng(1),
    timeoutMs: 2_000,
  });
  try {
    const names = ["a.test", "b.test", "c.test"];
    const results = await Promise.all(
      names.map((name) => pool.exchange({ build: build(name), accept: () => true })),
    );
    assert.equal(
      new Set(upstream.received.map((p) => idOf(p.bytes))).size,
      3,
      "three queries in flight, three IDs",
    );
    assert.deepEqual(
      results.map((result) =>
        result.kind === "reply" ? decodeMessage(result.bytes).questions[0]?.name : result.kind
      ),
      names,
    );
  } finally {
    pool.close();
  }
});

Deno.test("UpstreamSocketPool: packets from elsewhere and replies `accept` refuses do not end the wait", async () => {
  await using upstream = await startFakeUpstream();
  const stranger = dgram.createSocket("udp4");
  const pool = new UpstreamSocketPool(upstream.endpoint, {
    clock: systemClock,
    random: prng(2),
    timeoutMs: 5_000,
  });
  try {
    const seen: number[] = [];
    const pending = pool.exchange({
      build: build("shop.test"),
      accept: (reply) => {
        seen.push(reply[3]!);
        return reply[3] === 0x80; // the real answer, NOERROR; 0x83 (NXDOMAIN) plays the forgery
      },
    });
    await upstream.waitForPackets(1);
    const { bytes, from } = upstream.received[0]!;
    // Same ID and content, but from another port than the upstream's: ignored unseen.
    await new Promise<void>((resolve) =>
      stranger.send(answerWith(bytes, ["203.0.113.66"]), from.port, "127.0.0.1", () => resolve())
    );
    upstream.send(answerWith(bytes, [], { rcode: 3 }), from);
    upstream.send(answerWith(bytes, ["192.0.2.1"]), from);
    const result = await pending;
    assert.equal(result.kind, "reply");
    assert.deepEqual(seen, [0x83, 0x80], "the forgery was offered to accept and refused; the stranger never");
  } finally {
    pool.close();
    await new Promise<void>((resolve) => stranger.close(() => resolve()));
  }
});

Deno.test("UpstreamSocketPool: an unanswered query times out on the clock", async () => {
  await using upstream = await startFakeUpstream();
  const clock = new FakeClock();
  const pool = new UpstreamSocketPool(upstream.endpoint, { clock, random: prng(3), timeoutMs: 1_500 });
  try {
    const pending = pool.exchange({ build: build("slow.test"), accept: () => true });
    await upstream.waitForPackets(1);
    await clock.advance(1_499);
    let settled = false;
    pending.then(() => settled = true);
    await clock.advance(0);
    assert.equal(settled, false, "not before its deadline");
    await clock.advance(1);
    assert.deepEqual(await pending, { kind: "timeout" });
    assert.deepEqual(clock.pending(), [], "no timer left once nothing waits");
  } finally {
    pool.close();
  }
});

Deno.test("UpstreamSocketPool: the socket moves to a new port after `rotateAfter` queries", async () => {
  await using upstream = await startFakeUpstream((query) => answerWith(query, ["192.0.2.1"]));
  const pool = new UpstreamSocketPool(upstream.endpoint, {
    clock: systemClock,
    random: prng(4),
    timeoutMs: 2_000,
    rotateAfter: 2,
  });
  try {
    for (const name of ["1.test", "2.test", "3.test", "4.test", "5.test"]) {
      assert.equal((await pool.exchange({ build: build(name), accept: () => true })).kind, "reply");
    }
    const ports = upstream.received.map((p) => p.from.port);
    assert.equal(ports[0], ports[1]);
    assert.notEqual(ports[1], ports[2]);
    assert.equal(ports[2], ports[3]);
    assert.notEqual(ports[3], ports[4]);
    await waitFor("retired sockets to close", () => pool.openSockets() === 1);
  } finally {
    pool.close();
  }
});

Deno.test("UpstreamSocketPool: a reply of the largest UDP size arrives whole; the runtime cuts a longer one", async () => {
  // The second size checks what UDP_READ_BUFFER_BYTES relies on: each receive reads into a buffer
  // of that size, and the kernel cuts a longer datagram to it.
  const sizes = [UDP_READ_BUFFER_BYTES, 4 * UDP_READ_BUFFER_BYTES];
  let next = 0;
  await using upstream = await startFakeUpstream((query) => {
    const padded = new Uint8Array(sizes[next++] ?? 512);
    padded.set(answerWith(query, ["192.0.2.1"]));
    return padded;
  });
  const pool = new UpstreamSocketPool(upstream.endpoint, {
    clock: systemClock,
    random: prng(6),
    timeoutMs: 2_000,
  });
  try {
    const lengths: number[] = [];
    for (const name of ["whole.test", "long.test"]) {
      const result = await pool.exchange({ build: build(name), accept: () => true });
      lengths.push(result.kind === "reply" ? result.bytes.length : -1);
    }
    assert.equal(lengths[0], UDP_READ_BUFFER_BYTES, "the largest reply an upstream may send");
    assert.ok(
      lengths[1]! >= UDP_READ_BUFFER_BYTES && lengths[1]! < sizes[1]!,
      `a longer datagram is cut to the read size, got ${lengths[1]} bytes`,
    );
  } finally {
    pool.close();
  }
});

Deno.test("UpstreamSocketPool: close ends the queries still waiting; an aborted signal ends one", async () => {
  await using upstream = await startFakeUpstream();
  const pool = new UpstreamSocketPool(upstream.endpoint, {
    clock: systemClock,
    random: prng(5),
    timeoutMs: 60_000,
  });
  const abort = new AbortController();
  const aborted = pool.exchange({ build: build("a.test"), accept: () => true, signal: abort.signal });
  const waiting = pool.exchange({ build: build("b.test"), accept: () => true });
  await upstream.waitForPackets(2);
  abort.abort();
  assert.deepEqual(await aborted, { kind: "failed", message: "aborted" });
  pool.close();
  assert.deepEqual(await waiting, { kind: "failed", message: "upstream pool closed" });
  assert.equal(pool.openSockets(), 0);
});
