/**
 * One run of `ouroboros controller --mode=coredns` at one cluster size, for `deno task
 * bench:controller`: start to the first correct write, sequential changes, the status churn (on
 * the fake API server only) and the process's memory after each phase. Also the start and
 * change measurements the client-node reference loop is put through.
 *
 * Decisions:
 * - Phase memory is read between phases, not sampled during them: reading `/proc` takes a `cat`
 *   process (see `controller_proc.ts`), which on two shared cores would disturb what it measures.
 *   VmHWM after each phase tells which phase set the peak.
 * - The start is split by the controller's own log lines (their `time`): process up and logging,
 *   caches synced, first write, so a slow start says which part is slow.
 * - The churn needs 5,000 updates a second, which only the fake API server in this process takes
 *   (a real one writes each to etcd); against a real one the churn is not run.
 *
 * Effects: processes, HTTP to the cluster and the controller.
 *
 * @module
 */

import {
  BENCH_FQDN,
  type BenchCluster,
  benchIngress,
  type CorefileWrite,
  type HostModel,
} from "./controller_cluster.ts";
import { type ControllerProcess, type LogLine, startController } from "../support/ouroboros_process.ts";
import { parseMetrics } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";
import { clockTicksPerSecond, cpuTicksOf, type Memory, memoryOf } from "./controller_proc.ts";
import { blockHostsOf, percentile } from "./controller_stats.ts";

/** A step (coprime with the Ingress counts) so consecutive changes hit scattered Ingresses. */
const STRIDE = 7919;
const CHURN_RATE = 5_000;

/**
 * Polls the cluster's writes from `cursor` until one leaves a Corefile for which `done` holds;
 * returns every write since `cursor`. The Corefile is read only when a new write has arrived.
 */
export async function awaitWrite(
  cluster: BenchCluster,
  cursor: number,
  done: (corefile: string) => boolean,
  options: { what: string; timeoutMs: number },
): Promise<CorefileWrite[]> {
  let checked = cursor;
  return await waitFor(options.what, () => {
    const writes = cluster.writes();
    if (writes.length === checked) return false;
    checked = writes.length;
    return done(cluster.corefile()) ? writes.slice(cursor) : false;
  }, { timeoutMs: options.timeoutMs, intervalMs: 2 });
}

/** Whether the Corefile's block names exactly the model's hosts. */
export function namesAll(model: HostModel): (corefile: string) => boolean {
  const expected = model.all();
  return (corefile) => {
    const named = blockHostsOf(corefile).sort();
    return named.length === expected.length && named.every((host, i) => host === expected[i]);
  };
}

/** What one run of the change loop measured. */
export interface ChangeRun {
  readonly latencies: number[];
  /** ConfigMap writes per change beyond the one expected. */
  readonly extraWrites: number;
}

/**
 * Replaces one TLS host of a different Ingress `count` times (of the first `ingresses`), each
 * time waiting for the write that carries it, and returns the change-to-write latencies.
 */
export async function measureChanges(
  cluster: BenchCluster,
  prefix: string,
  options: { count: number; ingresses: number },
): Promise<ChangeRun> {
  const latencies: number[] = [];
  let extraWrites = 0;
  for (let k = 0; k < options.count; k++) {
    const i = (k * STRIDE) % options.ingresses;
    const [removed = "", kept = ""] = cluster.model.get(i);
    const added = `${prefix}${k}.io`;
    const cursor = cluster.writes().length;
    const start = Date.now();
    await cluster.change(i, [added, kept]);
    const writes = await awaitWrite(
      cluster,
      cursor,
      (corefile) => corefile.includes(` ${added} `) && !corefile.includes(` ${removed} `),
      { what: `change ${k + 1} (${removed} -> ${added}) to be written`, timeoutMs: 15_000 },
    );
    const last = writes.at(-1);
    if (last !== undefined) latencies.push(last.at - start);
    extraWrites += writes.length - 1;
  }
  return { latencies, extraWrites };
}

/** What the start phase measured, for ours or the peer. */
export interface StartRun {
  readonly firstWriteMs: number;
  readonly writesUntilCorrect: number;
}

/** Waits for the write after which the Corefile names every host; times it from `spawnedAt`. */
export async function measureStart(
  cluster: BenchCluster,
  spawnedAt: number,
  options: { cursor: number; who: string },
): Promise<StartRun> {
  const writes = await awaitWrite(cluster, options.cursor, namesAll(cluster.model), {
    what: `${options.who}'s first correct Corefile write`,
    timeoutMs: 120_000,
  });
  return { firstWriteMs: (writes.at(-1)?.at ?? Number.NaN) - spawnedAt, writesUntilCorrect: writes.length };
}

/** V8's heap as the controller's /metrics says (bytes). */
export interface Heap {
  readonly totalBytes: number;
  readonly usedBytes: number;
  readonly externalBytes: number;
}

