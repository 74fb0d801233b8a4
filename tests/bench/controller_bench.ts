/**
 * `deno task bench:controller`: the controller in coredns mode against a large cluster, at two
 * sizes in one run, each held to its own goals.
 *
 * Method. An API server holds kubeadm's CoreDNS ConfigMap and Ingresses of about 1.3 KiB with two
 * TLS hosts and a 400-byte annotation each: first 3,000 (6,000 hostnames), then 10,000 (20,000
 * hostnames, the first 3,000 being the same ones). By default it is the fake API server in this
 * process; `--apiserver=real` uses a real kube-apiserver and etcd on loopback
 * (`controller_real_cluster.ts`, built by `deno task real:build`), `--apiserver=both` runs both in
 * turn. At each size `ouroboros controller --mode=coredns` runs as a child process with its own
 * permission set, as in production (`controller_run.ts`). Measured:
 *
 * 1. Start to the first correct Corefile write: from spawning the process to the write after
 *    which the block names every host (the fake's audit log, or a watch on the real one), split
 *    by the controller's log lines into starting up, listing and writing.
 * 2. Change latency: one Ingress's TLS host replaced, then wait for the write that carries it;
 *    the time from the change to that write, over 200 sequential changes (p50, p99).
 * 3. Status churn (fake API server only): 5,000 status-only Ingress updates a second for 30 s;
 *    no ConfigMap write may follow. One real change afterwards proves they were all processed.
 * 4. Resident memory (VmRSS, its anonymous and file-backed parts, V8's heap from /metrics) after
 *    each phase, the peak (VmHWM), and the controller's CPU during the churn.
 * 5. The floors, printed beside: an empty Deno program and one that has loaded the controller's
 *    modules, each idle, started as the controller is (`controller_floors.ts`).
 * 6. Where the bytes go: `controller_alloc.ts` in a child process measures what each step
 *    allocates (per Ingress cached, per status update, per Corefile write) at 10,000 Ingresses.
 *
 * Goals (`goalsFor` in `controller_stats.ts`): at 3,000 Ingresses peak RSS within 80 MiB and the
 * first correct write within 0.5 s; at 10,000 peak RSS within 150 MiB, first write within 0.5 s,
 * change p99 within 200 ms, CPU under the churn within 24% of a core; zero writes from the churn
 * at any size. Each is printed PASS or MISS, a MISS with what bounds it, measured.
 *
 * The controller runs with the chart's default `controller.v8Flags` (chart/values.yaml) unless
 * `--v8-flags` says otherwise.
 *
 * There is no runnable peer controller (the original is written in Go and is not available
 * here), so as a reference point the same start and change-latency measurements are taken of a
 * bare list-watch-PATCH loop written with `@kubernetes/client-node` (`controller_peer.ts`), at the
 * larger size against the fake API server.
 *
 * Flags: `--quick` (50 changes, 10 s of churn), `--no-peer` (skip the client-node loop),
 * `--ingresses=<n>` (one size only, instead of 3,000 and 10,000), `--apiserver=fake|real|both`,
 * `--v8-flags=<a,b>` (V8 flags for the controller process, passed as `DENO_V8_FLAGS`, as the
 * chart's `controller.v8Flags` does), `--env=<NAME>=<value>` (repeatable: more environment for the
 * controller process, such as `MALLOC_ARENA_MAX=2`, as the chart's `controller.extraEnv` sets),
 * `--bundle` (run a `deno bundle` of `main.ts` instead of the source: JavaScript, one chunk per
 * subcommand, so the start has no TypeScript step, as in the compiled binary, which cannot be built
 * here; the floors stay those of the source).
 *
 * @module
 */

