import assert from "node:assert/strict";
import { spawnProxyWorker, type WorkerHandle, WorkerPool } from "../../../lib/proxy/workers/worker_pool.ts";
import type { ProxyServerConfig } from "../../../lib/proxy/server.ts";
import type { ToWorker } from "../../../lib/proxy/workers/worker_messages.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import { LogRecorder } from "../../support/log_recorder.ts";
import { parseMetrics } from "../../support/scrape.ts";
import { waitFor } from "../../support/wait.ts";

const CONFIG: ProxyServerConfig = {
  listeners: [{ name: "http", address: { host: "127.0.0.1", port: 0 }, backendPort: 9 }],
  backendHost: "127.0.0.1",
  readinessPort: 9,
  proxyProtocol: "v1",
  dialTimeoutMs: 1_000,
  readyTimeoutMs: 1_000,
  shutdownGraceMs: 5_000,
  drainDelayMs: 0,
  idleTimeoutMs: 0,
};

function sample(text: string, name: string): number | undefined {
  return parseMetrics(text).find((s) => s.name === name)?.value;
}

Deno.test("worker pool: a worker that dies is logged, counted and started again on the same port", async () => {
  const spawned: WorkerHandle[][] = [[], []];
  const log = new LogRecorder();
  const pool = await WorkerPool.start(CONFIG, {
    count: 2,
    debug: false,
    log,
    clock: systemClock,
    spawn: (index) => {
      const worker = spawnProxyWorker(index);
      spawned[index]?.push(worker);
      return worker;
    },
  });
  const shutdown = new AbortController();
  const running = pool.run({ shutdown: shutdown.signal, force: new AbortController().signal });
  try {
    assert.equal(pool.notReady(), undefined);
    const port = Number(pool.addresses.http?.split(":").at(-1));
    // A message the worker does not know makes it throw: a crash as a bug would cause one.
    (spawned[1]?.[0] as unknown as Worker).postMessage({ kind: "no-such-order" });
    await waitFor("the death to be logged", () => log.find("error", "proxy worker died").length === 1);
    await waitFor("worker 1 to start again", () => spawned[1]?.length === 2 && pool.notReady() === undefined);
    assert.match(log.find("error", "proxy worker died")[0]?.properties.error as string, /no-such-order/);
    const text = await pool.exposition("");
    assert.equal(sample(text, "ouroboros_proxy_worker_restarts_total"), 1);
    assert.equal(sample(text, "ouroboros_proxy_workers_accepting"), 2);
    // The new worker serves the same port: a connection there is accepted (and then fails to dial).
    const conn = await Deno.connect({ hostname: "127.0.0.1", port });
    conn.close();
  } finally {
    shutdown.abort();
    await running;
  }
  assert.equal(pool.notReady()?.includes("stopped"), true);
});

Deno.test("worker pool: a port already taken fails the start, naming the listener, and leaves no worker", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const spawned: WorkerHandle[] = [];
  const config = {
    ...CONFIG,
    listeners: [{
      name: "http" as const,
      address: { host: "127.0.0.1", port: taken.addr.port },
      backendPort: 9,
    }],
  };
  await assert.rejects(
    WorkerPool.start(config, {
      count: 2,
      debug: false,
      log: new LogRecorder(),
      clock: systemClock,
      spawn: (index) => {
        const worker = spawnProxyWorker(index);
        spawned.push(worker);
        return worker;
      },
    }),
    new RegExp(`listen http 127\\.0\\.0\\.1:${taken.addr.port}`),
  );
  assert.equal(spawned.length, 1, "the others are not started once the first cannot bind");
});

/** A stand-in worker that listens at once and answers scrapes with `text`. */
class ScriptedWorker implements WorkerHandle {
  readonly #listeners: ((event: MessageEvent<unknown>) => void)[] = [];
  constructor(readonly text: string) {}
  postMessage(message: ToWorker): void {
    const answer = message.kind === "start"
      ? { kind: "listening", addresses: { http: "127.0.0.1:18080" } }
      : message.kind === "metrics"
      ? { kind: "metrics", id: message.id, text: this.text }
      : { kind: "stopped", text: this.text };
    queueMicrotask(() =>
      this.#listeners.forEach((listener) => listener(new MessageEvent("message", { data: answer })))
    );
  }
  addEventListener(type: "message" | "error", listener: (event: never) => void): void {
    if (type === "message") this.#listeners.push(listener as (event: MessageEvent<unknown>) => void);
  }
  terminate(): void {}
}

Deno.test("worker pool: process series are the main thread's; workers' copies are dropped, traffic is summed", async () => {
  const workerText = [
    "# TYPE process_cpu_seconds_total counter",
    "process_cpu_seconds_total 7",
    "# TYPE process_resident_memory_bytes gauge",
    "process_resident_memory_bytes 5000",
    "# TYPE ouroboros_proxy_connections_accepted_total counter",
    'ouroboros_proxy_connections_accepted_total{listener="http"} 3',
    "",
  ].join("\n");
  const pool = await WorkerPool.start(CONFIG, {
    count: 2,
    debug: false,
    log: new LogRecorder(),
    clock: systemClock,
    spawn: () => new ScriptedWorker(workerText),
  });
  const main = [
    "# TYPE process_cpu_seconds_total counter",
    "process_cpu_seconds_total 2",
    "# TYPE process_resident_memory_bytes gauge",
    "process_resident_memory_bytes 90000",
    "",
  ].join("\n");
  const text = await pool.exposition(main);
  assert.equal(sample(text, "process_cpu_seconds_total"), 2, "the process's CPU, not 2 + 7 + 7");
  assert.equal(sample(text, "process_resident_memory_bytes"), 90_000);
  assert.equal(sample(text, "ouroboros_proxy_connections_accepted_total"), 6);
});
