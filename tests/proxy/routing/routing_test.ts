/**
 * Routing in a running proxy server (in process, real loopback sockets): each connection reaches
 * the backend its SNI or Host names, with its own PROXY version, then exactly the bytes the client
 * sent; everything unroutable reaches the default target; a silent client is closed at the
 * deadline; a table swap under load drops nothing. A client that sends its own PROXY header first
 * still cannot spoof its address with routing on (reliability matrix T-6.4): it reaches the default
 * target behind ours.
 */

import assert from "node:assert/strict";
import { createProxyMetrics } from "../../../lib/proxy/proxy_metrics.ts";
import { ProxyServer } from "../../../lib/proxy/server.ts";
import { systemDialer } from "../../../lib/proxy/dialer.ts";
import type { RouteBackend, RouteTable } from "../../../lib/routes/route_table.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import { clientHello, extension, records, serverName, vector16 } from "../../support/client_hello.ts";
import { concat, readAll, readExactly, writeAll } from "../../support/conn_io.ts";
import { LogRecorder } from "../../support/log_recorder.ts";
import { type BackendConnection, type ProxyBackend, startProxyBackend } from "../../support/proxy_backend.ts";
import { waitFor } from "../../support/wait.ts";

const encoder = new TextEncoder();

/** Reads what the client sent until it half-closes, and sends it back: the bytes the backend saw. */
async function mirror({ conn, initial }: BackendConnection): Promise<void> {
  const rest = await readAll(conn);
  await writeAll(conn, concat(initial, rest));
  conn.close();
}

interface Rig extends AsyncDisposable {
  readonly server: ProxyServer;
  readonly backends: Readonly<Record<"default" | "gateway" | "nginx", ProxyBackend>>;
  readonly metrics: ReturnType<typeof createProxyMetrics>;
  readonly log: LogRecorder;
  readonly port: (listener: "http" | "https") => number;
}

function backendOf(backend: ProxyBackend, proxyProtocol: "v1" | "v2"): RouteBackend {
  return { address: backend.hostname, httpPort: backend.port, httpsPort: backend.port, proxyProtocol };
}

function tableFor(backends: Rig["backends"], swapped = false): RouteTable {
  const [gateway, nginx] = swapped ? ["nginx", "gateway"] : ["gateway", "nginx"];
  return {
    routes: [
      { host: "app.example.com", backend: gateway },
      { host: "*.apps.example.com", backend: gateway },
      { host: "shop.example.com", backend: nginx },
    ],
    backends: new Map([
      ["gateway", backendOf(backends.gateway, "v2")],
      ["nginx", backendOf(backends.nginx, "v1")],
    ]),
  };
}

function rig(readTimeoutMs = 10_000): Rig {
  const backends = {
    default: startProxyBackend(mirror),
    gateway: startProxyBackend(mirror),
    nginx: startProxyBackend(mirror),
  };
  const metrics = createProxyMetrics({ rss: () => 0, version: "test", routing: true });
  const log = new LogRecorder();
  const listen = { host: "127.0.0.1", port: 0 };
  const server = ProxyServer.start({
    listeners: [
      { name: "http", address: listen, backendPort: backends.default.port },
      { name: "https", address: listen, backendPort: backends.default.port },
    ],
    backendHost: "127.0.0.1",
    readinessPort: backends.default.port,
    proxyProtocol: "v1",
    dialTimeoutMs: 5_000,
    readyTimeoutMs: 1_000,
    shutdownGraceMs: 5_000,
    drainDelayMs: 0,
    idleTimeoutMs: 0,
    routing: { readTimeoutMs, maxBytes: 16 * 1024 },
  }, { dial: systemDialer, clock: systemClock, log, metrics });
  server.setRoutes(tableFor(backends));
  const shutdown = new AbortController();
  const force = new AbortController();
  const running = server.run({ shutdown: shutdown.signal, force: force.signal });
  return {
    server,
    backends,
    metrics,
    log,
    port: (listener) => Number(server.addresses[listener]!.split(":").at(-1)),
    async [Symbol.asyncDispose]() {
      shutdown.abort();
      force.abort();
      await running;
      for (const backend of Object.values(backends)) await backend.close();
    },
  };
}

/** Sends `bytes` on a new connection, half-closes, and returns what came back (the backend's view). */
async function exchange(port: number, bytes: Uint8Array, chunks = 1): Promise<Uint8Array> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const size = Math.ceil(bytes.length / chunks);
  for (let at = 0; at < bytes.length; at += size) await writeAll(conn, bytes.subarray(at, at + size));
  await conn.closeWrite();
  const answer = await readAll(conn);
  conn.close();
  return answer;
}

function hello(...names: string[]): Uint8Array {
  return records(
    clientHello([extension(10, vector16([0, 0x1d])), ...names.map((name) => serverName([0, name]))]),
  );
}