import { parse as parseYaml } from "yaml";
import { applyCorefileBlock } from "../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { CONFIGMAP_DATA_LIMIT, utf8Length } from "../../lib/controller/modes/coredns/configmap_data_bytes.ts";
import { MAIN, ROOT } from "../support/ouroboros_process.ts";
import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";
import {
  ANNOTATION_BYTES,
  BENCH_FQDN,
  BENCH_TOKEN,
  type BenchCluster,
  COREDNS,
  fakeCluster,
  HostModel,
  initialHosts,
} from "./controller_cluster.ts";
import { realCluster } from "./controller_real_cluster.ts";
import type { AllocAccount } from "./controller_alloc.ts";
import { type Memory, memoryOf } from "./controller_proc.ts";
import { type Floors, measureFloors } from "./controller_floors.ts";
import {
  type ChangeRun,
  type ControllerRun,
  measureChanges,
  measureStart,
  runController,
  type StartRun,
} from "./controller_run.ts";
import { type Goal, goalLine, goalsFor, mib, ms, percentile } from "./controller_stats.ts";

const FLAGS = ["--quick", "--no-peer", "--bundle"];
const V8_FLAGS_PREFIX = "--v8-flags=";
const INGRESSES_PREFIX = "--ingresses=";
const APISERVER_PREFIX = "--apiserver=";
const APISERVERS = ["fake", "real", "both"];
const ENV_PREFIX = "--env=";
const unknown = Deno.args.filter((arg) =>
  !FLAGS.includes(arg) && !arg.startsWith(V8_FLAGS_PREFIX) &&
  !(arg.startsWith(ENV_PREFIX) && /^[A-Z_][A-Z0-9_]*=/.test(arg.slice(ENV_PREFIX.length))) &&
  !(arg.startsWith(INGRESSES_PREFIX) && /^[1-9][0-9]*$/.test(arg.slice(INGRESSES_PREFIX.length))) &&
  !(arg.startsWith(APISERVER_PREFIX) && APISERVERS.includes(arg.slice(APISERVER_PREFIX.length)))
);
if (unknown.length > 0) {
  // deno-lint-ignore no-console
  console.error(
    `unknown arguments ${
      unknown.join(" ")
    }; usage: deno task bench:controller [--quick] [--no-peer] [--bundle] [--v8-flags=<a,b>] [--ingresses=<n>] ` +
      "[--apiserver=fake|real|both] [--env=<NAME>=<value>]...",
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
const controllerEnv: Record<string, string> = {
  ...extraEnv,
  ...(controllerV8Flags === "" ? {} : { DENO_V8_FLAGS: controllerV8Flags }),
};

/** `--ingresses=<n>`: one size; by default both sizes the goals are set for. */
const onlySize = Deno.args.findLast((arg) => arg.startsWith(INGRESSES_PREFIX))?.slice(
  INGRESSES_PREFIX.length,
);
const SIZES: readonly number[] = onlySize === undefined ? [3_000, 10_000] : [Number(onlySize)];
const apiserverFlag = Deno.args.findLast((arg) => arg.startsWith(APISERVER_PREFIX))?.slice(
  APISERVER_PREFIX.length,
) ?? "fake";
const API_SERVERS: readonly ("fake" | "real")[] = apiserverFlag === "both"
  ? ["fake", "real"]
  : [apiserverFlag === "real" ? "real" : "fake"];
const CHANGES = quick ? 50 : 200;
const CHURN_SECONDS = quick ? 10 : 30;
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

/** What the client-node loop measured. */
interface PeerRun {
  readonly start: StartRun;
  readonly changes: ChangeRun;
  readonly memory: Memory;
}

/** Runs the client-node loop against the fake API server at the cluster's current size. */
async function runPeer(cluster: BenchCluster, ingresses: number): Promise<PeerRun | undefined> {
  const server = cluster.fake;
  if (server === undefined) return undefined;
  say(
    `reference: bare client-node list-watch-PATCH loop at ${ingresses} Ingresses (no validation, ` +
      "no coalescing, no checks)",
  );
  await cluster.resetCorefile();
  const cursor = cluster.writes().length;
  const spawnedAt = Date.now();
  const peer = new Deno.Command(Deno.execPath(), {
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
  try {
    const start = await measureStart(cluster, spawnedAt, { cursor, who: "the client-node loop" });
    say(
      `  start -> first correct write      ${
        seconds(start.firstWriteMs)
      } (${start.writesUntilCorrect} write(s))`,
    );
    const changes = await measureChanges(cluster, `d${ingresses}-`, { count: CHANGES, ingresses });
    const memory = await memoryOf(peer.pid);
    say(
      `  change -> write, ${CHANGES} changes       p50 ${ms(percentile(changes.latencies, 50))}, p99 ${
        ms(percentile(changes.latencies, 99))
      }; extra writes: ${changes.extraWrites}`,
    );
    say(`  RSS after the changes             ${mib(memory.rssKib)} (peak ${mib(memory.peakKib)})`);
    say("  (status churn not run: this loop recomputes on every event and would only measure that)");
    return { start, changes, memory };
  } finally {
    try {
      peer.kill("SIGKILL");
    } catch { /* exited */ }
    await peer.status;
    say();
  }
}

/** One run of ours, with the API server it ran against. */
interface Result {
  readonly apiserver: "fake" | "real";
  readonly run: ControllerRun;
}

/** The phase after which VmHWM first reached the run's peak. */
function peakPhase(run: ControllerRun): ControllerRun["phases"][number] | undefined {
  return run.phases.find((entry) => entry.memory.peakKib >= run.peakKib);
}

/** The goals of one run, each with what bounds it, measured. */
function goalsOf(result: Result, floors: Floors): Goal[] {
  const { run } = result;
  const limits = goalsFor(run.ingresses);
  const goals: Goal[] = [];
  const capped = controllerV8Flags.includes("max-old-space-size");
  if (limits.peakRssMib !== undefined) {
    const at = peakPhase(run);
    const heap = at === undefined
      ? ""
      : `; V8's heap then ${(at.heap.totalBytes / 2 ** 20).toFixed(1)} MiB (${
        (at.heap.usedBytes / 2 ** 20).toFixed(1)
      } MiB used)`;
    goals.push({
      goal: `peak RSS within ${limits.peakRssMib} MiB, no --max-old-space-size`,
      met: Number.isFinite(run.peakKib) && !capped ? run.peakKib <= limits.peakRssMib * 1024 : undefined,
      measured: mib(run.peakKib),
      bound:
        `reached by the end of the phase "${at?.phase ?? "?"}" (anon ${mib(at?.memory.anonKib ?? NaN)}, ` +
        `file-backed ${mib(at?.memory.fileKib ?? NaN)}${heap}); the controller's modules idle take ` +
        `${mib(floors.graph.rssKib)} of it (an empty Deno program ${mib(floors.empty.rssKib)})`,
    });
  }
  if (limits.firstWriteMs !== undefined) {
    const first = run.start.firstWriteMs;
    goals.push({
      goal: `first correct write within ${seconds(limits.firstWriteMs)}`,
      met: Number.isFinite(first) ? first <= limits.firstWriteMs : undefined,
      measured: seconds(first),
      bound: `process up and logging after ${seconds(run.upMs)}, Ingresses listed and cached by ${
        seconds(run.syncedMs)
      }, then ${seconds(first - run.syncedMs)} to compute, edit and write`,
    });
  }
  if (limits.changeP99Ms !== undefined) {
    const p99 = percentile(run.changes.latencies, 99);
    goals.push({
      goal: `change -> write p99 within ${limits.changeP99Ms} ms`,
      met: Number.isFinite(p99) ? p99 <= limits.changeP99Ms : undefined,
      measured: ms(p99),
      bound: `p50 ${ms(percentile(run.changes.latencies, 50))}, of which 100 ms is the coalescing window`,
    });
  }
  if (run.churn !== undefined) {
    goals.push({
      goal: `zero writes from 5000/s status updates for ${run.churn.seconds} s`,
      met: run.churn.writesDuringChurn === 0,
      measured: `${run.churn.writesDuringChurn} write(s) at ${Math.round(run.churn.achievedRate)}/s`,
    });
    if (limits.churnCpuPercent !== undefined) {
      goals.push({
        goal: `CPU under that churn within ${limits.churnCpuPercent}% of a core`,
        met: Number.isFinite(run.churn.cpuPercent)
          ? run.churn.cpuPercent <= limits.churnCpuPercent
          : undefined,
        measured: `${run.churn.cpuPercent.toFixed(0)}%`,
      });
    }
  }
  return goals;
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
say(
  `sizes:     ${
    SIZES.map((size) => size.toLocaleString("en-US")).join(" and ")
  } Ingresses of about 1.3 KiB, ` +
    `2 TLS hosts and a ${ANNOTATION_BYTES}-byte annotation each`,
);
say(
  `API:       ${
    API_SERVERS.map((name) => name === "fake" ? "the fake API server" : "a real kube-apiserver").join(
      ", then ",
    )
  }; ` +
    "kube-system/coredns with kubeadm's Corefile",
);
const largest = new HostModel();
for (let i = 0; i < Math.max(...SIZES); i++) largest.set(i, initialHosts(i));
const full = applyCorefileBlock(KUBEADM, { hosts: largest.all(), fqdn: BENCH_FQDN });
const fullBytes = full.kind === "changed" ? utf8Length(full.corefile) + COREDNS.key.length : Number.NaN;
say(`target:    --proxy-fqdn=${BENCH_FQDN} and hostnames like a1234.io, so that every rewrite line fits`);
say(
  `           in one ConfigMap: at ${Math.max(...SIZES).toLocaleString("en-US")} Ingresses the Corefile is ${
    fullBytes.toLocaleString("en-US")
  } bytes of the`,
);
say(`           ${CONFIGMAP_DATA_LIMIT.toLocaleString("en-US")}-byte limit`);
say(
  `changes:   ${CHANGES} sequential; churn: 5000/s status-only updates for ${CHURN_SECONDS} s (fake API server)`,
);
say(
  `V8 flags:  ${controllerV8Flags === "" ? "(V8's defaults)" : controllerV8Flags} for the controller${
    controllerV8Flags === chartV8Flags ? " (the chart's default controller.v8Flags)" : ""
  }`,
);
if (Object.keys(extraEnv).length > 0) {
  say(`env:       ${Object.entries(extraEnv).map(([name, value]) => `${name}=${value}`).join(" ")}`);
}
say(
  withPeer
    ? "peer:      none runnable (the original is Go); as a reference, a bare list-watch-PATCH loop with " +
      "@kubernetes/client-node 2.0.1 at the larger size, after ours"
    : "peer:      none runnable (the original is Go); the client-node reference loop is skipped (--no-peer)",
);
say();

/**
 * `--bundle`: `main.ts` bundled by `deno bundle` into `outdir`, code-split as `main.ts` imports lazily.
 * `yaml` stays an import resolved by deno.json: bundled, the kubeconfig reader's `await import("yaml")`
 * got no `parse` export (a CommonJS interop of the bundler) and the controller could not start.
 */
async function bundleMain(outdir: string): Promise<string> {
  const built = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      "--code-splitting",
      "--external=yaml",
      `--outdir=${outdir}`,
      MAIN,
    ],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!built.success) throw new Error(`deno bundle failed: ${new TextDecoder().decode(built.stderr)}`);
  return `${outdir}/main.js`;
}
// Inside the checkout (its git-ignored cache), so that `-P=controller` finds deno.json's permission sets.
const bundleDir = Deno.args.includes("--bundle")
  ? await Deno.mkdir(`${ROOT}.ci/cache`, { recursive: true }).then(() =>
    Deno.makeTempDir({ dir: `${ROOT}.ci/cache`, prefix: "bench-bundle-" })
  )
  : undefined;
const entry = bundleDir === undefined ? undefined : await bundleMain(bundleDir);
say(
  entry === undefined
    ? "program:   main.ts from source (deno run; the compiled binary cannot be built here)"
    : "program:   a deno bundle of main.ts (JavaScript, one chunk per subcommand: no TypeScript step at " +
      "start, as in the compiled binary)",
);
say();

const floors = await measureFloors(controllerEnv);
say("floors (idle, started as the controller is, same V8 flags)");
say(
  `  empty Deno program                ${mib(floors.empty.rssKib)} (anon ${
    mib(floors.empty.anonKib)
  }, file-backed ${mib(floors.empty.fileKib)})`,
);
say(
  `  the controller's modules loaded   ${mib(floors.graph.rssKib)} (anon ${
    mib(floors.graph.anonKib)
  }, file-backed ${mib(floors.graph.fileKib)})`,
);
say();

const dir = await Deno.makeTempDir({ prefix: "ouroboros-bench-controller-" });
const results: Result[] = [];
let peerRun: PeerRun | undefined;
try {
  for (const apiserver of API_SERVERS) {
    const clusterDir = `${dir}/${apiserver}`;
    await Deno.mkdir(clusterDir);
    if (apiserver === "real") say("starting a real etcd and kube-apiserver …");
    await using cluster = apiserver === "fake"
      ? await fakeCluster(clusterDir)
      : await realCluster(clusterDir, say);
    for (const size of [...SIZES].sort((a, b) => a - b)) {
      await cluster.grow(size);
      say(`ouroboros controller, ${size.toLocaleString("en-US")} Ingresses, ${cluster.name}`);
      const run = await runController(cluster, {
        ingresses: size,
        changes: CHANGES,
        churnSeconds: CHURN_SECONDS,
        env: controllerEnv,
        say,
        ...(entry === undefined ? {} : { entry }),
      });
      results.push({ apiserver, run });
      say();
      if (withPeer && apiserver === "fake" && size === Math.max(...SIZES)) {
        peerRun = await runPeer(cluster, size);
      }
    }
  }
} finally {
  await Deno.remove(dir, { recursive: true });
  if (bundleDir !== undefined) await Deno.remove(bundleDir, { recursive: true });
}

// ---- summary -------------------------------------------------------------------------------------
say("RESULTS");
const columns = results.map(({ apiserver, run }) => `${run.ingresses.toLocaleString("en-US")} ${apiserver}`);
const row = (name: string, values: readonly string[], reference = "") =>
  `  ${name.padEnd(30)} ${values.map((value) => value.padStart(13)).join(" ")}${
    peerRun === undefined ? "" : reference.padStart(18)
  }`;
say(row("metric (Ingresses, API server)", columns, "client-node loop"));
say(
  row(
    "start -> first correct write",
    results.map(({ run }) => seconds(run.start.firstWriteMs)),
    seconds(peerRun?.start.firstWriteMs ?? NaN),
  ),
);
say(row("  of which process up", results.map(({ run }) => seconds(run.upMs))));
say(row("  of which listed and cached", results.map(({ run }) => seconds(run.syncedMs - run.upMs))));
say(
  row(
    "change -> write p50",
    results.map(({ run }) => ms(percentile(run.changes.latencies, 50))),
    ms(percentile(peerRun?.changes.latencies ?? [], 50)),
  ),
);
say(
  row(
    "change -> write p99",
    results.map(({ run }) => ms(percentile(run.changes.latencies, 99))),
    ms(percentile(peerRun?.changes.latencies ?? [], 99)),
  ),
);
say(row("peak RSS (VmHWM)", results.map(({ run }) => mib(run.peakKib)), mib(peerRun?.memory.peakKib ?? NaN)));
say(
  row(
    "writes from status churn",
    results.map(({ run }) => run.churn === undefined ? "not run" : String(run.churn.writesDuringChurn)),
  ),
);
say(
  row(
    "CPU under that churn",
    results.map(({ run }) => run.churn === undefined ? "not run" : `${run.churn.cpuPercent.toFixed(0)}%`),
  ),
);
say(
  `  floors: empty Deno program ${mib(floors.empty.rssKib)}; the controller's modules loaded, idle ${
    mib(floors.graph.rssKib)
  }`,
);
say();
say("Why the change latency differs: the controller waits 100 ms after the first event of a burst");
say("(the coalescing window) and checks the new Corefile before writing; the bare loop writes at once.");
say();
for (const result of results) {
  say(`Goals at ${result.run.ingresses.toLocaleString("en-US")} Ingresses, ${result.apiserver} API server`);
  const goals = goalsOf(result, floors);
  if (goals.length === 0) say("  (no goal is set for this size)");
  for (const goal of goals) say(goalLine(goal));
  say();
}
await sayAllocations();
