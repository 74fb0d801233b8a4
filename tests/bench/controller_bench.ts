/**
 * `deno task bench:controller`: the controller in coredns mode against a large cluster.
 *
 * Method. The fake API server runs in this process and holds kubeadm's CoreDNS ConfigMap and
 * 10,000 Ingresses of about 1 KiB with two TLS hosts each (20,000 hostnames). `ouroboros
 * controller --mode=coredns` runs as a child process with its own permission set, as in
 * production. Measured:
 *
 * 1. Start to the first correct Corefile write: from spawning the process to the arrival of the
 *    write (the audit log's timestamp) after which the block names all 20,000 hosts.
 * 2. Change latency: one Ingress's TLS host replaced, then wait for the write that carries it;
 *    the time from the change to that write's arrival, over 200 sequential changes (p50, p99).
 * 3. Status churn: 5,000 status-only Ingress updates a second (the load balancer address, which
 *    ingress controllers keep rewriting) for 30 s; the audit log must show no ConfigMap write.
 *    One real change afterwards proves the controller had processed them all.
 * 4. Resident memory (VmRSS, and the peak VmHWM) of the controller process after each phase,
 *    and its CPU during the churn.
 * 5. Where the bytes go: `controller_alloc.ts` in a child process measures what each step
 *    allocates (per Ingress cached, per status update, per Corefile write).
 *
 * The controller runs with the chart's default `controller.v8Flags` (chart/values.yaml) unless
 * `--v8-flags` says otherwise.
 *
 * There is no runnable peer controller (the original is written in Go and is not available
 * here), so as a reference point the same start and change-latency measurements are taken of a
 * bare list-watch-PATCH loop written with `@kubernetes/client-node` (`controller_peer.ts`).
 *
 * Flags: `--quick` (50 changes, 10 s of churn), `--no-peer` (skip the client-node loop),
 * `--ingresses=<n>` (another cluster size, for the chart's sizing rule; default 10,000),
 * `--v8-flags=<a,b>` (V8 flags for the controller process, passed as `DENO_V8_FLAGS`, as the
 * chart's `controller.v8Flags` does), `--env=<NAME>=<value>` (repeatable: more environment for the
 * controller process, such as `MALLOC_ARENA_MAX=2`, as the chart's `controller.extraEnv` sets).
 *
 * @module
 */