function head(host: string): Uint8Array {
  return encoder.encode(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
}

const CASES: readonly {
  readonly name: string;
  readonly listener: "http" | "https";
  readonly bytes: Uint8Array;
  readonly backend: "default" | "gateway" | "nginx";
  readonly outcome: string;
  readonly chunks?: number;
}[] = [
  {
    name: "SNI, exact",
    listener: "https",
    bytes: hello("app.example.com"),
    backend: "gateway",
    outcome: "found",
  },
  {
    name: "SNI, any case and a final dot",
    listener: "https",
    bytes: hello("SHOP.Example.com."),
    backend: "nginx",
    outcome: "found",
  },
  {
    name: "SNI, wildcard",
    listener: "https",
    bytes: hello("x.apps.example.com"),
    backend: "gateway",
    outcome: "found",
  },
  {
    name: "SNI, two labels under a wildcard",
    listener: "https",
    bytes: hello("a.x.apps.example.com"),
    backend: "default",
    outcome: "found",
  },
  {
    name: "SNI, unknown",
    listener: "https",
    bytes: hello("other.example.com"),
    backend: "default",
    outcome: "found",
  },
  { name: "no SNI", listener: "https", bytes: hello(), backend: "default", outcome: "no-name" },
  {
    name: "two server_name extensions",
    listener: "https",
    bytes: hello("app.example.com", "shop.example.com"),
    backend: "default",
    outcome: "invalid",
  },
  {
    name: "plain HTTP on the HTTPS port",
    listener: "https",
    bytes: head("app.example.com"),
    backend: "default",
    outcome: "not-tls",
  },
  {
    name: "a hello in many records and writes",
    listener: "https",
    bytes: records(
      clientHello([serverName([0, "shop.example.com"]), extension(21, new Array(3000).fill(0))]),
      [700],
    ),
    backend: "nginx",
    outcome: "found",
    chunks: 9,
  },
  {
    name: "a record larger than the cap",
    listener: "https",
    bytes: new Uint8Array([22, 3, 1, 0x40, 0x00, 1, 0x01, 0x00, 0x00, ...new Array(100).fill(0)]),
    backend: "default",
    outcome: "too-large",
  },
  {
    name: "garbage",
    listener: "https",
    bytes: new Uint8Array([22, 3, 3, 0, 5, 9, 9, 9, 9, 9]),
    backend: "default",
    outcome: "invalid",
  },
  {
    name: "Host, exact",
    listener: "http",
    bytes: head("app.example.com:8080"),
    backend: "gateway",
    outcome: "found",
  },
  {
    name: "Host, wildcard",
    listener: "http",
    bytes: head("b.apps.example.com"),
    backend: "gateway",
    outcome: "found",
  },
  {
    name: "Host in pieces",
    listener: "http",
    bytes: head("shop.example.com"),
    backend: "nginx",
    outcome: "found",
    chunks: 12,
  },
  {
    name: "absolute form wins over Host",
    listener: "http",
    bytes: encoder.encode("GET http://shop.example.com/ HTTP/1.1\r\nHost: app.example.com\r\n\r\n"),
    backend: "nginx",
    outcome: "found",
  },
  { name: "Host, an IP", listener: "http", bytes: head("10.0.0.1"), backend: "default", outcome: "no-name" },
  {
    name: "two Host lines",
    listener: "http",
    bytes: encoder.encode("GET / HTTP/1.1\r\nHost: a.example.com\r\nHost: app.example.com\r\n\r\n"),
    backend: "default",
    outcome: "invalid",
  },
  {
    name: "a client's own PROXY header (T-6.4)",
    listener: "http",
    bytes: encoder.encode(
      "PROXY TCP4 1.2.3.4 10.0.0.1 1111 80\r\nGET / HTTP/1.1\r\nHost: app.example.com\r\n\r\n",
    ),
    backend: "default",
    outcome: "invalid",
  },
  {
    name: "TLS on the HTTP port",
    listener: "http",
    bytes: hello("app.example.com"),
    backend: "default",
    outcome: "invalid",
  },
  {
    name: "a head past the cap",
    listener: "http",
    bytes: encoder.encode(`GET / HTTP/1.1\r\nX: ${"a".repeat(17_000)}\r\n`),
    backend: "default",
    outcome: "too-large",
  },
  {
    name: "a partial head, then the client's end",
    listener: "http",
    bytes: encoder.encode("GET / HTTP/1.1\r\nHost: app.exa"),
    backend: "default",
    outcome: "closed",
  },
];

Deno.test("routing: each connection reaches the backend its SNI or Host names, else the default, with the bytes sent", async (t) => {
  await using proxy = rig();
  const seen = { default: 0, gateway: 0, nginx: 0 };
  for (const testCase of CASES) {
    await t.step(testCase.name, async () => {
      const reads = proxy.metrics.routeReads.labels({
        listener: testCase.listener,
        outcome: testCase.outcome,
      });
      const before = reads.value;
      const answer = await exchange(proxy.port(testCase.listener), testCase.bytes, testCase.chunks);
      assert.deepEqual(answer, testCase.bytes, "the backend must see exactly the client's bytes");
      seen[testCase.backend] += 1;
      for (const [name, backend] of Object.entries(proxy.backends)) {
        assert.equal(backend.headers.length, seen[name as keyof typeof seen], `connections at ${name}`);
      }
      const header = proxy.backends[testCase.backend].headers.at(-1)!;
      assert.equal(header.version, testCase.backend === "gateway" ? 2 : 1, "the backend's own PROXY version");
      assert.equal(header.source?.hostname, "127.0.0.1");
      assert.equal(reads.value, before + 1, `outcome ${testCase.outcome} counted`);
    });
  }
  const connections = (route: string) => proxy.metrics.routeConnections.labels({ route }).value;
  assert.deepEqual(
    [connections("gateway"), connections("nginx"), connections("default")],
    [seen.gateway, seen.nginx, seen.default],
  );
});

Deno.test("routing: a client silent past --route-read-timeout is closed without a dial; a slow one too", async () => {
  await using proxy = rig(300);
  for (const sent of [new Uint8Array(0), head("app.example.com").subarray(0, 10)]) {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port("http") });
    await writeAll(conn, sent);
    assert.equal(await conn.read(new Uint8Array(16)), null, "closed by the proxy at the deadline");
    conn.close();
  }
  assert.equal(proxy.metrics.routeReads.labels({ listener: "http", outcome: "timeout" }).value, 2);
  for (const backend of Object.values(proxy.backends)) assert.equal(backend.headers.length, 0);
});

