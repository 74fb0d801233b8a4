/**
 * Data integrity and fault tests through the real proxy child process: large transfers in
 * both directions, half-close, resets from either side, a backend that never reads, a slow
 * reader, many concurrent connections and a refused backend.
 *
 * The backend is the scripted PROXY-protocol server from `tests/support/proxy_backend.ts`,
 * which fails loudly on a missing or malformed header; resets come from
 * `tests/support/rst_peer.py`, because Deno cannot set SO_LINGER.
 */

import assert from "node:assert/strict";
import { createHash, type Hash, randomFillSync } from "node:crypto";
import { DEFAULT_RELAY_BUFFERS } from "../../lib/proxy/relay.ts";
import { freePort } from "../support/daemons.ts";
import { type ProxyProcess, ROOT, startProxy } from "../support/ouroboros_process.ts";
import { type BackendConnection, startProxyBackend } from "../support/proxy_backend.ts";
import { metric } from "../support/scrape.ts";
import {
  closeQuietly,
  concat,
  randomBytes,
  readAll,
  readExactly,
  readToEnd,
  sha256,
  writeAll,
} from "../support/conn_io.ts";
import { requireTool, skipWithout } from "../support/tools.ts";
import { waitFor } from "../support/wait.ts";

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

/** Growth of the proxy's resident memory we accept while it is under pressure. */
const RSS_GROWTH_LIMIT = 32 * MiB;

const ACTIVE_HTTP = ["ouroboros_proxy_connections_active", { listener: "http" }] as const;
const RSS = ["process_resident_memory_bytes", {}] as const;

// ---------------------------------------------------------------------------------------------
// Helpers

/** Starts the proxy with its HTTP listener forwarding to `port` on 127.0.0.1. */
function proxyTo(port: number, extra: readonly string[] = []): Promise<ProxyProcess> {
  return startProxy(["--target-host=127.0.0.1", `--target-http-port=${port}`, ...extra]);
}

function connectHttp(proxy: ProxyProcess): Promise<Deno.TcpConn> {
  assert.ok(proxy.http, "the proxy reported no http address");
  return Deno.connect({ hostname: proxy.http.hostname, port: proxy.http.port });
}

function localPort(conn: Deno.Conn): number {
  return (conn.localAddr as Deno.NetAddr).port;
}

/** Sends `total` random bytes in 1 MiB chunks, hashing what it sends. */
async function sendRandom(conn: Deno.Conn, total: number, hash: Hash): Promise<void> {
  const chunk = new Uint8Array(Math.min(MiB, total));
  let sent = 0;
  while (sent < total) {
    const part = chunk.subarray(0, Math.min(chunk.length, total - sent));
    randomFillSync(part);
    hash.update(part);
    await writeAll(conn, part);
    sent += part.length;
  }
}

/**
 * Runs part of a backend behaviour and hands its outcome to `result`, so a test awaiting that
 * result gets the behaviour's error instead of waiting for ever.
 */