import { parse as parseYaml } from "yaml";
import { applyCorefileBlock } from "../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { CONFIGMAP_DATA_LIMIT, utf8Length } from "../../lib/controller/modes/coredns/configmap_data_bytes.ts";
import { type AuditEntry, type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { type ControllerProcess, ROOT, startController } from "../support/ouroboros_process.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { parseMetrics } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";
import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";
import {
  BENCH_FQDN,
  BENCH_TOKEN,
  benchIngress,
  COREDNS,
  corednsWrites,
  HostModel,
  resetCorefile,
  seed,
  storedCorefile,
} from "./controller_cluster.ts";
import type { AllocAccount } from "./controller_alloc.ts";
import { clockTicksPerSecond, cpuTicksOf, type Memory, memoryOf } from "./controller_proc.ts";
import { blockHostsOf, type Goal, goalLine, mib, ms, percentile } from "./controller_stats.ts";

const FLAGS = ["--quick", "--no-peer"];
const V8_FLAGS_PREFIX = "--v8-flags=";
const INGRESSES_PREFIX = "--ingresses=";
const ENV_PREFIX = "--env=";
const unknown = Deno.args.filter((arg) =>
  !FLAGS.includes(arg) && !arg.startsWith(V8_FLAGS_PREFIX) &&
  !(arg.startsWith(ENV_PREFIX) && /^[A-Z_][A-Z0-9_]*=/.test(arg.slice(ENV_PREFIX.length))) &&
  !(arg.startsWith(INGRESSES_PREFIX) && /^[1-9][0-9]*$/.test(arg.slice(INGRESSES_PREFIX.length)))
);
if (unknown.length > 0) {
  // deno-lint-ignore no-console
  console.error(
    `unknown arguments ${
      unknown.join(" ")
    }; usage: deno task bench:controller [--quick] [--no-peer] [--v8-flags=<a,b>] [--ingresses=<n>] ` +
      "[--env=<NAME>=<value>]...",
  );
  Deno.exit(2);
}
const quick = Deno.args.includes("--quick");
const withPeer = !Deno.args.includes("--no-peer");
const chartV8Flags = await chartControllerV8Flags();
const controllerV8Flags =
  Deno.args.findLast((arg) => arg.startsWith(V8_FLAGS_PREFIX))?.slice(V8_FLAGS_PREFIX.length) ??
    chartV8Flags;

/** `--env=<NAME>=<value>` arguments: more environment for the controller process. */
const extraEnv: Record<string, string> = Object.fromEntries(
  Deno.args.filter((arg) => arg.startsWith(ENV_PREFIX)).map((arg) => {
    const [name = "", ...value] = arg.slice(ENV_PREFIX.length).split("=");
    return [name, value.join("=")];
  }),
);

/** `--ingresses=<n>` (default 10,000): the sizing rule's other points; the goals are for 10,000. */
const INGRESSES = Number(
  Deno.args.findLast((arg) => arg.startsWith(INGRESSES_PREFIX))?.slice(INGRESSES_PREFIX.length) ?? 10_000,
);
const CHANGES = quick ? 50 : 200;
const CHURN_RATE = 5_000;
const CHURN_SECONDS = quick ? 10 : 30;
/** A step (coprime with the Ingress count) so consecutive changes hit scattered Ingresses. */
const STRIDE = 7919;
const PEER = new URL("./controller_peer.ts", import.meta.url).pathname;
const ALLOC = new URL("./controller_alloc.ts", import.meta.url).pathname;

/** The chart's default `controller.v8Flags`, which the controller runs with unless told otherwise. */
async function chartControllerV8Flags(): Promise<string> {
  const values = parseYaml(await Deno.readTextFile(new URL("../../chart/values.yaml", import.meta.url)));
  const controller = (values as { controller?: { v8Flags?: unknown } } | null)?.controller;
  return typeof controller?.v8Flags === "string" ? controller.v8Flags : "";
}

function say(text = ""): void {
  // deno-lint-ignore no-console
  console.log(text);
}

/** Seconds as `1.23 s`. */
function seconds(milliseconds: number): string {
  return Number.isFinite(milliseconds) ? `${(milliseconds / 1000).toFixed(2)} s` : "-";
}

/**
 * Polls the audit log from `cursor` until a write to the CoreDNS ConfigMap leaves a Corefile
 * for which `done` holds; returns every such write since `cursor`. The Corefile is read only
 * when a new write has arrived, so polling costs the fake API server (same process) nothing.
 */
async function awaitWrite(
  server: FakeApiServer,
  cursor: number,
  done: (corefile: string) => boolean,
  what: string,
  timeoutMs: number,
): Promise<AuditEntry[]> {
  let checked = 0;
  return await waitFor(what, () => {
    const writes = corednsWrites(server.audit, cursor);
    if (writes.length === checked) return false;
    checked = writes.length;
    return done(storedCorefile(server)) ? writes : false;
  }, { timeoutMs, intervalMs: 2 });
}

/** Whether the Corefile's block names exactly the model's hosts. */
function namesAll(model: HostModel): (corefile: string) => boolean {
  const expected = model.all();
  return (corefile) => {
    const named = blockHostsOf(corefile).sort();
    return named.length === expected.length && named.every((host, i) => host === expected[i]);
  };
}

/**
 * Runs `controller_alloc.ts` (with `--expose-gc` and a young generation large enough that no
 * collection runs inside a step) and prints where the bytes go.
 */
async function sayAllocations(): Promise<void> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      "-P=bench",
      "--v8-flags=--expose-gc,--min-semi-space-size=128,--max-semi-space-size=128",
      ALLOC,
    ],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!output.success) {
    say("Where the bytes go: the allocation account failed (see above)");
    return;
  }
  const account = JSON.parse(new TextDecoder().decode(output.stdout)) as AllocAccount;
  say(
    `Where the bytes go (V8 heap growth per step; ${account.ingresses} Ingresses, ${
      account.ingresses * 2
    } hosts)`,
  );
  const kib = (bytes: number) =>
    bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(2)} KiB`;
  const section = (title: string, steps: AllocAccount["perChange"]) => {
    say(`  ${title}`);
    for (const step of steps) say(`    ${step.step.padEnd(46)} ${kib(step.bytes).padStart(10)}`);
  };
  section("per Ingress", account.perIngress);
  section("per status update", account.perStatusUpdate);
  section("per change (one Corefile write)", account.perChange);
}

/** What one run of the change loop measured. */
interface ChangeRun {
  readonly latencies: number[];
  /** ConfigMap writes per change beyond the one expected. */
  readonly extraWrites: number;
}

/**
 * Replaces one TLS host of a different Ingress `CHANGES` times, each time waiting for the write
 * that carries it, and returns the change-to-write latencies.
 */
async function measureChanges(server: FakeApiServer, model: HostModel, prefix: string): Promise<ChangeRun> {
  const latencies: number[] = [];
  let extraWrites = 0;
  for (let k = 0; k < CHANGES; k++) {
    const i = (k * STRIDE) % INGRESSES;
    const [removed = "", kept = ""] = model.get(i);
    const added = `${prefix}${k}.io`;
    const cursor = server.audit.length;
    const start = Date.now();
    server.update(benchIngress(i, [added, kept]));
    model.set(i, [added, kept]);
    const writes = await awaitWrite(
      server,
      cursor,
      (corefile) => corefile.includes(` ${added} `) && !corefile.includes(` ${removed} `),
      `change ${k + 1} (${removed} -> ${added}) to be written`,
      15_000,
    );
    const last = writes.at(-1);
    if (last !== undefined) latencies.push(last.at - start);
    extraWrites += writes.length - 1;
  }
  return { latencies, extraWrites };
}

/** One sample of the controller's /metrics: the counters the churn phase compares. */
async function controllerCounters(controller: ControllerProcess): Promise<Map<string, number>> {
  const { body } = await controller.healthGet("/metrics");
  const counters = new Map<string, number>();
  for (const sample of parseMetrics(body)) {
    const label = Object.entries(sample.labels).map(([key, value]) => `${key}=${value}`).join(",");
    counters.set(label === "" ? sample.name : `${sample.name}{${label}}`, sample.value);
  }
  return counters;
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
interface ChurnRun {
  readonly updates: number;
  readonly achievedRate: number;
  readonly writesDuringChurn: number;
  /** From the end of the churn to the write of the change made right after it. */
  readonly drainMs: number;
  readonly cpuPercent: number;
  readonly reconcilesSkipped: number;
  readonly reconcilesUnchanged: number;
  readonly reconcilesWritten: number;
  readonly watchRestarts: number;
}

/**
 * Sends status-only updates at `CHURN_RATE` a second for `CHURN_SECONDS`, paced in small
 * batches, then makes one real change and waits for its write.
 */
async function churn(
  server: FakeApiServer,
  model: HostModel,
  controller: ControllerProcess,
): Promise<ChurnRun> {
  const pid = controller.child.pid;
  const ticks = await clockTicksPerSecond();
  const before = await controllerCounters(controller);
  const cursor = server.audit.length;
  const cpuBefore = await cpuTicksOf(pid);
  const total = CHURN_RATE * CHURN_SECONDS;
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) * CHURN_RATE) / 1000));
    for (; sent < due; sent++) {
      const i = sent % INGRESSES;
      server.update(benchIngress(i, model.get(i), statusIp(sent)));
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const elapsed = performance.now() - started;
  const cpuAfter = await cpuTicksOf(pid);

  const i = INGRESSES - 1;
  const [removed = "", kept = ""] = model.get(i);
  const added = "zz-after-churn.io";
  const churnEnd = Date.now();
  server.update(benchIngress(i, [added, kept]));
  model.set(i, [added, kept]);
  const writes = await awaitWrite(
    server,
    cursor,
    (corefile) => corefile.includes(` ${added} `) && !corefile.includes(` ${removed} `),
    "the change after the churn to be written",
    120_000,
  );
  const after = await controllerCounters(controller);
  return {
    updates: total,
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
    reconcilesWritten: counterDelta(before, after, "ouroboros_controller_reconciles_total{result=written}"),
    watchRestarts: sumDelta(before, after, "ouroboros_controller_watch_restarts_total{kind=Ingress,"),
  };
}

/** What the start phase measured, for ours or the peer. */
interface StartRun {
  readonly firstWriteMs: number;
  readonly writesUntilCorrect: number;
}

async function measureStart(
  server: FakeApiServer,
  model: HostModel,
  spawnedAt: number,
  cursor: number,
  who: string,
): Promise<StartRun> {
  const writes = await awaitWrite(
    server,
    cursor,
    namesAll(model),
    `${who}'s first correct Corefile write`,
    120_000,
  );
  return { firstWriteMs: (writes.at(-1)?.at ?? Number.NaN) - spawnedAt, writesUntilCorrect: writes.length };
}