/** One sample of the controller's /metrics, by name with its labels. */
async function controllerCounters(controller: ControllerProcess): Promise<Map<string, number>> {
  const { body } = await controller.healthGet("/metrics");
  const counters = new Map<string, number>();
  for (const sample of parseMetrics(body)) {
    const label = Object.entries(sample.labels).map(([key, value]) => `${key}=${value}`).join(",");
    counters.set(label === "" ? sample.name : `${sample.name}{${label}}`, sample.value);
  }
  return counters;
}

async function heapOf(controller: ControllerProcess): Promise<Heap> {
  const counters = await controllerCounters(controller);
  return {
    totalBytes: counters.get("deno_heap_size_total_bytes") ?? Number.NaN,
    usedBytes: counters.get("deno_heap_size_used_bytes") ?? Number.NaN,
    externalBytes: counters.get("deno_external_memory_bytes") ?? Number.NaN,
  };
}

function counterDelta(before: Map<string, number>, after: Map<string, number>, name: string): number {
  return (after.get(name) ?? 0) - (before.get(name) ?? 0);
}

function sumDelta(before: Map<string, number>, after: Map<string, number>, prefix: string): number {
  let sum = 0;
  for (const [name, value] of after) if (name.startsWith(prefix)) sum += value - (before.get(name) ?? 0);
  return sum;
}

/** The address an ingress controller would write into status, different for every update. */
function statusIp(n: number): string {
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** What the churn phase measured. */
export interface ChurnRun {
  readonly updates: number;
  readonly seconds: number;
  readonly achievedRate: number;
  readonly writesDuringChurn: number;
  /** From the end of the churn to the write of the change made right after it. */
  readonly drainMs: number;
  readonly cpuPercent: number;
  readonly reconcilesSkipped: number;
  readonly reconcilesUnchanged: number;
  readonly watchRestarts: number;
}

/**
 * Sends status-only updates at `CHURN_RATE` a second for `seconds` to the fake API server, paced
 * in small batches, then makes one real change and waits for its write.
 */
async function churn(
  cluster: BenchCluster,
  controller: ControllerProcess,
  options: { seconds: number; ingresses: number },
): Promise<ChurnRun | undefined> {
  const server = cluster.fake;
  if (server === undefined) return undefined;
  const { model } = cluster;
  const pid = controller.child.pid;
  const ticks = await clockTicksPerSecond();
  const before = await controllerCounters(controller);
  const cursor = cluster.writes().length;
  const cpuBefore = await cpuTicksOf(pid);
  const total = CHURN_RATE * options.seconds;
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * CHURN_RATE) / 1000));
    for (; sent < due; sent++) {
      const i = sent % options.ingresses;
      server.update(benchIngress(i, model.get(i), statusIp(sent)));
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const elapsed = performance.now() - started;
  const cpuAfter = await cpuTicksOf(pid);

  const i = options.ingresses - 1;
  const [removed = "", kept = ""] = model.get(i);
  const added = `zz-after-churn-${options.ingresses}.io`;
  const churnEnd = Date.now();
  await cluster.change(i, [added, kept]);
  const writes = await awaitWrite(
    cluster,
    cursor,
    (corefile) => corefile.includes(` ${added} `) && !corefile.includes(` ${removed} `),
    { what: "the change after the churn to be written", timeoutMs: 120_000 },
  );
  const after = await controllerCounters(controller);
  return {
    updates: total,
    seconds: options.seconds,
    achievedRate: total / (elapsed / 1000),
    // Every write since the churn began except the one carrying the real change.
    writesDuringChurn: writes.length - 1,
    drainMs: (writes.at(-1)?.at ?? Number.NaN) - churnEnd,
    cpuPercent: ((cpuAfter - cpuBefore) / ticks) / (elapsed / 1000) * 100,
    reconcilesSkipped: counterDelta(before, after, "ouroboros_controller_reconciles_skipped_total"),
    reconcilesUnchanged: counterDelta(
      before,
      after,
      "ouroboros_controller_reconciles_total{result=unchanged}",
    ),
    watchRestarts: sumDelta(before, after, "ouroboros_controller_watch_restarts_total{kind=Ingress,"),
  };
}

/** Memory and V8's heap after one phase. */
export interface PhaseMemory {
  readonly phase: string;
  readonly memory: Memory;
  readonly heap: Heap;
}

/** What one run of ours at one size measured. */
export interface ControllerRun {
  readonly ingresses: number;
  readonly start: StartRun;
  /** From spawning to the "controller starting" line (process up, flags read, logging). */
  readonly upMs: number;
  /** From spawning to the "caches synced" line (every Ingress listed and cached). */
  readonly syncedMs: number;
  readonly changes: ChangeRun;
  readonly churn: ChurnRun | undefined;
  readonly phases: readonly PhaseMemory[];
  readonly peakKib: number;
  readonly exitCode: number;
  readonly problems: readonly LogLine[];
}