Deno.test("routing: a table swap under load drops no connection; new connections follow the new table", async () => {
  await using proxy = rig();
  const payload = encoder.encode("x".repeat(4096));
  // Connections opened on the first table, still sending when the table changes.
  const inFlight = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port("http") });
    await writeAll(conn, head(i % 2 === 0 ? "app.example.com" : "shop.example.com"));
    return conn;
  }));
  await waitFor(
    "the first connections to reach their backends",
    () => proxy.backends.gateway.headers.length + proxy.backends.nginx.headers.length === 20 || undefined,
  );
  const swaps = Array.from({ length: 51 }, (_, i) => tableFor(proxy.backends, i % 2 === 0));
  const flood = Array.from(
    { length: 40 },
    (_, i) => exchange(proxy.port("https"), hello(`n${i}.apps.example.com`)),
  );
  for (const table of swaps) proxy.server.setRoutes(table);
  const floodAnswers = await Promise.all(flood);
  for (const answer of floodAnswers) {
    assert.equal(answer.length > 0, true, "every flood connection was served");
  }
  for (const [i, conn] of inFlight.entries()) {
    await writeAll(conn, payload);
    await conn.closeWrite();
    const answer = await readAll(conn);
    conn.close();
    assert.deepEqual(answer, concat(head(i % 2 === 0 ? "app.example.com" : "shop.example.com"), payload));
  }
  // The last table swapped the backends: app.example.com now goes to nginx.
  const before = proxy.backends.nginx.headers.length;
  await exchange(proxy.port("http"), head("app.example.com"));
  assert.equal(proxy.backends.nginx.headers.length, before + 1);
});

Deno.test("routing: an empty table reads nothing ahead, so a server-first backend still speaks first", async () => {
  const greeting = encoder.encode("220 hello\r\n");
  const speaker = startProxyBackend(async ({ conn }) => {
    await writeAll(conn, greeting);
    conn.close();
  });
  const metrics = createProxyMetrics({ rss: () => 0, version: "test", routing: true });
  const server = ProxyServer.start({
    listeners: [{ name: "http", address: { host: "127.0.0.1", port: 0 }, backendPort: speaker.port }],
    backendHost: "127.0.0.1",
    readinessPort: speaker.port,
    proxyProtocol: "v1",
    dialTimeoutMs: 5_000,
    readyTimeoutMs: 1_000,
    shutdownGraceMs: 5_000,
    drainDelayMs: 0,
    idleTimeoutMs: 0,
    routing: { readTimeoutMs: 60_000, maxBytes: 16 * 1024 },
  }, { dial: systemDialer, clock: systemClock, log: new LogRecorder(), metrics });
  server.setRoutes({ routes: [], backends: new Map() });
  const shutdown = new AbortController();
  const running = server.run({ shutdown: shutdown.signal, force: shutdown.signal });
  const conn = await Deno.connect({
    hostname: "127.0.0.1",
    port: Number(server.addresses.http!.split(":").at(-1)),
  });
  assert.deepEqual(await readExactly(conn, greeting.length), greeting);
  conn.close();
  assert.equal(metrics.routeConnections.labels({ route: "default" }).value, 1);
  shutdown.abort();
  await running;
  await speaker.close();
});
