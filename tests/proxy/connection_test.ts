/**
 * In-process tests of `handleConnection()` over real loopback sockets, with a dialer the test
 * holds back: what happens to the client's first bytes, its half-close or its going away while
 * the backend is still being dialed, and that the PROXY header still reaches a backend that
 * speaks first without waiting for the client.
 */

import assert from "node:assert/strict";
import { BufferPool } from "../../lib/proxy/buffer_pool.ts";
import { handleConnection, listenerSeries } from "../../lib/proxy/connection.ts";
import { DIAL_CAUSES } from "../../lib/proxy/dial_cause.ts";
import type { DialRequest } from "../../lib/proxy/dialer.ts";
import { encodeProxyHeader, type ProxyProtocolVersion } from "../../lib/proxy/proxy_protocol.ts";
import { createProxyMetrics } from "../../lib/proxy/proxy_metrics.ts";
import type { Activity, RelayBuffers } from "../../lib/proxy/relay.ts";
import { systemClock } from "../../lib/util/clock.ts";
import { Throttle } from "../../lib/util/throttle.ts";
import {
  closeQuietly,
  concat,
  readAll,
  readExactly,
  readsClosed,
  recordingWrites,
  socketPair,
  writeAll,
} from "../support/conn_io.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

const encoder = new TextEncoder();
const REQUEST = encoder.encode("GET / HTTP/1.1\r\nHost: example.test\r\n\r\n");
const RESPONSE = encoder.encode("HTTP/1.1 204 No Content\r\n\r\n");

/** One connection under test, its peers, and the dial the test releases. */
interface Rig extends AsyncDisposable {
  /** The test's end of the client connection. */
  readonly clientPeer: Deno.TcpConn;
  /** Resolves when the handler is done. */
  readonly done: Promise<void>;
  /** Lets the dial go ahead: it connects to the backend (or to `refusedPort`, which refuses). */
  readonly releaseDial: (outcome: "connect" | "refuse") => void;
  /** The backend's accepted connection, once the dial has gone ahead. */
  readonly backendPeer: () => Promise<Deno.TcpConn>;
  /** Every write the handler made to the backend. */
  readonly writes: Uint8Array[];
  /** The connection's activity counter, which the early read bumps when it completes. */
  readonly activity: () => Activity;
  readonly stop: AbortController;
  readonly header: Uint8Array;
  readonly metrics: ReturnType<typeof createProxyMetrics>;
  readonly buffers: RelayBuffers & { readonly smallPool: BufferPool };
}

async function rig(version: ProxyProtocolVersion = "v1"): Promise<Rig> {
  const [clientPeer, client] = await socketPair();
  const backendListener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const refused = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const refusedPort = refused.addr.port;
  refused.close();
  const gate = Promise.withResolvers<"connect" | "refuse">();
  const writes: Uint8Array[] = [];
  let accepted: Promise<Deno.TcpConn> | undefined;
  const dial = async (request: DialRequest): Promise<Deno.TcpConn> => {
    const outcome = await gate.promise;
    if (outcome === "refuse") return await Deno.connect({ hostname: "127.0.0.1", port: refusedPort });
    accepted = backendListener.accept();
    const conn = await Deno.connect({ hostname: request.host, port: request.port });
    return recordingWrites(conn, writes);
  };
  let activity: Activity | undefined;
  const metrics = createProxyMetrics({ rss: () => 0, version: "test" });
  const buffers = { small: 1024, pool: new BufferPool(4096, 4), smallPool: new BufferPool(1024, 4) };
  const stop = new AbortController();
  const header = encodeProxyHeader(version, {
    client: client.remoteAddr,
    local: client.localAddr,
  });
  const done = handleConnection(client, {
    context: {
      listener: "http",
      backendHost: "127.0.0.1",
      backendPort: backendListener.addr.port,
      proxyProtocol: version,
      dialTimeoutMs: 10_000,
      dial,
      series: listenerSeries(metrics, "http"),
      log: new LogRecorder(),
      throttle: new Throttle(systemClock, 10_000),
      clock: systemClock,
      idle: {
        track(tracked: Activity) {
          activity = tracked;
          return () => {};
        },
      },
      debug: false,
      buffers,
    },
    stop,
  });
  return {
    clientPeer,
    done,
    releaseDial: (outcome) => gate.resolve(outcome),
    backendPeer: () => waitFor("the dial to reach the backend", () => accepted),
    writes,
    activity: () => {
      assert.ok(activity, "the connection was not tracked");
      return activity;
    },
    stop,
    header,
    metrics,
    buffers,
    async [Symbol.asyncDispose]() {
      gate.resolve("refuse");
      closeQuietly(clientPeer);
      if (accepted) closeQuietly(await accepted.catch(() => ({ close() {} })));
      await done;
      backendListener.close();
    },
  };
}

/** Waits until the handler's read of the client has completed (the bytes or EOF are in). */
function clientReadDone(r: Rig): Promise<true> {
  return waitFor("the client's first read to complete", () => r.activity().count > 0 || undefined);
}

