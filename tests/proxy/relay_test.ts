/**
 * In-process tests of `relay()` over real loopback sockets: how a relay ends (completed,
 * failed, aborted), what it counts, half-close in both directions, and that it closes both of
 * its connections whatever happens.
 */

import assert from "node:assert/strict";
import { BufferPool } from "../../lib/proxy/buffer_pool.ts";
import { PROBE_BYTES, relay, type RelayBuffers, type RelayResult } from "../../lib/proxy/relay.ts";
import type { NumberSeries } from "../../lib/util/metrics.ts";
import {
  randomBytes,
  readAll,
  readExactly,
  readsClosed,
  recordingWrites,
  sha256,
  socketPair,
  writeAll,
} from "../support/conn_io.ts";
import { waitFor } from "../support/wait.ts";

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The four sockets of a relay: `client` and `backend` are what the relay gets; `clientPeer`
 * and `backendPeer` are the far ends the test drives.
 */
interface Rig extends Disposable {
  readonly clientPeer: Deno.TcpConn;
  readonly client: Deno.TcpConn;
  readonly backend: Deno.TcpConn;
  readonly backendPeer: Deno.TcpConn;
  readonly upstream: NumberSeries;
  readonly downstream: NumberSeries;
}

/** Series start away from zero so the tests see the relay add to them, not set them. */
const SERIES_START = { upstream: 1000, downstream: 2000 };

/** A test still running after this long is stuck: every socket is closed to end it, and it fails. */
const HANG_GUARD_MS = 30_000;

async function rig(): Promise<Rig> {
  const [clientPeer, client] = await socketPair();
  const [backend, backendPeer] = await socketPair();
  const closeAll = () => {
    // The relay closes its two; the peers are the test's. Closing twice is harmless here.
    for (const conn of [clientPeer, client, backend, backendPeer]) {
      try {
        conn.close();
      } catch {
        // Closed already.
      }
    }
  };
  let hung = false;
  const guard = setTimeout(() => {
    hung = true;
    // deno-lint-ignore no-console
    console.error(`hang guard: still running after ${HANG_GUARD_MS} ms; closing every socket`);
    closeAll();
  }, HANG_GUARD_MS);
  return {
    clientPeer,
    client,
    backend,
    backendPeer,
    upstream: { value: SERIES_START.upstream },
    downstream: { value: SERIES_START.downstream },
    [Symbol.dispose]() {
      clearTimeout(guard);
      closeAll();
      if (hung) throw new Error(`the test hung for ${HANG_GUARD_MS} ms`);
    },
  };
}

/** Writes `chunk` over and over until a write fails; returns how much went through. */
async function writeUntilError(conn: Deno.Conn, chunk: Uint8Array): Promise<number> {
  let sent = 0;
  try {
    while (true) sent += await conn.write(chunk);
  } catch {
    return sent;
  }
}

/** Relays `up` and `down` at once, each side closing its sending half when done, to the end. */
async function exchange(
  r: Rig,
  up: Uint8Array,
  down: Uint8Array,
  buffers?: RelayBuffers,
): Promise<{ result: RelayResult; atBackend: Uint8Array; atClient: Uint8Array }> {
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream, buffers });
  const [atBackend, atClient] = await Promise.all([
    readAll(r.backendPeer),
    readAll(r.clientPeer),
    writeAll(r.clientPeer, up).then(() => r.clientPeer.closeWrite()),
    writeAll(r.backendPeer, down).then(() => r.backendPeer.closeWrite()),
  ]);
  return { result: await done, atBackend, atClient };
}

function assertCounted(result: RelayResult, r: Rig): void {
  assert.equal(r.upstream.value, SERIES_START.upstream + result.upstreamBytes, "upstream series");
  assert.equal(r.downstream.value, SERIES_START.downstream + result.downstreamBytes, "downstream series");
}

Deno.test("relay: both directions at once complete byte-exact, counted in the result and the series", async () => {
  using r = await rig();
  const up = randomBytes(3 * MiB + 17);
  const down = randomBytes(2 * MiB + 5);
  const { result, atBackend, atClient } = await exchange(r, up, down);
  assert.deepEqual(result.end, { kind: "completed" });
  assert.equal(result.upstreamBytes, up.length);
  assert.equal(result.downstreamBytes, down.length);
  assert.equal(sha256(atBackend), sha256(up));
  assert.equal(sha256(atClient), sha256(down));
  assertCounted(result, r);
});

