import assert from "node:assert/strict";
import { createProxyMetrics } from "../../lib/proxy/proxy_metrics.ts";
import { backendReadiness } from "../../lib/proxy/backend_readiness.ts";
import { HealthListener } from "../../lib/daemon/health_listener.ts";
import { logger } from "../../lib/util/logging.ts";
import { freePort } from "../support/daemons.ts";
import { type LogLine, type ProxyProcess, startProxy } from "../support/ouroboros_process.ts";
import { requireTool, skipWithout } from "../support/tools.ts";
import { discard, startProxyBackend } from "../support/proxy_backend.ts";
import { metric } from "../support/scrape.ts";

const READINESS_FAILED = "backend readiness check failed";
const READINESS_RECOVERED = "backend readiness recovered";

/**
 * Waits until every line the proxy logged before this call has been read. A readiness log line
 * is written (synchronously) before its `/readyz` response is sent; this opens a connection
 * through the https listener (debug level logs "connection closed" for it) and waits for that
 * line, so a WARN or INFO a probe had logged would be in `proxy.logs` by then.
 */
async function logBarrier(proxy: ProxyProcess): Promise<void> {
  const https = proxy.https;
  assert.ok(https, "the barrier needs the https listener");
  const conn = await Deno.connect({ hostname: https.hostname, port: https.port });
  const client = `127.0.0.1:${conn.localAddr.port}`;
  conn.close();
  await proxy.waitForLog(
    `the barrier connection from ${client} to close`,
    (line) => line.msg === "connection closed" && line.client === client,
  );
}

function count(proxy: ProxyProcess, msg: string): number {
  return proxy.logs.filter((line) => line.msg === msg).length;
}

function readyGauge(proxy: ProxyProcess): Promise<number> {
  return metric(proxy, ["ouroboros_proxy_backend_ready", {}]);
}

async function assertHealthy(proxy: ProxyProcess): Promise<void> {
  assert.deepEqual(await proxy.healthGet("/healthz"), { status: 200, body: "ok\n" });
}

function assertUnreachable(response: { status: number; body: string }, cause: string): void {
  assert.equal(response.status, 503, response.body);
  assert.ok(
    response.body.startsWith(`backend unreachable (${cause}): `) && response.body.length > 26 + cause.length,
    `unexpected /readyz body: ${JSON.stringify(response.body)}`,
  );
}

function assertWarnLine(line: LogLine, backend: string, cause: string): void {
  assert.equal(line.level, "WARN");
  assert.equal(line.backend, backend);
  assert.equal(line.cause, cause);
  assert.equal(typeof line.error, "string");
  assert.notEqual(line.error, "");
}