async function report<T>(result: PromiseWithResolvers<T>, body: () => Promise<T>): Promise<void> {
  try {
    result.resolve(await body());
  } catch (error) {
    result.reject(error);
    throw error;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

/** How a read on a connection the other side has given up on ended. */
type ReadEnd = { readonly kind: "eof"; readonly bytes: number } | {
  readonly kind: "error";
  readonly error: unknown;
};

/** Reads until EOF or an error and says which, with the bytes seen before. */
async function readUntilClosed(conn: Deno.Conn): Promise<ReadEnd> {
  let bytes = 0;
  try {
    bytes = await readToEnd(conn, () => {}, 64 * KiB);
    return { kind: "eof", bytes };
  } catch (error) {
    return { kind: "error", error };
  }
}

/**
 * Awaits `promise` but gives up after `ms` (a guard against hangs, not a speed requirement):
 * `onTimeout` then releases whatever the promise is waiting on.
 */
async function within<T>(ms: number, what: string, promise: Promise<T>, onTimeout: () => void): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} did not happen within ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits until the active-connection gauge of the http listener reads `expected`. */
async function waitForActive(proxy: ProxyProcess, expected: number, timeoutMs = 10_000): Promise<void> {
  let last = NaN;
  try {
    await waitFor(`${ACTIVE_HTTP[0]}{listener="http"} to be ${expected}`, async () => {
      last = await metric(proxy, ACTIVE_HTTP);
      return last === expected;
    }, { timeoutMs, intervalMs: 20 });
  } catch (error) {
    throw new Error(`${(error as Error).message} (last value ${last})`);
  }
}

/**
 * Guards a test against hanging: if it is still running after `ms`, the proxy is killed, which
 * ends every connection through it so the test's own awaits finish; the test then fails on its
 * next look at the proxy (every test ends by reading /metrics). Only a safety net: no test
 * relies on it to pass.
 */
function hangGuard(proxy: ProxyProcess, ms = 60_000): Disposable {
  const timer = setTimeout(() => {
    // deno-lint-ignore no-console
    console.error(`hang guard: still running after ${ms} ms; killing the proxy to end the test`);
    proxy.kill("SIGKILL");
  }, ms);
  return { [Symbol.dispose]: () => clearTimeout(timer) };
}

/** Fails if the proxy logged an error or wrote anything that is not a JSON log line (a crash trace). */
function assertNoErrorLogs(proxy: ProxyProcess): void {
  const bad = proxy.logs.filter((line) =>
    line.level === "RAW" || line.level === "ERROR" || line.level === "FATAL"
  );
  assert.deepEqual(bad, [], "the proxy logged errors or non-JSON output");
}

/** The kernel's send and receive queue lengths of one TCP socket on 127.0.0.1. */
interface TcpQueues {
  readonly tx: number;
  readonly rx: number;
}

/**
 * Reads the queue lengths of the established loopback sockets named by `[localPort,
 * remotePort]` pairs from /proc/net/tcp (through `cat`: Deno grants /proc/net only to
 * `--allow-all`). tx is data written but not yet acknowledged by the peer's kernel, rx is
 * data received but not yet read by the application.
 */
async function tcpQueues(pairs: readonly (readonly [number, number])[]): Promise<TcpQueues[]> {
  const output = await new Deno.Command(requireTool("cat"), { args: ["/proc/net/tcp"], stdout: "piped" })
    .output();
  const rows = new TextDecoder().decode(output.stdout).split("\n").slice(1).map((line) =>
    line.trim().split(/\s+/)
  );
  // Addresses are the raw 32-bit value in host byte order: 127.0.0.1 reads 0100007F on the
  // little-endian machines we run on.
  const hexPort = (port: number) => port.toString(16).toUpperCase().padStart(4, "0");
  return pairs.map(([local, remote]) => {
    const row = rows.find((fields) =>
      fields[1] === `0100007F:${hexPort(local)}` && fields[2] === `0100007F:${hexPort(remote)}` &&
      fields[3] === "01"
    );
    assert.ok(row, `no established socket 127.0.0.1:${local} -> 127.0.0.1:${remote} in /proc/net/tcp`);
    const [tx, rx] = (row[4] ?? "").split(":");
    return { tx: parseInt(tx ?? "", 16), rx: parseInt(rx ?? "", 16) };
  });
}

/** A running `rst_peer.py`, with its stdout lines as they arrive. */
interface RstPeer extends AsyncDisposable {
  readonly lines: string[];
  readonly status: Promise<Deno.CommandStatus>;
  /** Waits for the first line starting with `prefix` after the first `skip` such lines. */
  line(prefix: string, skip?: number): Promise<string>;
}

function spawnRstPeer(args: readonly string[]): RstPeer {
  const child = new Deno.Command(requireTool("python3"), {
    args: [`${ROOT}tests/support/rst_peer.py`, ...args],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  let stderr = "";
  const out = (async () => {
    let buffer = "";
    for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        lines.push(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
      }
    }
  })();
  const err = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  let exited = false;
  const status = Promise.all([child.status, out, err]).then(([s]) => {
    exited = true;
    return s;
  });
  return {
    lines,
    status,
    line: (prefix, skip = 0) =>
      waitFor(`rst_peer.py to print a line starting with ${JSON.stringify(prefix)}`, () => {
        const found = lines.filter((line) => line.startsWith(prefix))[skip];
        if (found !== undefined) return found;
        if (exited) throw new Error(`rst_peer.py exited; stdout: ${lines.join(" | ")}; stderr: ${stderr}`);
        return undefined;
      }),
    async [Symbol.asyncDispose]() {
      if (!exited) {
        try {
          child.kill("SIGKILL");
        } catch { /* exited meanwhile */ }
      }
      await status;
    },
  };
}

/** The byte pattern rst_peer.py sends: byte i is i % 251. */
function rstPattern(count: number): Uint8Array {
  return Uint8Array.from({ length: count }, (_, i) => i % 251);
}

// ---------------------------------------------------------------------------------------------
// Tests

Deno.test("1 GiB each way at the same time arrives byte-exact (SHA-256) and is counted exactly", async () => {
  const backendDone = Promise.withResolvers<{ received: number; receivedHash: string; sentHash: string }>();
  await using backend = startProxyBackend(({ conn, initial }) =>
    report(backendDone, async () => {
      const received = createHash("sha256").update(initial);
      const sent = createHash("sha256");
      const [count] = await Promise.all([
        readToEnd(conn, (chunk) => received.update(chunk)),
        sendRandom(conn, GiB, sent).then(() => conn.closeWrite()),
      ]);
      return {
        received: count + initial.length,
        receivedHash: received.digest("hex"),
        sentHash: sent.digest("hex"),
      };
    })
  );
  await using proxy = await proxyTo(backend.port);
  using _guard = hangGuard(proxy, 120_000);
  const client = await connectHttp(proxy);
  try {
    const clientSent = createHash("sha256");
    const clientReceived = createHash("sha256");
    const [received] = await Promise.all([
      readToEnd(client, (chunk) => clientReceived.update(chunk)),
      sendRandom(client, GiB, clientSent).then(() => client.closeWrite()),
    ]);
    const atBackend = await backendDone.promise;
    assert.equal(received, GiB, "bytes the client received");
    assert.equal(atBackend.received, GiB, "bytes the backend received");
    assert.equal(clientReceived.digest("hex"), atBackend.sentHash, "backend → client data differs");
    assert.equal(atBackend.receivedHash, clientSent.digest("hex"), "client → backend data differs");
  } finally {
    client.close();
  }
  await waitForActive(proxy, 0);
  assert.equal(
    await metric(proxy, ["ouroboros_proxy_bytes_relayed_total", { listener: "http", direction: "upstream" }]),
    GiB,
  );
  assert.equal(
    await metric(proxy, ["ouroboros_proxy_bytes_relayed_total", {
      listener: "http",
      direction: "downstream",
    }]),
    GiB,
  );
  await backend.close();
  assertNoErrorLogs(proxy);
});

Deno.test("client half-close: the backend reads to EOF, then its 1 MiB reply reaches the client in full", async () => {
  const request = randomBytes(300 * KiB);
  const reply = randomBytes(MiB);
  const seen = Promise.withResolvers<Uint8Array>();
  await using backend = startProxyBackend(async ({ conn, initial }) => {
    await report(seen, async () => concat(initial, await readAll(conn)));
    await writeAll(conn, reply);
    // Returning closes the connection: the reply ends with a FIN.
  });
  await using proxy = await proxyTo(backend.port);
  using _guard = hangGuard(proxy);
  const client = await connectHttp(proxy);
  try {
    await writeAll(client, request);
    await client.closeWrite();
    const got = await readAll(client);
    assert.equal(got.length, reply.length, "reply length at the client");
    assert.equal(sha256(got), sha256(reply), "reply content at the client");
    const atBackend = await seen.promise;
    assert.equal(atBackend.length, request.length, "request length at the backend");
    assert.equal(sha256(atBackend), sha256(request), "request content at the backend");
    const [header] = backend.headers;
    assert.equal(header?.version, 1);
    assert.deepEqual(header?.source, { hostname: "127.0.0.1", port: localPort(client) });
  } finally {
    client.close();
  }
  await waitForActive(proxy, 0);
  await backend.close();
});

Deno.test("backend half-close (PROXY v2): after the backend's FIN the client keeps sending and all of it arrives", async () => {
  const reply = randomBytes(64 * KiB);
  const late = randomBytes(MiB);
  const seen = Promise.withResolvers<Uint8Array>();
  await using backend = startProxyBackend(async ({ conn, initial }) => {
    await writeAll(conn, reply);
    await conn.closeWrite();
    await report(seen, async () => concat(initial, await readAll(conn)));
  });
  await using proxy = await proxyTo(backend.port, ["--proxy-protocol=v2"]);
  using _guard = hangGuard(proxy);
  const client = await connectHttp(proxy);
  try {
    // The whole reply and then EOF: the backend's FIN has reached the client.
    const got = await readAll(client);
    assert.equal(sha256(got), sha256(reply), "reply at the client");
    await writeAll(client, late);
    await client.closeWrite();
    const atBackend = await seen.promise;
    assert.equal(atBackend.length, late.length, "bytes the backend received after its own FIN");
    assert.equal(sha256(atBackend), sha256(late), "data the backend received after its own FIN");
    const [header] = backend.headers;
    assert.equal(header?.version, 2);
    assert.deepEqual(header?.source, { hostname: "127.0.0.1", port: localPort(client) });
    assert.deepEqual(header?.destination, { hostname: "127.0.0.1", port: proxy.http?.port });
  } finally {
    client.close();
  }
  await waitForActive(proxy, 0);
  await backend.close();
});

Deno.test({
  name:
    "backend reset mid-stream: the client is closed promptly after the bytes sent before it; the proxy stays healthy",
  ignore: skipWithout("backend reset test", ["python3"]),
  fn: async () => {
    const sentBeforeReset = 10 * KiB;
    await using peer = spawnRstPeer(["server", "--send", String(sentBeforeReset)]);
    const port = Number((await peer.line("listening ")).split(" ")[1]);
    await using proxy = await proxyTo(port);
    using _guard = hangGuard(proxy);

    const client = await connectHttp(proxy);
    try {
      const before = await readExactly(client, sentBeforeReset);
      assert.deepEqual(before, rstPattern(sentBeforeReset), "bytes sent before the reset");
      assert.equal(
        await peer.line("header "),
        `header PROXY TCP4 127.0.0.1 127.0.0.1 ${localPort(client)} ${proxy.http?.port}`,
      );
      await writeAll(client, new Uint8Array([0x21])); // the go-ahead: the backend resets now
      await peer.line("reset");
      const end = await within(
        10_000,
        "the client connection closing",
        readUntilClosed(client),
        () => client.close(),
      );
      if (end.kind === "eof") assert.equal(end.bytes, 0, "bytes after the reset");
    } finally {
      closeQuietly(client);
    }
    await waitForActive(proxy, 0);

    // A new connection is served as usual.
    const second = await connectHttp(proxy);
    try {
      assert.deepEqual(await readExactly(second, sentBeforeReset), rstPattern(sentBeforeReset));
      assert.equal(
        await peer.line("header ", 1),
        `header PROXY TCP4 127.0.0.1 127.0.0.1 ${localPort(second)} ${proxy.http?.port}`,
      );
    } finally {
      second.close();
    }
    await peer.line("closed");
    await waitForActive(proxy, 0);
    assert.equal((await proxy.healthGet("/healthz")).status, 200);
    assertNoErrorLogs(proxy);
  },
});

Deno.test({
  name:
    "client reset mid-stream: the backend connection sees EOF or an error promptly and nothing stays open",
  ignore: skipWithout("client reset test", ["python3"]),
  fn: async () => {
    const clientSends = 10 * KiB;
    const backendEnd = Promise.withResolvers<ReadEnd>();
    const received = Promise.withResolvers<Uint8Array>();
    await using backend = startProxyBackend(async ({ conn, initial }) => {
      await report(
        received,
        async () => concat(initial, await readExactly(conn, clientSends - initial.length)),
      );
      await report(backendEnd, async () => {
        await writeAll(conn, new Uint8Array([0x21])); // the go-ahead: the client resets now
        return await readUntilClosed(conn);
      });
    });
    await using proxy = await proxyTo(backend.port);
    using _guard = hangGuard(proxy);
    assert.ok(proxy.http);
    await using peer = spawnRstPeer([
      "client",
      "--host",
      proxy.http.hostname,
      "--port",
      String(proxy.http.port),
      "--send",
      String(clientSends),
    ]);
    const port = Number((await peer.line("local ")).split(" ")[1]);
    assert.deepEqual(
      await received.promise,
      rstPattern(clientSends),
      "bytes the client sent before its reset",
    );
    await peer.line("reset");
    const end = await within(10_000, "the backend connection closing", backendEnd.promise, () => {});
    if (end.kind === "eof") assert.equal(end.bytes, 0, "bytes after the reset");
    assert.equal((await peer.status).code, 0);
    assert.equal(backend.headers[0]?.source?.port, port, "the header names the resetting client");
    await waitForActive(proxy, 0);
    await backend.close();
    assertNoErrorLogs(proxy);
  },
});

Deno.test("a backend that never reads stalls the client's writes; the proxy buffers at most one relay buffer", async () => {
  const attempt = 256 * MiB;
  const accepted = Promise.withResolvers<BackendConnection>();
  const giveUp = Promise.withResolvers<void>();
  await using backend = startProxyBackend(async (connection) => {
    accepted.resolve(connection);
    // Never read. Wait for the test (or the backend's shutdown), then close with the client's
    // bytes still unread, as an ingress controller does when its own timeout fires.
    connection.signal.addEventListener("abort", () => giveUp.resolve(), { once: true });
    await giveUp.promise;
  });
  await using proxy = await proxyTo(backend.port);
  using _guard = hangGuard(proxy);
  assert.ok(proxy.http);
  const client = await connectHttp(proxy);
  let sent = 0;
  let writer: Promise<void> = Promise.resolve();
  try {
    const atBackend = await accepted.promise;
    const rssBefore = await metric(proxy, RSS);
    const chunk = randomBytes(MiB);
    writer = (async () => {
      try {
        while (sent < attempt) sent += await client.write(chunk);
      } catch {
        // The client was closed below while a write was pending.
      }
    })();

    // Everything the client handed over is somewhere: in its own send queue, in the proxy's
    // receive queue, in the proxy's relay buffer, in the proxy's send queue to the backend or
    // in the backend's receive queue. Once two snapshots agree nothing is moving any more.
    const sockets = [
      [localPort(client), proxy.http.port],
      [proxy.http.port, localPort(client)],
      [atBackend.remote.port, backend.port],
      [backend.port, atBackend.remote.port],
    ] as const;
    const snapshot = async () => ({ sent, queues: await tcpQueues(sockets) });
    const stalled = await waitFor("the client's writes to stall", async () => {
      const first = await snapshot();
      await metric(proxy, RSS); // a round trip to the proxy between the two snapshots
      const second = await snapshot();
      return first.sent > 0 && JSON.stringify(first) === JSON.stringify(second) ? second : undefined;
    }, { timeoutMs: 60_000, intervalMs: 50 });
    const rssStalled = await metric(proxy, RSS);

    const [clientSide, proxyFromClient, proxyToBackend, backendSide] = stalled.queues as [
      TcpQueues,
      TcpQueues,
      TcpQueues,
      TcpQueues,
    ];
    const readByProxy = stalled.sent - clientSide.tx - proxyFromClient.rx;
    const writtenByProxy = proxyToBackend.tx + backendSide.rx + atBackend.initial.length;
    const heldByProxy = readByProxy - writtenByProxy;
    // Bytes a receiver has queued but not yet acknowledged show up in both the sender's and the
    // receiver's queue, so the estimate can fall below the truth by at most this much (it never
    // rises above it): a proxy buffering without bound would still show megabytes here.
    const doubleCounted = Math.min(clientSide.tx, proxyFromClient.rx) +
      Math.min(proxyToBackend.tx, backendSide.rx);
    assert.ok(stalled.sent < attempt, `the client handed over all ${attempt} bytes: no backpressure`);
    assert.ok(
      heldByProxy >= -doubleCounted && heldByProxy <= DEFAULT_RELAY_BUFFERS.pool.size,
      `the proxy holds ${heldByProxy} bytes of this connection (client handed over ${stalled.sent}, ` +
        `kernel queues ${JSON.stringify(stalled.queues)}); at most one relay buffer ` +
        `(${DEFAULT_RELAY_BUFFERS.pool.size}) is allowed`,
    );
    assert.ok(
      rssStalled - rssBefore < RSS_GROWTH_LIMIT,
      `proxy RSS grew by ${rssStalled - rssBefore} bytes while the client pushed ${stalled.sent}`,
    );
  } finally {
    client.close();
    await writer;
  }
  // The client is gone but its FIN waits behind the data the backend never reads, so only the
  // backend giving up ends the connection (the proxy has no idle timeout yet).
  giveUp.resolve();
  await waitForActive(proxy, 0);
  await backend.close();
  assertNoErrorLogs(proxy);
});

Deno.test("a slow reader gets all 64 MiB intact while the proxy's memory stays bounded", async () => {
  const total = 64 * MiB;
  let backendSent = 0;
  const sentHash = createHash("sha256");
  await using backend = startProxyBackend(async ({ conn }) => {
    const chunk = new Uint8Array(64 * KiB);
    while (backendSent < total) {
      randomFillSync(chunk);
      sentHash.update(chunk);
      await writeAll(conn, chunk);
      backendSent += chunk.length;
    }
  });
  await using proxy = await proxyTo(backend.port);
  using _guard = hangGuard(proxy);
  const client = await connectHttp(proxy);
  try {
    const rssBefore = await metric(proxy, RSS);
    let rssPeak = rssBefore;
    /** Waits until the backend, running ahead of the client, cannot write any more. */
    const backendStalls = (what: string) =>
      waitFor(what, async () => {
        const first = backendSent;
        rssPeak = Math.max(rssPeak, await metric(proxy, RSS)); // a round trip between the two looks
        return first > 0 && first === backendSent ? first : undefined;
      }, { timeoutMs: 60_000, intervalMs: 50 });

    const ahead = await backendStalls("the backend's writes to stall before the client reads");
    assert.ok(ahead < total, "the backend wrote everything while the client read nothing: no backpressure");

    const receivedHash = createHash("sha256");
    const buffer = new Uint8Array(16 * KiB);
    let received = 0;
    let paused = false;
    while (true) {
      const n = await client.read(buffer);
      if (n === null) break;
      receivedHash.update(buffer.subarray(0, n));
      received += n;
      if (!paused && received >= total / 2 && backendSent < total) {
        // Stop reading half-way until the backend is blocked again, then go on.
        paused = true;
        await backendStalls("the backend's writes to stall half-way");
      } else if (received % (4 * MiB) < n) {
        rssPeak = Math.max(rssPeak, await metric(proxy, RSS));
      }
    }
    assert.equal(received, total, "bytes the slow client received");
    assert.equal(receivedHash.digest("hex"), sentHash.digest("hex"), "data the slow client received");
    assert.ok(
      rssPeak - rssBefore < RSS_GROWTH_LIMIT,
      `proxy RSS grew by ${rssPeak - rssBefore} bytes relaying ${total} bytes to a slow reader`,
    );
  } finally {
    client.close();
  }
  await waitForActive(proxy, 0);
  await backend.close();
});

Deno.test("1,000 concurrent connections each get exactly their own bytes back, with their own client ports", async () => {
  const count = 1000;
  await using backend = startProxyBackend(async ({ conn, initial }) => {
    await writeAll(conn, initial);
    const buffer = new Uint8Array(16 * KiB);
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      await writeAll(conn, buffer.subarray(0, n));
    }
  });
  await using proxy = await proxyTo(backend.port);
  using _guard = hangGuard(proxy);
  const clients: Deno.TcpConn[] = [];
  try {
    const connected = await Promise.allSettled(Array.from({ length: count }, () => connectHttp(proxy)));
    for (const result of connected) if (result.status === "fulfilled") clients.push(result.value);
    assert.equal(clients.length, count, "connections the proxy accepted");
    // All of them are open at the same time, each with its own backend connection.
    await waitForActive(proxy, count, 30_000);
    await waitFor(`${count} PROXY headers at the backend`, () => backend.headers.length === count, {
      timeoutMs: 30_000,
    });

    const payloads = clients.map((_, index) => {
      const payload = randomBytes(2 * KiB + index);
      new DataView(payload.buffer).setUint32(0, index);
      return payload;
    });
    const echoed = await Promise.all(clients.map(async (client, index) => {
      const payload = payloads[index] ?? new Uint8Array(0);
      const [back] = await Promise.all([
        readAll(client),
        writeAll(client, payload).then(() => client.closeWrite()),
      ]);
      return back;
    }));
    for (const [index, back] of echoed.entries()) {
      assert.ok(payloads[index] !== undefined);
      assert.equal(back.length, payloads[index].length, `connection ${index}: echo length`);
      assert.ok(sameBytes(back, payloads[index]), `connection ${index}: echoed bytes differ`);
    }
    const clientPorts = clients.map(localPort).sort((a, b) => a - b);
    const headerPorts = backend.headers.map((header) => header.source?.port ?? -1).sort((a, b) => a - b);
    assert.equal(new Set(headerPorts).size, count, "distinct client ports named in PROXY headers");
    assert.deepEqual(headerPorts, clientPorts, "ports in the PROXY headers are the clients' own");
    assert.ok(backend.headers.every((header) => header.source?.hostname === "127.0.0.1"));
    assert.ok(backend.headers.every((header) => header.destination?.port === proxy.http?.port));
  } finally {
    for (const client of clients) client.close();
  }
  await waitForActive(proxy, 0, 30_000);
  await backend.close();
  assertNoErrorLogs(proxy);
});

Deno.test("a refused backend closes the client at once with no bytes and counts connection-refused", async () => {
  const closedPort = freePort();
  await using proxy = await proxyTo(closedPort);
  using _guard = hangGuard(proxy);
  const series = [
    "ouroboros_proxy_backend_dial_failures_total",
    { listener: "http", cause: "connection-refused" },
  ] as const;
  const before = await metric(proxy, series);
  const attempts = 3;
  for (let i = 0; i < attempts; i++) {
    const client = await connectHttp(proxy);
    try {
      const end = await within(
        10_000,
        "the client connection closing",
        readUntilClosed(client),
        () => client.close(),
      );
      if (end.kind === "eof") assert.equal(end.bytes, 0, "bytes the client received");
    } finally {
      closeQuietly(client);
    }
  }
  assert.equal(await metric(proxy, series), before + attempts);
  const warning = await proxy.waitForLog(
    "the dial failure warning",
    (line) => line.msg === "backend dial failed; closing the client connection",
  );
  assert.equal(warning.level, "WARN");
  assert.equal(warning.cause, "connection-refused");
  await waitForActive(proxy, 0);
  assertNoErrorLogs(proxy);
});

Deno.test("the scripted backend these tests rely on refuses connections without a valid PROXY header", async () => {
  // Without this, every test above could pass over a proxy that sent no header at all.
  const bad = [
    "GET / HTTP/1.1\r\nHost: x\r\n\r\n",
    "PROXY TCP4 127.0.0.01 127.0.0.1 1000 80\r\n",
    "PROXY TCP4 127.0.0.1  127.0.0.1 1000 80\r\n",
    "PROXY TCP6 ::FFFF:1 ::1 1000 80\r\n",
    "PROXY TCP4 127.0.0.1 127.0.0.1 01000 80\r\n",
    "PROXY TCP4 127.0.0.1 127.0.0.1 1000 80\n",
  ];
  let served = 0;
  const backend = startProxyBackend(() => {
    served += 1;
    return Promise.resolve();
  });
  for (const text of bad) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: backend.port });
    try {
      await writeAll(conn, new TextEncoder().encode(text));
      await conn.closeWrite();
      await readUntilClosed(conn);
    } finally {
      conn.close();
    }
  }
  await waitFor("the backend to finish every connection", () => backend.finished === bad.length);
  await assert.rejects(backend.close(), (error: unknown) => {
    assert.ok(error instanceof AggregateError);
    assert.equal(error.errors.length, bad.length);
    return true;
  });
  assert.equal(served, 0, "a behaviour ran for a connection with a bad header");
});