// ---------------------------------------------------------------------------------------------

const cpuinfo = new TextDecoder().decode(
  (await new Deno.Command("cat", { args: ["/proc/cpuinfo"], stdout: "piped" }).output()).stdout,
);
const cpu = /model name\s*:\s*(.*)/.exec(cpuinfo)?.[1] ?? "unknown";
say("ouroboros controller benchmark (coredns mode)");
say(`date:      ${new Date().toISOString()}`);
say(`machine:   ${Deno.build.arch}, ${cpu}, ${navigator.hardwareConcurrency} cores`);
say(`Deno:      ${Deno.version.deno}`);
say(`cluster:   fake API server in this process; ${INGRESSES} Ingresses of about 1 KiB, 2 TLS hosts each`);
say(`           (${INGRESSES * 2} hostnames); kube-system/coredns with kubeadm's Corefile`);

await using server = await startFakeApiServer({ token: BENCH_TOKEN, bookmarkIntervalMs: 0 });
const model = seed(server, INGRESSES);
const dir = await Deno.makeTempDir({ prefix: "ouroboros-bench-controller-" });
const kubeconfig = await writeKubeconfig(`${dir}/kubeconfig`, {
  server: server.url,
  token: BENCH_TOKEN,
  name: "bench",
  user: "bench",
});
const full = applyCorefileBlock(KUBEADM, { hosts: model.all(), fqdn: BENCH_FQDN });
const fullBytes = full.kind === "changed" ? utf8Length(full.corefile) + COREDNS.key.length : Number.NaN;
say(`target:    --proxy-fqdn=${BENCH_FQDN} and hostnames like a1234.io, so that 20,000 rewrite lines fit`);
say(`           in one ConfigMap: the Corefile is ${fullBytes.toLocaleString("en-US")} bytes of the`);
say(`           ${CONFIGMAP_DATA_LIMIT.toLocaleString("en-US")}-byte limit (with a 44-character target the`);
say("           lines alone would exceed it, and the controller would refuse to write)");
say(`changes:   ${CHANGES} sequential; churn: ${CHURN_RATE}/s status-only updates for ${CHURN_SECONDS} s`);
say(
  `V8 flags:  ${controllerV8Flags === "" ? "(V8's defaults)" : controllerV8Flags} for the controller${
    controllerV8Flags === chartV8Flags ? " (the chart's default controller.v8Flags)" : ""
  }`,
);
if (Object.keys(extraEnv).length > 0) {
  say(`env:       ${Object.entries(extraEnv).map(([name, value]) => `${name}=${value}`).join(" ")}`);
}
say(
  "peer:      no runnable peer controller exists here (the original is Go and not available); as a",
);
say(
  withPeer
    ? "           reference, a bare list-watch-PATCH loop with @kubernetes/client-node 2.0.1, run after ours"
    : "           reference, a client-node loop exists but --no-peer skips it",
);
say();