Deno.test("relay: the client's EOF reaches the backend, which answers only then, and the answer still arrives", async () => {
  using r = await rig();
  const request = randomBytes(100 * KiB);
  const reply = randomBytes(MiB);
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  await writeAll(r.clientPeer, request);
  await r.clientPeer.closeWrite();
  const atBackend = await readAll(r.backendPeer); // returns only once the relay passed the EOF on
  assert.equal(sha256(atBackend), sha256(request));
  const [atClient] = await Promise.all([
    readAll(r.clientPeer),
    writeAll(r.backendPeer, reply).then(() => r.backendPeer.closeWrite()),
  ]);
  assert.equal(sha256(atClient), sha256(reply));
  const result = await done;
  assert.deepEqual(result.end, { kind: "completed" });
  assert.equal(result.upstreamBytes, request.length);
  assert.equal(result.downstreamBytes, reply.length);
  assertCounted(result, r);
});

Deno.test("relay: after the backend's EOF the client can keep sending and the backend gets all of it", async () => {
  using r = await rig();
  const reply = randomBytes(10 * KiB);
  const late = randomBytes(MiB);
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  await writeAll(r.backendPeer, reply);
  await r.backendPeer.closeWrite();
  assert.equal(sha256(await readAll(r.clientPeer)), sha256(reply));
  const [atBackend] = await Promise.all([
    readAll(r.backendPeer),
    writeAll(r.clientPeer, late).then(() => r.clientPeer.closeWrite()),
  ]);
  assert.equal(sha256(atBackend), sha256(late));
  const result = await done;
  assert.deepEqual(result.end, { kind: "completed" });
  assert.equal(result.upstreamBytes, late.length);
  assert.equal(result.downstreamBytes, reply.length);
  assertCounted(result, r);
});

const SMALL_BUFFERS: readonly { readonly name: string; readonly buffers: RelayBuffers }[] = [
  {
    name: "tiny buffers, switching between own and pooled ones",
    buffers: { small: 1, pool: new BufferPool(7, 2) },
  },
  {
    name: "buffers just above the probe's size, switching between probe, own and pooled ones",
    buffers: {
      small: PROBE_BYTES + 1,
      pool: new BufferPool(PROBE_BYTES + 7, 2),
      smallPool: new BufferPool(PROBE_BYTES + 1, 2),
    },
  },
];

for (const { name, buffers } of SMALL_BUFFERS) {
  Deno.test(`relay: ${name}, still relay every byte in order`, async () => {
    using r = await rig();
    const up = randomBytes(200 * KiB + 3);
    const down = randomBytes(150 * KiB + 1);
    const { result, atBackend, atClient } = await exchange(r, up, down, buffers);
    assert.deepEqual(result.end, { kind: "completed" });
    assert.equal(sha256(atBackend), sha256(up));
    assert.equal(sha256(atClient), sha256(down));
    assertCounted(result, r);
  });
}

Deno.test("relay: a backend that went away fails the upstream direction and closes the client too", async () => {
  using r = await rig();
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  r.backendPeer.close();
  // Writes into the dead backend connection fail once its reset comes back; the relay must
  // then close the client as well, so the client's own writes end in an error.
  const sent = await writeUntilError(r.clientPeer, randomBytes(64 * KiB));
  const result = await done;
  assert.equal(result.end.kind, "failed");
  assert.ok(result.end.kind === "failed" && result.end.direction === "upstream", JSON.stringify(result.end));
  assert.ok(result.end.error instanceof Error, "the failure carries the socket error");
  assert.ok(
    result.upstreamBytes > 0 && result.upstreamBytes <= sent,
    `upstream ${result.upstreamBytes}/${sent}`,
  );
  assert.equal(result.downstreamBytes, 0);
  assertCounted(result, r);
});

Deno.test("relay: a client that went away fails the downstream direction and closes the backend too", async () => {
  using r = await rig();
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  r.clientPeer.close();
  const sent = await writeUntilError(r.backendPeer, randomBytes(64 * KiB));
  const result = await done;
  assert.ok(
    result.end.kind === "failed" && result.end.direction === "downstream",
    JSON.stringify(result.end),
  );
  assert.ok(result.end.error instanceof Error, "the failure carries the socket error");
  assert.ok(
    result.downstreamBytes > 0 && result.downstreamBytes <= sent,
    `downstream ${result.downstreamBytes}`,
  );
  assert.equal(result.upstreamBytes, 0);
  assertCounted(result, r);
});

Deno.test("relay: a failed write closes the other side at once, even while that direction is stuck", async () => {
  using r = await rig();
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  // The backend floods a client that never reads: the downstream direction ends up blocked
  // in a write to the client, where it cannot notice anything about the backend.
  const flood = writeUntilError(r.backendPeer, randomBytes(64 * KiB));
  let seen = SERIES_START.downstream;
  await waitFor("the downstream direction to stall", () => {
    const now = r.downstream.value;
    const stalled = now > SERIES_START.downstream && now === seen;
    seen = now;
    return stalled;
  }, { timeoutMs: 10_000, intervalMs: 20 });
  // Some client bytes reach the backend unread; closing it then sends a reset.
  await writeAll(r.clientPeer, randomBytes(10 * KiB));
  await waitFor(
    "the client bytes to reach the backend",
    () => r.upstream.value === SERIES_START.upstream + 10 * KiB,
  );
  r.backendPeer.close();
  // The relay's next write to the backend fails; it must close the client too, or these
  // writes would block for ever once the relay stops reading.
  await writeUntilError(r.clientPeer, randomBytes(64 * KiB));
  await flood;
  const result = await done;
  assert.ok(result.end.kind === "failed" && result.end.direction === "upstream", JSON.stringify(result.end));
  assertCounted(result, r);
});

