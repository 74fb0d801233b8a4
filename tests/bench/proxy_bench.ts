/**
 * Proxy benchmark: `deno task bench:proxy` (add `--quick` for a one-round smoke run).
 *
 * A script that PRINTS figures; it asserts nothing about speed and is not part of the test suite
 * (its pure parts are tested in `proxy_bench_test.ts`).
 *
 * Method
 * ------
 * The same loads run, on loopback, through every path (`proxy_bench_paths.ts`):
 *   ours at 1 worker, the `--workers` default and N workers (N = CPUs, at least 2; one
 *   configuration when the proxy has no `--workers`),
 *   HAProxy `mode tcp` + `send-proxy` at `nbthread 1` and at threads = CPUs (as hairpin-proxy
 *   ships it), the Go io.Copy anchor (when Go is present), and direct (no proxy: the ceiling).
 * Backends: nginx (one process) with a `proxy_protocol` listener and a plain one, and
 * `bench_peer.py sink` for uploads and idle connections (`proxy_bench_peers.ts`).
 *
 * Measurements (`proxy_bench_measure.ts`), interleaved: every round runs each measurement on
 * each path in turn (A B C A B C …, the path order rotating from round to round), and the report
 * gives the median over the rounds: bulk download/upload MiB/s and CPU s/GiB; connection rate
 * (new connection per request) at 1, 4 and 16 clients; keep-alive p50/p99 at 1 and 8 clients and
 * the p99 each path adds to direct; RSS per idle connection at 1,000 and 9,900 (or what the
 * descriptor limit allows) from a fresh process each time. Ratios to HAProxy (threads = CPUs)
 * and to direct follow, then the issue's goals as PASS/MISS lines (`proxy_bench_report.ts`).
 * Clients, backend and proxy share the machine's cores, which the output says.
 *
 * @module
 */

import { DEFAULT_RELAY_BUFFERS } from "../../lib/proxy/relay.ts";
import { type CpuCgroup, makeCpuCgroup } from "../support/cpu_cgroup.ts";
import { requireTool } from "../support/tools.ts";
import { figure } from "./bench_report.ts";
import { capture, HOST, print, readProc } from "./proxy_bench_io.ts";
import {
  bulk,
  CONNECTION_CLOSE,
  connectionRate,
  idleMemory,
  keepAliveLatency,
  type Recorder,
  sanityCheck,
  wrk,
} from "./proxy_bench_measure.ts";
import { peerJson, startBenchNginx, startSink, writeBigFile } from "./proxy_bench_peers.ts";
import {
  type Backends,
  BENCH_HOST,
  buildGoRelay,
  HAPROXY_MAXCONN_SLACK,
  type ProxyInstance,
  proxyOffersWorkers,
  startGoRelay,
  startHaproxyPath,
  startOurs,
  type Target,
} from "./proxy_bench_paths.ts";
import { type PathInfo, ROUTED_PATH, Samples } from "./proxy_bench_report.ts";
import { LATENCY_CLIENTS, parseBenchArgs, RATE_CLIENTS, workerCounts } from "./proxy_bench_settings.ts";
import { environment, report } from "./proxy_bench_summary.ts";