let ours: ControllerProcess | undefined;
let peer: Deno.ChildProcess | undefined;
try {
  // ---- ours: start ---------------------------------------------------------------------------
  say("ouroboros controller");
  let cursor = server.audit.length;
  const spawnedAt = Date.now();
  ours = await startController([
    `--kubeconfig=${kubeconfig}`,
    "--mode=coredns",
    `--proxy-fqdn=${BENCH_FQDN}`,
    "--cluster-domain=cluster.local",
  ], { env: { ...extraEnv, ...(controllerV8Flags === "" ? {} : { DENO_V8_FLAGS: controllerV8Flags }) } });
  const startingMs = Date.now() - spawnedAt;
  const pid = ours.child.pid;
  const start = await measureStart(server, model, spawnedAt, cursor, "the controller");
  const memoryAfterStart = await memoryOf(pid);
  say(
    `  start -> first correct write      ${seconds(start.firstWriteMs)} (process up and logging after ` +
      `${seconds(startingMs)}; ${start.writesUntilCorrect} write(s))`,
  );
  say(`  RSS after the first write         ${mib(memoryAfterStart.rssKib)}`);

  // ---- ours: change latency --------------------------------------------------------------------
  const changes = await measureChanges(server, model, "c");
  const memoryAfterChanges = await memoryOf(pid);
  const p50 = percentile(changes.latencies, 50);
  const p99 = percentile(changes.latencies, 99);
  say(
    `  change -> write, ${CHANGES} changes       p50 ${ms(p50)}, p99 ${ms(p99)}, max ${
      ms(Math.max(...changes.latencies))
    }; extra writes: ${changes.extraWrites}`,
  );
  say(`  RSS after the changes             ${mib(memoryAfterChanges.rssKib)}`);

  // ---- ours: status churn ----------------------------------------------------------------------
  const churned = await churn(server, model, ours);
  const memoryAfterChurn = await memoryOf(pid);
  say(
    `  status churn                      ${churned.updates.toLocaleString("en-US")} updates at ${
      Math.round(churned.achievedRate).toLocaleString("en-US")
    }/s -> ${churned.writesDuringChurn} ConfigMap write(s)`,
  );
  say(
    `                                    controller CPU ${churned.cpuPercent.toFixed(0)}% of one core; ` +
      `${churned.reconcilesSkipped} recomputes skipped (set unchanged), ` +
      `${churned.reconcilesUnchanged} unchanged reconciles`,
  );
  say(
    `                                    the change made right after it was written ${
      ms(churned.drainMs)
    } later; Ingress watch restarts: ${churned.watchRestarts}`,
  );
  say(
    `  RSS after the churn               ${mib(memoryAfterChurn.rssKib)} (peak ${
      mib(memoryAfterChurn.peakKib)
    })`,
  );

  ours.kill("SIGTERM");
  const oursStatus = await ours.status;
  const errors = ours.logs.filter((line) => line.level === "ERROR" || line.level === "WARN");
  say(`  SIGTERM -> exit status ${oursStatus.code}; WARN/ERROR lines logged: ${errors.length}`);
  for (const line of errors.slice(0, 5)) say(`    ${JSON.stringify(line)}`);
  say();

  // ---- peer --------------------------------------------------------------------------------------
  let peerStart: StartRun | undefined;
  let peerChanges: ChangeRun | undefined;
  let peerMemory: Memory | undefined;
  if (withPeer) {
    say("reference: bare client-node list-watch-PATCH loop (no validation, no coalescing, no checks)");
    resetCorefile(server);
    cursor = server.audit.length;
    const peerSpawnedAt = Date.now();
    peer = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        "-P=bench",
        PEER,
        server.url,
        BENCH_TOKEN,
        COREDNS.namespace,
        COREDNS.name,
        COREDNS.key,
        BENCH_FQDN,
      ],
      cwd: ROOT,
      stdin: "null",
      stdout: "null",
      stderr: "inherit",
    }).spawn();
    peerStart = await measureStart(server, model, peerSpawnedAt, cursor, "the client-node loop");
    const peerMemoryAfterStart = await memoryOf(peer.pid);
    say(
      `  start -> first correct write      ${
        seconds(peerStart.firstWriteMs)
      } (${peerStart.writesUntilCorrect} write(s))`,
    );
    say(`  RSS after the first write         ${mib(peerMemoryAfterStart.rssKib)}`);
    peerChanges = await measureChanges(server, model, "d");
    peerMemory = await memoryOf(peer.pid);
    say(
      `  change -> write, ${CHANGES} changes       p50 ${ms(percentile(peerChanges.latencies, 50))}, p99 ${
        ms(percentile(peerChanges.latencies, 99))
      }, max ${ms(Math.max(...peerChanges.latencies))}; extra writes: ${peerChanges.extraWrites}`,
    );
    say(`  RSS after the changes             ${mib(peerMemory.rssKib)} (peak ${mib(peerMemory.peakKib)})`);
    say("  (status churn not run: this loop recomputes on every event and would only measure that)");
    peer.kill("SIGTERM");
    await peer.status;
    peer = undefined;
    say();
  }

  // ---- summary -------------------------------------------------------------------------------------
  const peakKib = Math.max(
    memoryAfterStart.peakKib,
    memoryAfterChanges.peakKib,
    memoryAfterChurn.peakKib,
  );
  say("RESULTS");
  const row = (name: string, value: string, reference: string) =>
    `  ${name.padEnd(36)} ${value.padStart(14)} ${reference.padStart(16)}`;
  say(row("metric", "ouroboros", withPeer ? "client-node loop" : ""));
  say(
    row("start -> first correct write", seconds(start.firstWriteMs), seconds(peerStart?.firstWriteMs ?? NaN)),
  );
  say(row("change -> write p50", ms(p50), ms(percentile(peerChanges?.latencies ?? [], 50))));
  say(row("change -> write p99", ms(p99), ms(percentile(peerChanges?.latencies ?? [], 99))));
  say(row("peak RSS (VmHWM)", mib(peakKib), mib(peerMemory?.peakKib ?? NaN)));
  say(row(`writes from ${churned.updates} status updates`, String(churned.writesDuringChurn), "-"));
  say(row("CPU under that churn", `${churned.cpuPercent.toFixed(0)}%`, "-"));
  say();
  say("Why the change latency differs: the controller waits 100 ms after the first event of a burst");
  say("(the coalescing window) and checks the new Corefile before writing; the bare loop writes at once.");
  say();
  const goals: Goal[] = [
    {
      goal: "first correct write within 0.5 s",
      met: Number.isFinite(start.firstWriteMs) ? start.firstWriteMs <= 500 : undefined,
      measured: seconds(start.firstWriteMs),
    },
    {
      goal: "change -> write p99 within 200 ms",
      met: Number.isFinite(p99) ? p99 <= 200 : undefined,
      measured: ms(p99),
    },
    {
      goal: "peak RSS within 150 MiB, no --max-old-space-size",
      met: Number.isFinite(peakKib) && !controllerV8Flags.includes("max-old-space-size")
        ? peakKib <= 150 * 1024
        : undefined,
      measured: mib(peakKib),
    },
    {
      goal: `zero writes from ${CHURN_RATE}/s status updates for ${CHURN_SECONDS} s`,
      met: churned.writesDuringChurn === 0,
      measured: `${churned.writesDuringChurn} write(s) at ${Math.round(churned.achievedRate)}/s`,
    },
    {
      goal: "CPU under that churn within 24% of a core",
      met: Number.isFinite(churned.cpuPercent) ? churned.cpuPercent <= 24 : undefined,
      measured: `${churned.cpuPercent.toFixed(0)}%`,
    },
  ];
  say("Goals");
  for (const goal of goals) say(goalLine(goal));
  say();
  await sayAllocations();
} finally {
  ours?.kill("SIGKILL");
  await ours?.status;
  if (peer !== undefined) {
    try {
      peer.kill("SIGKILL");
    } catch { /* exited */ }
    await peer.status;
  }
  await Deno.remove(dir, { recursive: true });
}