Deno.test("/readyz: refused port → 503 once-logged; backend appears → 200 once-logged; gauge follows", async () => {
  const port = freePort();
  const backend = `127.0.0.1:${port}`;
  await using sink = startProxyBackend(discard);
  await using proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${port}`,
    `--target-https-port=${sink.port}`,
    "--log-level=debug",
  ]);
  await assertHealthy(proxy);
  assert.equal(await readyGauge(proxy), 0, "no probe ran yet");

  // First failing probe: one WARN with backend, cause and error.
  assertUnreachable(await proxy.healthGet("/readyz"), "connection-refused");
  const warn = await proxy.waitForLog("the readiness WARN", (line) => line.msg === READINESS_FAILED);
  assertWarnLine(warn, backend, "connection-refused");
  assert.equal(await readyGauge(proxy), 0);

  // Further failing probes: still 503, no new WARN.
  for (let i = 0; i < 3; i++) assertUnreachable(await proxy.healthGet("/readyz"), "connection-refused");
  await assertHealthy(proxy);
  await logBarrier(proxy);
  assert.equal(count(proxy, READINESS_FAILED), 1);
  assert.equal(count(proxy, READINESS_RECOVERED), 0);

  // The backend comes up on that port: 200, one INFO, gauge 1.
  using _backend = Deno.listen({ hostname: "127.0.0.1", port });
  assert.deepEqual(await proxy.healthGet("/readyz"), { status: 200, body: "ok\n" });
  const recovered = await proxy.waitForLog("the recovery INFO", (line) => line.msg === READINESS_RECOVERED);
  assert.equal(recovered.level, "INFO");
  assert.equal(recovered.backend, backend);
  assert.equal(await readyGauge(proxy), 1);

  // Further OK probes: no more readiness lines.
  for (let i = 0; i < 3; i++) assert.equal((await proxy.healthGet("/readyz")).status, 200);
  await assertHealthy(proxy);
  await logBarrier(proxy);
  assert.equal(count(proxy, READINESS_FAILED), 1);
  assert.equal(count(proxy, READINESS_RECOVERED), 1);
  assert.equal(await readyGauge(proxy), 1);
});

Deno.test("/readyz: unknown host → 503 (dns-nxdomain) and one WARN naming it", async () => {
  await using proxy = await startProxy(["--target-host=no-such-host.invalid"]);
  assertUnreachable(await proxy.healthGet("/readyz"), "dns-nxdomain");
  const warn = await proxy.waitForLog("the readiness WARN", (line) => line.msg === READINESS_FAILED);
  assertWarnLine(warn, "no-such-host.invalid:80", "dns-nxdomain");
  await assertHealthy(proxy);
  assert.equal(await readyGauge(proxy), 0);
});

/**
 * Python: a listener with `listen(0)` that never accepts, its one-slot accept queue filled by a
 * first connection, so the kernel drops every further SYN and connects hang. It checks that a
 * connect really hangs before printing its port, and exits when stdin closes.
 */
const BLACKHOLE_PY = `
import socket, sys
server = socket.socket()
server.bind(("127.0.0.1", 0))
server.listen(0)
port = server.getsockname()[1]
fillers = []
for _ in range(2):
    filler = socket.socket()
    filler.setblocking(False)
    try:
        filler.connect(("127.0.0.1", port))
    except BlockingIOError:
        pass
    fillers.append(filler)
check = socket.socket()
check.settimeout(0.5)
try:
    check.connect(("127.0.0.1", port))
    print("not-a-blackhole", flush=True)
except OSError:
    print(port, flush=True)
check.close()
sys.stdin.read()
`;

/** Starts the Python blackhole; resolves to its port once it has proved that connects hang. */
async function startBlackhole(): Promise<{ port: number } & AsyncDisposable> {
  const child = new Deno.Command(requireTool("python3"), {
    args: ["-c", BLACKHOLE_PY],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const stop = async () => {
    await child.stdin.close().catch(() => {});
    await lines.cancel().catch(() => {});
    await child.status;
  };
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    text += value;
  }
  const port = Number(text.trim());
  if (!Number.isInteger(port) || port <= 0) {
    await stop();
    throw new Error(`the Python blackhole did not work here: ${JSON.stringify(text)}`);
  }
  return { port, [Symbol.asyncDispose]: stop };
}

Deno.test({
  name: "/readyz: blackholed backend → 503 (timeout) bounded by --ready-timeout; /healthz answers meanwhile",
  ignore: skipWithout("the blackhole readiness test", ["python3"]),
  fn: async () => {
    await using blackhole = await startBlackhole();
    await using proxy = await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${blackhole.port}`,
      "--ready-timeout=1s",
    ]);
    const health = proxy.health;
    assert.ok(health);
    // Hang guard only: an unbounded connect would wait for the kernel (about two minutes).
    const guard = new AbortController();
    const timer = setTimeout(() => guard.abort(), 30_000);
    try {
      const pending = fetch(`http://${health.hostname}:${health.port}/readyz`, { signal: guard.signal })
        .then(async (response) => ({ status: response.status, body: await response.text() }));
      // Liveness does not wait for the probe in flight.
      await assertHealthy(proxy);
      const response = await pending;
      assertUnreachable(response, "timeout");
      assert.match(response.body, /1s/, "the body says how long the probe waited");
    } finally {
      clearTimeout(timer);
    }
    const warn = await proxy.waitForLog("the readiness WARN", (line) => line.msg === READINESS_FAILED);
    assertWarnLine(warn, `127.0.0.1:${blackhole.port}`, "timeout");
    assert.equal(await readyGauge(proxy), 0);
  },
});

Deno.test("/readyz in-process: a dial that never completes times out, and the dial is abandoned", async () => {
  const dialSignals: AbortSignal[] = [];
  const log = logger("test");
  const metrics = createProxyMetrics({ rss: () => 0, version: "test" });
  const readiness = backendReadiness({
    backendHost: "backend.example",
    backendPort: 80,
    readyTimeoutMs: 200,
    // Never connects; rejects only when told to give up, as a real dial would.
    dial: ({ signal }) => {
      dialSignals.push(signal);
      return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
    },
    metrics,
    log,
    draining: () => false,
  });
  const listener = HealthListener.start({
    address: { host: "127.0.0.1", port: 0 },
    routes: { readiness, metrics: () => metrics.registry.render() },
    log,
  });
  try {
    const response = await fetch(`http://${listener.address}/readyz`);
    const body = await response.text();
    assert.equal(response.status, 503);
    assert.match(body, /^backend unreachable \(timeout\): /);
    assert.equal(dialSignals.length, 1);
    assert.equal(dialSignals[0]?.aborted, true, "the timed-out dial was told to stop");
  } finally {
    await listener.stop();
  }
});