function upstreamBytes(r: Rig): number {
  return r.metrics.bytes.labels({ listener: "http", direction: "upstream" }).value;
}

for (const version of ["v1", "v2"] as const) {
  Deno.test(`connection (${version}): bytes the client sent during the dial leave with the header in one write`, async () => {
    await using r = await rig(version);
    await writeAll(r.clientPeer, REQUEST);
    await clientReadDone(r);
    r.releaseDial("connect");
    const backend = await r.backendPeer();
    const expected = concat(r.header, REQUEST);
    assert.deepEqual(await readExactly(backend, expected.length), expected);
    assert.deepEqual(r.writes, [expected], "header and request went in one write");
    await writeAll(backend, RESPONSE);
    assert.deepEqual(await readExactly(r.clientPeer, RESPONSE.length), RESPONSE);
    await r.clientPeer.closeWrite();
    assert.equal(await backend.read(new Uint8Array(16)), null, "the client's EOF reaches the backend");
    backend.close();
    await r.done;
    assert.equal(upstreamBytes(r), REQUEST.length, "the bytes sent with the header are counted");
  });
}

Deno.test("connection: a client still silent when the dial completes gets the header written alone, so a backend that speaks first is heard", async () => {
  await using r = await rig();
  r.releaseDial("connect");
  const backend = await r.backendPeer();
  assert.deepEqual(await readExactly(backend, r.header.length), r.header);
  assert.deepEqual(r.writes, [r.header]);
  const greeting = encoder.encode("220 ready\r\n");
  await writeAll(backend, greeting);
  assert.deepEqual(await readExactly(r.clientPeer, greeting.length), greeting);
  await writeAll(r.clientPeer, REQUEST);
  assert.deepEqual(await readExactly(backend, REQUEST.length), REQUEST);
  r.clientPeer.close();
  assert.equal(await backend.read(new Uint8Array(16)), null);
  backend.close();
  await r.done;
  assert.equal(upstreamBytes(r), REQUEST.length);
});

Deno.test("connection: a dial that fails after the client sent data closes the client, counts the cause and keeps the buffer", async () => {
  await using r = await rig();
  await writeAll(r.clientPeer, REQUEST);
  await clientReadDone(r);
  const spareBefore = r.buffers.smallPool.spare;
  r.releaseDial("refuse");
  await r.done;
  assert.ok(await readsClosed(r.clientPeer), "the client is closed");
  const failures = DIAL_CAUSES.map((cause) => [
    cause,
    r.metrics.dialFailures.labels({ listener: "http", cause }).value,
  ]);
  assert.deepEqual(failures.filter(([, count]) => count !== 0), [["connection-refused", 1]]);
  assert.equal(r.buffers.smallPool.spare, spareBefore + 1, "the early read's buffer went back to the pool");
  assert.equal(upstreamBytes(r), 0);
});

Deno.test("connection: a client that sends and half-closes during the dial still gets the whole reply", async () => {
  await using r = await rig();
  await writeAll(r.clientPeer, REQUEST);
  await r.clientPeer.closeWrite();
  await clientReadDone(r);
  r.releaseDial("connect");
  const backend = await r.backendPeer();
  assert.deepEqual(await readAll(backend), concat(r.header, REQUEST), "header, request, then EOF");
  assert.deepEqual(r.writes, [concat(r.header, REQUEST)]);
  await writeAll(backend, RESPONSE);
  backend.close();
  assert.deepEqual(await readAll(r.clientPeer), RESPONSE);
  await r.done;
});

Deno.test("connection: a client that half-closes during the dial without sending: the backend gets the header, then EOF, and its reply arrives", async () => {
  await using r = await rig();
  await r.clientPeer.closeWrite();
  await clientReadDone(r);
  r.releaseDial("connect");
  const backend = await r.backendPeer();
  assert.deepEqual(await readAll(backend), r.header);
  await writeAll(backend, RESPONSE);
  backend.close();
  assert.deepEqual(await readAll(r.clientPeer), RESPONSE);
  await r.done;
});

Deno.test("connection: a client that goes away during the dial: the backend gets the header and EOF, and the handler ends", async () => {
  await using r = await rig();
  r.clientPeer.close();
  await clientReadDone(r);
  r.releaseDial("connect");
  const backend = await r.backendPeer();
  assert.deepEqual(await readAll(backend), r.header);
  backend.close();
  await r.done;
});

Deno.test("connection: a stop during the dial closes the client at once and the late backend connection unused", async () => {
  await using r = await rig();
  await writeAll(r.clientPeer, REQUEST);
  r.stop.abort("shutdown");
  assert.ok(await readsClosed(r.clientPeer), "the client is closed before the dial completes");
  r.releaseDial("connect");
  const backend = await r.backendPeer();
  assert.deepEqual(await readAll(backend), new Uint8Array(0), "no header, no bytes");
  backend.close();
  await r.done;
  assert.deepEqual(r.writes, []);
  assert.equal(r.buffers.smallPool.spare, 1, "the early read's buffer went back to the pool");
});