/** What {@linkcode runController} is given. */
export interface RunOptions {
  readonly ingresses: number;
  readonly changes: number;
  /** Seconds of status churn (run against the fake API server only). */
  readonly churnSeconds: number;
  /** The controller's environment (`DENO_V8_FLAGS` and the rest). */
  readonly env: Record<string, string>;
  /** Progress lines. */
  readonly say: (line: string) => void;
  /** Run this `deno bundle` of `main.ts` instead of the source (`--bundle`). */
  readonly entry?: string;
}

/** Milliseconds from `spawnedAt` to the first log line with message `msg`; NaN without one. */
function logLineAt(logs: readonly LogLine[], msg: string, spawnedAt: number): number {
  const line = logs.find((entry) => entry.msg === msg);
  const time = typeof line?.time === "string" ? Date.parse(line.time) : Number.NaN;
  return time - spawnedAt;
}

/** Runs the controller against `cluster` (already grown to the size) through every phase. */
export async function runController(cluster: BenchCluster, options: RunOptions): Promise<ControllerRun> {
  const { say, ingresses } = options;
  await cluster.resetCorefile();
  const cursor = cluster.writes().length;
  const spawnedAt = Date.now();
  const controller = await startController([
    `--kubeconfig=${cluster.kubeconfig}`,
    "--mode=coredns",
    `--proxy-fqdn=${BENCH_FQDN}`,
    "--cluster-domain=cluster.local",
  ], { env: options.env, ...(options.entry === undefined ? {} : { entry: options.entry }) });
  try {
    const pid = controller.child.pid;
    const phases: PhaseMemory[] = [];
    const phase = async (name: string) => {
      const memory = await memoryOf(pid);
      const heap = await heapOf(controller);
      phases.push({ phase: name, memory, heap });
      const mib = (kib: number) => (kib / 1024).toFixed(1);
      say(
        `  RSS ${name.padEnd(29)} ${mib(memory.rssKib)} MiB (peak so far ${mib(memory.peakKib)}; anon ${
          mib(memory.anonKib)
        }, file ${mib(memory.fileKib)}; V8 heap ${(heap.totalBytes / 2 ** 20).toFixed(1)} MiB, used ${
          (heap.usedBytes / 2 ** 20).toFixed(1)
        })`,
      );
    };
    const start = await measureStart(cluster, spawnedAt, { cursor, who: "the controller" });
    const upMs = logLineAt(controller.logs, "controller starting", spawnedAt);
    const syncedMs = logLineAt(controller.logs, "caches synced", spawnedAt);
    say(
      `  start -> first correct write      ${(start.firstWriteMs / 1000).toFixed(2)} s (logging after ${
        (upMs / 1000).toFixed(2)
      } s, caches synced after ${(syncedMs / 1000).toFixed(2)} s; ${start.writesUntilCorrect} write(s))`,
    );
    await phase("after the first write");

    const changes = await measureChanges(cluster, `c${ingresses}-`, { count: options.changes, ingresses });
    const p = (q: number) => percentile(changes.latencies, q);
    say(
      `  change -> write, ${options.changes} changes       p50 ${p(50)} ms, p99 ${
        p(99)
      } ms; extra writes: ${changes.extraWrites}`,
    );
    await phase("after the changes");

    const churned = await churn(cluster, controller, { seconds: options.churnSeconds, ingresses });
    if (churned === undefined) {
      say("  status churn: not run (it needs the fake API server's 5,000 updates a second)");
    } else {
      say(
        `  status churn                      ${churned.updates.toLocaleString("en-US")} updates at ${
          Math.round(churned.achievedRate).toLocaleString("en-US")
        }/s -> ${churned.writesDuringChurn} ConfigMap write(s); controller CPU ${
          churned.cpuPercent.toFixed(0)
        }%; the change after it written ${Math.round(churned.drainMs)} ms later; ` +
          `${churned.reconcilesSkipped} recomputes skipped, ${churned.reconcilesUnchanged} unchanged ` +
          `reconciles, ${churned.watchRestarts} Ingress watch restarts`,
      );
      await phase("after the churn");
    }
    controller.kill("SIGTERM");
    const status = await controller.status;
    const problems = controller.logs.filter((line) => line.level === "ERROR" || line.level === "WARN");
    say(`  SIGTERM -> exit status ${status.code}; WARN/ERROR lines logged: ${problems.length}`);
    for (const line of problems.slice(0, 5)) say(`    ${JSON.stringify(line)}`);
    return {
      ingresses,
      start,
      upMs,
      syncedMs,
      changes,
      churn: churned,
      phases,
      peakKib: Math.max(...phases.map((entry) => entry.memory.peakKib)),
      exitCode: status.code,
      problems,
    };
  } finally {
    controller.kill("SIGKILL");
    await controller.status;
  }
}
