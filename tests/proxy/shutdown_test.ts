import assert from "node:assert/strict";
import { type HostPort, type ProxyProcess, startProxy } from "../support/ouroboros_process.ts";
import { waitFor } from "../support/wait.ts";
import { echo, startProxyBackend } from "../support/proxy_backend.ts";

const SHUTDOWN_REQUESTED = "shutdown requested; readiness now fails, still accepting during the drain delay";
const LISTENERS_CLOSED = "listeners closed; waiting for connections in flight";
const GRACE_EXPIRED = "shutdown grace expired with active connections; closing them";
const FORCED = "second shutdown signal; closing active connections now";

/** Rejects if `promise` has not settled after `ms`: a hang guard, far above the expected time. */
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not happen within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await conn.write(bytes.subarray(offset));
}

async function readExactly(conn: Deno.Conn, length: number): Promise<Uint8Array> {
  const out = new Uint8Array(length);
  let filled = 0;
  while (filled < length) {
    const n = await conn.read(out.subarray(filled));
    if (n === null) throw new Error(`EOF after ${filled} of ${length} bytes`);
    filled += n;
  }
  return out;
}

/** Opens a connection through the proxy and proves it reaches the backend with one echo. */
async function echoConnection(address: HostPort, text: string): Promise<Deno.TcpConn> {
  const conn = await Deno.connect({ hostname: address.hostname, port: address.port });
  const bytes = new TextEncoder().encode(text);
  await writeAll(conn, bytes);
  assert.deepEqual(await readExactly(conn, bytes.length), bytes);
  return conn;
}

/** Reads until EOF; throws if data arrives instead. */
async function expectEof(conn: Deno.Conn): Promise<void> {
  const buffer = new Uint8Array(16);
  const n = await conn.read(buffer);
  assert.equal(n, null, "expected EOF, got data");
}

function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let offset = 0; offset < length; offset += 65_536) {
    crypto.getRandomValues(out.subarray(offset, Math.min(length, offset + 65_536)));
  }
  return out;
}

/**
 * New connections are refused. With one worker that holds at the "listeners closed" line; with
 * several (the suite's second run) each worker closes its own listener and only a worker with
 * connections in flight logs the line, so another may close a moment later: poll briefly.
 */
async function assertConnectRefused(address: HostPort): Promise<void> {
  await waitFor(`new connections to port ${address.port} to be refused`, async () => {
    try {
      (await Deno.connect({ hostname: address.hostname, port: address.port })).close();
      return false;
    } catch (error) {
      if (error instanceof Deno.errors.ConnectionRefused) return true;
      throw error;
    }
  }, { timeoutMs: 5_000 });
}

function closeQuietly(conn: Deno.Conn | undefined): void {
  try {
    conn?.close();
  } catch { /* closed already */ }
}

Deno.test("SIGTERM: readiness fails, new connections drain in, listeners close, in-flight completes, stragglers cut at grace", async () => {
  await using backend = startProxyBackend(echo);
  await using proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${backend.port}`,
    `--target-https-port=${backend.port}`,
    "--drain-delay=1s",
    "--shutdown-grace=8s",
  ]);
  const http = proxy.http;
  const https = proxy.https;
  assert.ok(http && https);
  let long: Deno.TcpConn | undefined;
  let idle: Deno.TcpConn | undefined;
  try {
    // A long transfer, a quarter of it done before the signal.
    const data = randomBytes(4 * 1024 * 1024);
    const firstPart = 1024 * 1024;
    long = await Deno.connect({ hostname: http.hostname, port: http.port });
    const longConn = long;
    const received = new Uint8Array(data.length);
    let receivedBytes = 0;
    const reader = (async () => {
      while (true) {
        const n = await longConn.read(received.subarray(receivedBytes));
        if (n === null) return;
        receivedBytes += n;
        if (receivedBytes === received.length) {
          // Everything came back; the next read must be EOF.
          const extra = await longConn.read(new Uint8Array(1));
          assert.equal(extra, null, "bytes after the full echo");
          return;
        }
      }
    })();
    // Awaited below; if a step before that fails, the closing in `finally` interrupts the read,
    // and that must not hide the step's own failure as an uncaught error.
    reader.catch(() => {});
    await writeAll(long, data.subarray(0, firstPart));
    await waitFor("the first part of the transfer to echo back", () => receivedBytes === firstPart);

    // An idle connection that will still be open when the grace runs out.
    idle = await echoConnection(https, "idle");

    proxy.kill("SIGTERM");
    await proxy.waitForLog("the shutdown log line", (line) => line.msg === SHUTDOWN_REQUESTED);

    // Right after the signal: not ready any more, but new connections are still served.
    const readyz = await proxy.healthGet("/readyz");
    assert.equal(readyz.status, 503, readyz.body);
    const drainedIn = await echoConnection(http, "accepted during the drain delay");
    drainedIn.close();

    // After the drain delay the listeners are closed.
    await proxy.waitForLog("the listeners to close", (line) => line.msg === LISTENERS_CLOSED);
    await assertConnectRefused(http);
    await assertConnectRefused(https);

    // The long transfer still completes, byte for byte.
    await writeAll(long, data.subarray(firstPart));
    await long.closeWrite();
    await within("the long transfer to finish", 30_000, reader);
    assert.equal(receivedBytes, data.length);
    assert.deepEqual(received, data);

    // The idle connection is closed by the proxy when the grace expires.
    await within("EOF on the idle connection", 30_000, expectEof(idle));
    const warn = await proxy.waitForLog("the grace-expired WARN", (line) => line.msg === GRACE_EXPIRED);
    assert.equal(warn.level, "WARN");
    assert.equal(warn.activeConnections, 1);

    const status = await within("the proxy to exit", 30_000, proxy.status);
    assert.equal(status.code, 0);
  } finally {
    closeQuietly(long);
    closeQuietly(idle);
  }
});

/** Sends SIGTERM, waits until the proxy acted on it, then sends the second one. */
async function doubleSigterm(proxy: ProxyProcess, waitForMsg: string): Promise<void> {
  proxy.kill("SIGTERM");
  await proxy.waitForLog(`"${waitForMsg}"`, (line) => line.msg === waitForMsg);
  proxy.kill("SIGTERM");
}

for (
  const [phase, drainDelay, waitForMsg] of [
    ["during the drain delay", "60s", SHUTDOWN_REQUESTED],
    ["while waiting for connections in flight", "0s", LISTENERS_CLOSED],
  ] as const
) {
  Deno.test(`a second SIGTERM ${phase} exits promptly and closes open connections`, async () => {
    await using backend = startProxyBackend(echo);
    await using proxy = await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${backend.port}`,
      `--drain-delay=${drainDelay}`,
      "--shutdown-grace=120s",
    ]);
    assert.ok(proxy.http);
    const open = await echoConnection(proxy.http, "still open");
    try {
      await doubleSigterm(proxy, waitForMsg);
      // Far below the 120 s grace (and the 60 s drain delay): only a forced stop gets here.
      const status = await within("the proxy to exit after the second SIGTERM", 30_000, proxy.status);
      assert.equal(status.code, 0);
      assert.equal(proxy.logs.some((line) => line.msg === "proxy stopped"), true);
      assert.equal(proxy.logs.some((line) => line.msg === FORCED), true, "the forced close is logged");
      assert.equal(proxy.logs.some((line) => line.msg === GRACE_EXPIRED), false, "the grace did not expire");
      await within("EOF on the open connection", 30_000, expectEof(open));
    } finally {
      open.close();
    }
  });
}
