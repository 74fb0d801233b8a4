import assert from "node:assert/strict";
import { type HostPort, type ProxyProcess, startProxy } from "../../support/ouroboros_process.ts";
import { echo, startProxyBackend } from "../../support/proxy_backend.ts";
import { parseMetrics } from "../../support/scrape.ts";

const LISTENERS_CLOSED = "listeners closed; waiting for connections in flight";

/** Connections accepted so far by each worker, from `/metrics`. */
async function acceptedByWorker(proxy: ProxyProcess): Promise<Map<string, number>> {
  const { status, body } = await proxy.healthGet("/metrics");
  assert.equal(status, 200);
  const out = new Map<string, number>();
  for (const sample of parseMetrics(body)) {
    if (sample.name !== "ouroboros_proxy_worker_connections_accepted_total") continue;
    out.set(sample.labels.worker ?? "", sample.value);
  }
  return out;
}

async function roundTrip(conn: Deno.Conn, text: string): Promise<void> {
  const bytes = new TextEncoder().encode(text);
  await conn.write(bytes);
  const back = new Uint8Array(bytes.length);
  let filled = 0;
  while (filled < back.length) {
    const n = await conn.read(back.subarray(filled));
    if (n === null) throw new Error(`EOF after ${filled} bytes`);
    filled += n;
  }
  assert.deepEqual(back, bytes);
}

async function assertConnectRefused(address: HostPort): Promise<void> {
  await assert.rejects(Deno.connect(address), Deno.errors.ConnectionRefused);
}

Deno.test("two workers: the kernel spreads connections over both, and one SIGTERM drains both", async () => {
  await using backend = startProxyBackend(echo, { allowEmpty: true });
  const proxy = await startProxy([
    "--workers=2",
    "--target-host=127.0.0.1",
    `--target-http-port=${backend.port}`,
    `--target-https-port=${backend.port}`,
    "--drain-delay=0s",
    "--shutdown-grace=60s",
  ]);
  const open: { conn: Deno.TcpConn; worker: string }[] = [];
  try {
    assert.equal(proxy.starting.workers, 2);
    const http = proxy.http!;
    // Open connections one by one, telling by the per-worker counter which worker took each,
    // until every worker holds one in flight.
    let before = await acceptedByWorker(proxy);
    for (let i = 0; i < 200 && new Set(open.map((o) => o.worker)).size < 2; i++) {
      const conn = await Deno.connect(http);
      await roundTrip(conn, `connection ${i}`);
      const after = await acceptedByWorker(proxy);
      const took = [...after].find(([worker, n]) => n > (before.get(worker) ?? 0))?.[0];
      assert.ok(took !== undefined, "some worker counted the connection");
      open.push({ conn, worker: took });
      before = after;
    }
    const counts = await acceptedByWorker(proxy);
    assert.deepEqual([...counts.keys()].sort(), ["0", "1"]);
    for (const [worker, n] of counts) assert.ok(n > 0, `worker ${worker} accepted none of ${open.length}`);
    const { body } = await proxy.healthGet("/metrics");
    const total = parseMetrics(body).find((s) =>
      s.name === "ouroboros_proxy_connections_accepted_total" && s.labels.listener === "http"
    );
    assert.equal(total?.value, open.length, "the listener total is the sum over the workers");

    proxy.kill("SIGTERM");
    for (const worker of [0, 1]) {
      await proxy.waitForLog(
        `worker ${worker} closing its listeners`,
        (line) => line.msg === LISTENERS_CLOSED && line.worker === worker,
      );
    }
    assert.equal((await proxy.healthGet("/readyz")).status, 503);
    await assertConnectRefused(http);
    // Every connection in flight, on either worker, still works to the end.
    for (const [i, { conn }] of open.entries()) await roundTrip(conn, `after the drain ${i}`);
    for (const { conn } of open.splice(0)) conn.close();
    const status = await proxy.status;
    assert.equal(status.code, 0);
    for (const worker of [0, 1]) {
      assert.ok(proxy.logs.some((line) => line.msg === "proxy stopped" && line.worker === worker));
    }
  } finally {
    for (const { conn } of open) conn.close();
    await proxy[Symbol.asyncDispose]();
  }
});
