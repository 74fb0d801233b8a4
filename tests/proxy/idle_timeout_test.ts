import assert from "node:assert/strict";
import { type ProxyProcess, startProxy } from "../support/ouroboros_process.ts";
import { startProxyBackend } from "../support/proxy_backend.ts";
import { metric } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";

const IDLE_HTTP = ["ouroboros_proxy_idle_timeouts_total", { listener: "http" }] as const;
const ACTIVE_HTTP = ["ouroboros_proxy_connections_active", { listener: "http" }] as const;

async function connect(proxy: ProxyProcess): Promise<Deno.TcpConn> {
  assert.ok(proxy.http);
  return await Deno.connect(proxy.http);
}

/** Resolves when the peer closes (EOF or reset); fails the test if data arrives instead. */
async function closedByPeer(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(1024);
  try {
    const n = await conn.read(buffer);
    assert.equal(n, null, "expected the proxy to close the connection, got data");
  } catch {
    // A reset is a close too.
  }
}

Deno.test("--idle-timeout closes a connection on which nothing moves, on both sides, and counts it", async () => {
  const backendSawEnd = Promise.withResolvers<void>();
  await using backend = startProxyBackend(async ({ conn }) => {
    await closedByPeer(conn);
    backendSawEnd.resolve();
  });
  await using proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${backend.port}`,
    "--idle-timeout=1s",
  ]);
  assert.equal(proxy.starting.idleTimeoutSeconds, 1);
  const client = await connect(proxy);
  try {
    await waitFor("the backend to get the connection", () => backend.headers.length === 1);
    await closedByPeer(client);
    await backendSawEnd.promise;
    assert.equal(await metric(proxy, IDLE_HTTP), 1);
    await waitFor("the active gauge to drop to 0", async () => (await metric(proxy, ACTIVE_HTTP)) === 0);
  } finally {
    client.close();
  }
});

Deno.test("--idle-timeout leaves a connection alone while bytes keep moving", async () => {
  await using backend = startProxyBackend(async ({ conn, initial }) => {
    // Echo until the client leaves.
    if (initial.length > 0) await conn.write(initial);
    const buffer = new Uint8Array(1024);
    for (;;) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) return;
      await conn.write(buffer.subarray(0, n));
    }
  });
  await using proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${backend.port}`,
    "--idle-timeout=1s",
  ]);
  const client = await connect(proxy);
  try {
    // Ping-pong for three timeouts' worth of wall time: each round trip is activity.
    const until = performance.now() + 3_000;
    const byte = new Uint8Array([42]);
    const reply = new Uint8Array(1);
    let rounds = 0;
    while (performance.now() < until) {
      await client.write(byte);
      const n = await client.read(reply);
      assert.equal(n, 1, `the connection ended after ${rounds} round trips`);
      rounds += 1;
    }
    assert.equal(await metric(proxy, IDLE_HTTP), 0);
  } finally {
    client.close();
  }
});

Deno.test("a backend that never reads cannot pin a connection forever: the idle timeout frees it", async () => {
  const stuck = Promise.withResolvers<void>();
  await using backend = startProxyBackend(async ({ signal }) => {
    // Never read; hold the connection until the backend shuts down.
    signal.addEventListener("abort", () => stuck.resolve(), { once: true });
    await stuck.promise;
  });
  await using proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${backend.port}`,
    "--idle-timeout=1s",
  ]);
  const client = await connect(proxy);
  const chunk = new Uint8Array(1024 * 1024);
  let sent = 0;
  const writer = (async () => {
    try {
      for (;;) sent += await client.write(chunk);
    } catch {
      // Closed below or by the proxy.
    }
  })();
  // Once the kernel buffers are full the writes stall; then the client gives up and closes.
  // Its FIN sits behind data nobody reads, so only the idle timeout can end the connection.
  await waitFor("the client's writes to stall", async () => {
    const before = sent;
    await metric(proxy, ACTIVE_HTTP);
    await metric(proxy, ACTIVE_HTTP);
    return before > 0 && sent === before;
  }, { timeoutMs: 30_000 });
  client.close();
  await writer;
  await waitFor("the active gauge to drop to 0", async () => (await metric(proxy, ACTIVE_HTTP)) === 0, {
    timeoutMs: 10_000,
  });
  assert.equal(await metric(proxy, IDLE_HTTP), 1);
});