Deno.test("relay: aborting mid-stream closes both ends at once and reports aborted", async () => {
  using r = await rig();
  const controller = new AbortController();
  const done = relay(r.client, r.backend, {
    upstream: r.upstream,
    downstream: r.downstream,
    signal: controller.signal,
  });
  const first = randomBytes(10 * KiB);
  await writeAll(r.clientPeer, first);
  const received = new Uint8Array(first.length);
  let offset = 0;
  while (offset < first.length) {
    const n = await r.backendPeer.read(received.subarray(offset));
    assert.ok(n !== null, "backend side ended early");
    offset += n;
  }
  assert.equal(sha256(received), sha256(first));
  // Both directions are idle and open: only the abort can end this relay.
  controller.abort("shutdown");
  const result = await done;
  assert.deepEqual(result.end, { kind: "aborted", reason: "shutdown" });
  assert.equal(result.upstreamBytes, first.length);
  assert.equal(result.downstreamBytes, 0);
  assertCounted(result, r);
  assert.ok(await readsClosed(r.clientPeer), "the client side is closed");
  assert.ok(await readsClosed(r.backendPeer), "the backend side is closed");
});

Deno.test("relay: a signal aborted before the call closes both ends without relaying", async () => {
  using r = await rig();
  const controller = new AbortController();
  controller.abort("idle");
  const result = await relay(r.client, r.backend, {
    upstream: r.upstream,
    downstream: r.downstream,
    signal: controller.signal,
  });
  assert.deepEqual(result.end, { kind: "aborted", reason: "idle" });
  assert.equal(result.upstreamBytes, 0);
  assert.equal(result.downstreamBytes, 0);
  assertCounted(result, r);
  assert.ok(await readsClosed(r.clientPeer), "the client side is closed");
  assert.ok(await readsClosed(r.backendPeer), "the backend side is closed");
});

Deno.test("relay: a completed relay closes both of its connections", async () => {
  using r = await rig();
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  await r.clientPeer.closeWrite();
  await r.backendPeer.closeWrite();
  const result = await done;
  assert.deepEqual(result.end, { kind: "completed" });
  // The relay's own sockets are closed: closing them again is refused.
  assert.throws(() => r.client.close(), Deno.errors.BadResource);
  assert.throws(() => r.backend.close(), Deno.errors.BadResource);
  assert.ok(await readsClosed(r.clientPeer));
  assert.ok(await readsClosed(r.backendPeer));
});

Deno.test("relay: after the first exchange, a message of exactly the probe's size is relayed at once, not held for more", async () => {
  using r = await rig();
  const done = relay(r.client, r.backend, { upstream: r.upstream, downstream: r.downstream });
  await writeAll(r.clientPeer, randomBytes(10));
  await readExactly(r.backendPeer, 10);
  for (const size of [PROBE_BYTES, PROBE_BYTES, 1, PROBE_BYTES + 1]) {
    const message = randomBytes(size);
    await writeAll(r.clientPeer, message);
    assert.deepEqual(await readExactly(r.backendPeer, size), message, `a ${size}-byte message`);
    await writeAll(r.backendPeer, message);
    assert.deepEqual(await readExactly(r.clientPeer, size), message, `a ${size}-byte answer`);
  }
  r.clientPeer.close();
  r.backendPeer.close();
  await done;
});

Deno.test("relay: after an idle spell, a request larger than the probe still reaches the backend in one write", async () => {
  using r = await rig();
  const writes: Uint8Array[] = [];
  const backend = recordingWrites(r.backend, writes);
  const done = relay(r.client, backend, { upstream: r.upstream, downstream: r.downstream });
  await writeAll(r.clientPeer, randomBytes(10));
  await readExactly(r.backendPeer, 10);
  // Wait until the upstream direction is idle again (its probe read is pending) before sending more.
  await waitFor("the first message to be counted", () => r.upstream.value === SERIES_START.upstream + 10);
  const request = randomBytes(500);
  await writeAll(r.clientPeer, request);
  assert.deepEqual(await readExactly(r.backendPeer, request.length), request);
  assert.deepEqual(writes.map((bytes) => bytes.length), [10, 500], "probe bytes and the rest left together");
  r.clientPeer.close();
  r.backendPeer.close();
  await done;
});