/** A path and how to start a fresh instance of it (absent for direct). */
interface PathPlan {
  readonly info: PathInfo;
  readonly start?: (maxconn: number) => Promise<ProxyInstance>;
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

/** The paths of this run: ours (at {@linkcode workerCounts} when offered), HAProxy 1 and N, Go, direct. */
function planPaths(
  cpus: number,
  options: { workers: boolean; goBinary?: string; backends: Backends; direct: Target; routesDir?: string },
): PathPlan[] {
  const { backends } = options;
  const plans: PathPlan[] = [];
  const ourCounts = options.workers ? workerCounts(cpus) : [undefined];
  for (const workers of ourCounts) {
    const info: PathInfo = workers === undefined
      ? { id: "ours", label: "ours", kind: "ours", threads: 1 }
      : { id: `ours-${workers}`, label: `ours w=${workers}`, kind: "ours", threads: workers };
    plans.push({ info, start: () => startOurs(info, backends, workers === undefined ? {} : { workers }) });
  }
  if (options.routesDir !== undefined) {
    const routesDir = options.routesDir;
    const info: PathInfo = { id: ROUTED_PATH, label: "ours w=1 routed", kind: "ours", threads: 1 };
    plans.push({ info, start: () => startOurs(info, backends, { workers: 1, routesDir }) });
  }
  for (const threads of [...new Set([1, cpus])]) {
    const info = { id: `haproxy-${threads}`, label: `hap t=${threads}`, kind: "haproxy", threads } as const;
    plans.push({ info, start: (maxconn) => startHaproxyPath(info, backends, maxconn) });
  }
  if (options.goBinary !== undefined) {
    const binary = options.goBinary;
    const info: PathInfo = { id: "go", label: "go io.Copy", kind: "go" };
    plans.push({ info, start: () => startGoRelay(info, binary, backends) });
  }
  plans.push({ info: options.direct.info });
  return plans;
}

/**
 * The plans with every started proxy moved into the quota's cgroup (all its threads) before any
 * load reaches it; unchanged without `--cpus`. A worker count given by flag is not re-read, so
 * moving a running process is the same as starting it inside.
 */
function underQuota(plans: PathPlan[], quota: CpuCgroup | undefined): PathPlan[] {
  if (quota === undefined) return plans;
  return plans.map((plan) => {
    const start = plan.start;
    if (start === undefined) return plan;
    return {
      info: plan.info,
      start: async (maxconn) => {
        const instance = await start(maxconn);
        try {
          await quota.adopt(instance.pid);
        } catch (error) {
          await instance.stop();
          throw error;
        }
        return instance;
      },
    };
  });
}

async function main(): Promise<void> {
  const settings = parseBenchArgs(Deno.args);
  if ("error" in settings) {
    print(settings.error);
    Deno.exitCode = 2;
    return;
  }
  for (const tool of ["nginx", "haproxy", "wrk", "python3", "curl"]) requireTool(tool);
  const startedAt = performance.now();
  const elapsed = () => `${((performance.now() - startedAt) / 1000).toFixed(0)} s`;
  const clockTicks = Number((await capture("getconf", ["CLK_TCK"])).text.trim()) || 100;
  const machineCpus = Number((await capture("nproc", [])).text.trim()) || navigator.hardwareConcurrency;
  if (settings.cpus !== undefined && settings.cpus > machineCpus) {
    print(`--cpus=${settings.cpus} is more than this machine's ${machineCpus} CPUs: a quota cannot add CPUs`);
    Deno.exitCode = 2;
    return;
  }
  const cpus = settings.cpus ?? machineCpus;
  const workers = await proxyOffersWorkers();

  print(
    `ouroboros proxy benchmark${settings.quick ? " (--quick smoke run: figures are indicative only)" : ""}`,
  );
  for (const line of await environment(cpus)) print(line);

  const cleanups: (() => Promise<void>)[] = [];
  let quota: CpuCgroup | undefined;
  if (settings.cpus !== undefined) {
    const made = await makeCpuCgroup(`ouroboros-bench-${Deno.pid}`, settings.cpus);
    if (typeof made === "string") {
      print(`--cpus=${settings.cpus}: ${made}`);
      Deno.exitCode = 1;
      return;
    }
    quota = made;
    cleanups.push(async () => {
      const left = await made.remove();
      if (left !== undefined) print(`cgroup: ${left}`);
    });
    print(
      `quota:       every proxy runs in the cgroup ${made.dir} (${made.version}), ${made.cpus} CPU(s) of ` +
        `${machineCpus}; wrk, python and nginx outside it`,
    );
  }
  print();

  const dir = await Deno.makeTempDir({ prefix: "ouroboros-bench-" });
  cleanups.push(() => Deno.remove(dir, { recursive: true }));
  try {
    const go = await buildGoRelay(dir);
    const fileBytes = settings.fileMiB * 1024 * 1024;
    const bigPath = `${dir}/big.bin`;
    await writeBigFile(bigPath, settings.fileMiB);
    const sink = await startSink();
    cleanups.push(() => sink.stop());
    const nginx = await startBenchNginx(dir);
    cleanups.push(() => nginx.stop());
    const backends: Backends = { nginxPP: nginx.pp, sinkPP: sink.pp };
    const direct: Target = {
      info: { id: "direct", label: "direct", kind: "direct" },
      httpPort: nginx.plain,
      sinkPort: sink.plain,
    };
    const plans = underQuota(
      planPaths(cpus, {
        workers,
        backends,
        direct,
        routesDir: dir,
        ...("binary" in go ? { goBinary: go.binary } : {}),
      }),
      quota,
    );
    const paths = plans.map((plan) => plan.info);

    print("Set-up");
    print(`  backend:   nginx (1 process, sendfile) :${nginx.pp} proxy_protocol, :${nginx.plain} plain;`);
    print(`             bench_peer.py sink :${sink.pp} strips the PROXY header, :${sink.plain} plain`);
    print(`  ours:      deno run -P=proxy main.ts proxy --target-host=127.0.0.1 --log-level=warn, PROXY v1,`);
    print(`  routed:    ours at 1 worker with --routes-file (200 routes; wrk's Host ${BENCH_HOST} is one)`);
    print(
      `             relay buffers ${DEFAULT_RELAY_BUFFERS.small} B own, borrowing ${DEFAULT_RELAY_BUFFERS.pool.size} B ` +
        `while streaming; ${
          workers
            ? workerCounts(cpus).map((n) => `--workers=${n}`).join(", ")
            : "workers are not available (this proxy has no --workers flag): one configuration"
        }`,
    );
    print(
      `  haproxy:   mode tcp, server ... send-proxy (v1), nbthread ${
        cpus === 1 ? "1 (threads = CPUs)" : `1 and nbthread ${cpus} (threads = CPUs)`
      },`,
    );
    print(
      `             maxconn 4000 (idle test: N + ${HAPROXY_MAXCONN_SLACK}), timeout connect 5s / client 1h / server 1h`,
    );
    print(
      "binary" in go
        ? `  go:        tests/bench/go_relay (${go.version}): accept, dial, PROXY v1 header, two io.Copy goroutines, half-close`
        : `  go:        SKIPPED: ${go.skipped}`,
    );
    print(
      `  loads:     download/upload ${settings.fileMiB} MiB; wrk -t1 -c{${RATE_CLIENTS.join(",")}} ` +
        `-d${settings.rateSeconds}s -H 'Connection: close'; wrk -t1 -c{${LATENCY_CLIENTS.join(",")}} ` +
        `-d${settings.latencySeconds}s --latency`,
    );
    print(
      `  rounds:    ${settings.rounds} (idle memory: ${settings.idleRounds}), interleaved, path order rotated each ` +
        "round; medians reported",
    );
    print(
      `  fairness:  identical client load on every path; clients (wrk, python), backend and proxy share the`,
    );
    print(
      quota === undefined
        ? `             same ${cpus} cores, so every figure includes that contention`
        : `             machine's ${machineCpus} cores; each proxy may use ${quota.cpus} CPU(s) of time (its quota)`,
    );
    print();

    const running = new Map<string, Target>([["direct", direct]]);
    for (const plan of plans) {
      if (plan.start === undefined) continue;
      const instance = await plan.start(4000);
      cleanups.push(() => instance.stop());
      running.set(plan.info.id, instance);
    }
    const targets = paths.map((info) => running.get(info.id) as Target);
    for (const target of targets) await sanityCheck(target);
    print("Sanity: nginx saw the client address 127.0.0.1 in the PROXY header via every proxy.");

    for (const target of targets) {
      await peerJson(["download", HOST, String(target.httpPort), "/big.bin"]);
      await peerJson(["upload", HOST, String(target.sinkPort), bigPath]);
      await wrk(target.httpPort, { connections: 16, seconds: 1, extra: CONNECTION_CLOSE });
      await wrk(target.httpPort, { connections: 8, seconds: 1, extra: ["--latency"] });
    }
    print(`Warm-up pass done (${elapsed()}).`);
    print();

    const recorder: Recorder = { samples: new Samples(), problems: [] };
    const bulkOptions = { recorder, bigPath, fileBytes, clockTicks };
    const measurements: ((target: Target) => Promise<void>)[] = [
      (t) => bulk("download", t, bulkOptions),
      (t) => bulk("upload", t, bulkOptions),
      ...RATE_CLIENTS.map((clients) => (t: Target) =>
        connectionRate(t, { recorder, clients, seconds: settings.rateSeconds })
      ),
      ...LATENCY_CLIENTS.map((clients) => (t: Target) =>
        keepAliveLatency(t, { recorder, clients, seconds: settings.latencySeconds })
      ),
    ];
    for (let round = 0; round < settings.rounds; round++) {
      const order = rotate(targets, round);
      for (const measure of measurements) {
        for (const target of order) await measure(target);
      }
      const last = (metric: string, id: string) => figure(recorder.samples.values(metric, id).at(-1));
      print(
        `round ${round + 1}/${settings.rounds} (${elapsed()}): ` +
          order.map(({ info }) =>
            `${info.label} ${last("download", info.id)}/${last("upload", info.id)} MiB/s, ` +
            `${last("rate@16", info.id)} conn/s@16, p99@8 ${last("p99@8", info.id)} ms`
          ).join("; "),
      );
    }
    for (const target of targets) {
      if ("stop" in target) await (target as ProxyInstance).stop();
    }
    print();

    // Idle connections: a fresh instance per path and round, so earlier loads do not colour it.
    // The routed path is left out: it dials nothing for a client that has not named its host, and
    // closes it at --route-read-timeout, so silent idle clients never reach the sink.
    const idlePlans = plans.filter((plan) =>
      plan.start !== undefined && !(plan.info.kind === "haproxy" && plan.info.threads !== cpus) &&
      plan.info.id !== ROUTED_PATH
    );
    print(
      `Idle connections (${idlePlans.map((plan) => plan.info.label).join(", ")}): ` +
        `${settings.idleSmall} and ${settings.idleTarget} aimed for`,
    );
    const idleCounts = new Map<string, string>();
    for (let round = 0; round < settings.idleRounds; round++) {
      for (const plan of rotate(idlePlans, round)) {
        const instance = await (plan.start as (maxconn: number) => Promise<ProxyInstance>)(
          settings.idleTarget + HAPROXY_MAXCONN_SLACK,
        );
        try {
          const reading = await idleMemory(instance, {
            small: settings.idleSmall,
            large: settings.idleTarget,
            sinkStats: sink.stats,
          });
          const id = plan.info.id;
          recorder.samples.add("idleSmall", id, (reading.smallKib - reading.baseKib) / reading.small);
          recorder.samples.add("idleLarge", id, (reading.largeKib - reading.baseKib) / reading.large);
          if (reading.large > reading.small) {
            recorder.samples.add(
              "idleMarginal",
              id,
              (reading.largeKib - reading.smallKib) / (reading.large - reading.small),
            );
          }
          idleCounts.set(
            id,
            `${reading.large} (${reading.fdsPerConnection} fds/conn, limit ${reading.fdLimit})`,
          );
          print(
            `  round ${
              round + 1
            }/${settings.idleRounds} ${plan.info.label}: VmRSS ${reading.baseKib} KiB at start, ` +
              `${reading.smallKib} KiB with ${reading.small}, ${reading.largeKib} KiB with ${reading.large} idle ` +
              `connections; ${reading.fdsPerConnection} descriptors per connection, limit ${reading.fdLimit} (${elapsed()})`,
          );
        } finally {
          await instance.stop();
        }
      }
    }
    print();

    report({ settings, paths, cpus, recorder, idleCounts, workers });
    print();
    print(`Total run time ${elapsed()}; loadavg at the end ${(await readProc("/proc/loadavg")).trim()}.`);
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

if (import.meta.main) await main();
