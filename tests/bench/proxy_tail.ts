/**
 * Where the proxy's tail latency comes from: `deno task bench:proxy:tail` (`--quick` for a
 * one-round smoke run). A script that PRINTS figures; it asserts nothing about speed.
 *
 * Method: nginx serves a small body; keep-alive wrk clients (1 and 8) fetch it directly, through
 * HAProxy (`mode tcp`, `send-proxy`, one thread: no collector, no JavaScript) and through our
 * proxy (`--workers=1`) started with V8's `--trace-gc`, once with V8's defaults and once per
 * candidate flag. Rounds interleave the paths. Each of our runs is matched with the collections
 * whose trace line arrived while wrk ran, and `gcBound` (`proxy_tail_report.ts`) says whether
 * those pauses are numerous and long enough to be what sets the p99 and p99.9. HAProxy's own
 * added p99 in the same run is the machine's share: scheduling noise no proxy avoids.
 *
 * @module
 */

import { freePort, waitForPort } from "../support/daemons.ts";
import { denoArgs, ROOT } from "../support/ouroboros_process.ts";
import { requireTool } from "../support/tools.ts";
import { figure, median, renderTable } from "./bench_report.ts";
import { capture, cpuTicks, HOST, lineReader, print, readProc, rssKib } from "./proxy_bench_io.ts";
import { startBenchNginx } from "./proxy_bench_peers.ts";
import { startHaproxyPath } from "./proxy_bench_paths.ts";
import {
  gcBound,
  type GcEvent,
  parseGcLine,
  parseWrkTail,
  summarizeGc,
  WRK_TAIL_SCRIPT,
} from "./proxy_tail_report.ts";

/** Our proxy's configurations: V8's defaults and each candidate flag. */
const VARIANTS: readonly { id: string; label: string; flags: readonly string[] }[] = [
  { id: "ours", label: "ours (V8 defaults)", flags: [] },
  { id: "ours-single", label: "ours --single-threaded-gc", flags: ["--single-threaded-gc"] },
  { id: "ours-semi", label: "ours --min-semi-space-size=16", flags: ["--min-semi-space-size=16"] },
  {
    id: "ours-both",
    label: "ours, both flags",
    flags: ["--single-threaded-gc", "--min-semi-space-size=16"],
  },
];
const CLIENTS = [1, 8] as const;

interface Path {
  readonly id: string;
  readonly label: string;
  readonly port: number;
  /** Our proxy's GC trace lines with their arrival times (performance.now()). */
  readonly gc?: { at: number; event: GcEvent }[];
  /** Our proxy's process id, for its CPU time and RSS. */
  readonly pid?: number;
  stop(): Promise<void>;
}

async function startTraced(variant: (typeof VARIANTS)[number], nginxPP: number): Promise<Path> {
  const port = freePort();
  const args = denoArgs("proxy", [
    "proxy",
    `--listen-http=${HOST}:${port}`,
    `--listen-https=${HOST}:${freePort()}`,
    `--listen-health=${HOST}:${freePort()}`,
    `--target-host=${HOST}`,
    `--target-http-port=${nginxPP}`,
    `--target-https-port=${nginxPP}`,
    "--workers=1",
    "--log-level=warn",
  ]);
  args.splice(1, 0, `--v8-flags=${["--trace-gc", ...variant.flags].join(",")}`);
  const child = new Deno.Command(Deno.execPath(), {
    args,
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const gc: { at: number; event: GcEvent }[] = [];
  const lines = lineReader(child.stdout);
  const reading = (async () => {
    for (let line = await lines.next(); line !== undefined; line = await lines.next()) {
      const event = parseGcLine(line);
      if (event !== undefined) gc.push({ at: performance.now(), event });
    }
  })();
  const stop = async () => {
    try {
      child.kill("SIGKILL");
    } catch { /* exited already */ }
    await Promise.all([child.status, reading]);
  };
  try {
    await waitForPort(HOST, port, variant.label);
  } catch (error) {
    await stop();
    throw error;
  }
  return { id: variant.id, label: variant.label, port, gc, pid: child.pid, stop };
}

async function main(): Promise<void> {
  const quick = Deno.args.includes("--quick");
  const unknown = Deno.args.filter((arg) => arg !== "--quick");
  if (unknown.length > 0) {
    print(`usage: deno task bench:proxy:tail [--quick]   (unknown: ${unknown.join(" ")})`);
    Deno.exitCode = 2;
    return;
  }
  for (const tool of ["nginx", "haproxy", "wrk"]) requireTool(tool);
  const rounds = quick ? 1 : 5;
  const seconds = quick ? 1 : 4;
  const cleanups: (() => Promise<void>)[] = [];
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-tail-" });
  cleanups.push(() => Deno.remove(dir, { recursive: true }));
  try {
    const script = `${dir}/tail.lua`;
    await Deno.writeTextFile(script, WRK_TAIL_SCRIPT);
    const nginx = await startBenchNginx(dir);
    cleanups.push(() => nginx.stop());
    const hap = await startHaproxyPath({ id: "haproxy-1", label: "hap t=1", kind: "haproxy", threads: 1 }, {
      nginxPP: nginx.pp,
      sinkPP: nginx.pp,
    }, 4000);
    cleanups.push(() => hap.stop());
    const paths: Path[] = [
      { id: "direct", label: "direct", port: nginx.plain, stop: () => Promise.resolve() },
      { id: "haproxy", label: "hap t=1", port: hap.httpPort, stop: () => Promise.resolve() },
    ];
    for (const variant of VARIANTS) {
      const path = await startTraced(variant, nginx.pp);
      cleanups.push(() => path.stop());
      paths.push(path);
    }
    print("ouroboros proxy tail-latency benchmark" + (quick ? " (--quick: indicative only)" : ""));
    print(
      `  ${(await capture("uname", ["-srm"])).text.trim()}; ${navigator.hardwareConcurrency} CPUs; ` +
        `Deno ${Deno.version.deno} (V8 ${Deno.version.v8}); load ${(await readProc("/proc/loadavg")).trim()}`,
    );
    print(
      `  wrk -t1 -c{${
        CLIENTS.join(",")
      }} -d${seconds}s keep-alive GET /small; ${rounds} interleaved rounds, medians`,
    );
    print();
    for (const path of paths) await runWrk(path.port, 8, 1, script); // warm-up

    const samples = new Map<string, number[]>();
    const add = (key: string, value: number) => samples.set(key, [...(samples.get(key) ?? []), value]);
    for (let round = 0; round < rounds; round++) {
      for (const clients of CLIENTS) {
        const order = [...paths.slice(round % paths.length), ...paths.slice(0, round % paths.length)];
        for (const path of order) {
          const ticksBefore = path.pid === undefined ? 0 : await cpuTicks(path.pid);
          const started = performance.now();
          const tail = await runWrk(path.port, clients, seconds, script);
          const ended = performance.now();
          const key = `${path.id}@${clients}`;
          add(`${key} rps`, tail.requests / seconds);
          add(`${key} p50`, tail.p50Ms);
          add(`${key} p99`, tail.p99Ms);
          add(`${key} p999`, tail.p999Ms);
          add(`${key} max`, tail.maxMs);
          if (path.gc === undefined || path.pid === undefined) continue;
          // Clock ticks are 10 ms (USER_HZ 100): CPU milliseconds per 1,000 requests.
          add(`${key} cpuPerK`, (await cpuTicks(path.pid) - ticksBefore) * 10 / (tail.requests / 1000));
          add(`${key} rssMib`, await rssKib(path.pid) / 1024);
          const events = path.gc.filter(({ at }) => at >= started && at <= ended).map(({ event }) => event);
          const gc = summarizeGc(events);
          const bound = gcBound(events, { tail, clients });
          add(`${key} gcPerSecond`, gc.count / seconds);
          add(`${key} gcMaxPause`, gc.maxPauseMs);
          add(`${key} gcShare`, gc.totalPauseMs / (ended - started));
          add(`${key} aboveP99`, bound.aboveP99ShareAtMost);
          add(`${key} aboveP999`, bound.aboveP999ShareAtMost);
        }
      }
      print(`round ${round + 1}/${rounds} done`);
    }
    print();
    const m = (key: string) => median(samples.get(key) ?? []);
    const percent = (value: number) => Number.isFinite(value) ? `${(value * 100).toFixed(3)}%` : "-";
    for (const clients of CLIENTS) {
      const direct = m(`direct@${clients} p99`);
      const rows = paths.map((path) => {
        const key = `${path.id}@${clients}`;
        return [
          path.label,
          figure(m(`${key} p50`)),
          figure(m(`${key} p99`)),
          figure(m(`${key} p999`)),
          figure(m(`${key} max`)),
          path.id === "direct" ? "-" : figure(m(`${key} p99`) - direct),
          figure(m(`${key} rps`)),
          path.gc === undefined ? "-" : figure(m(`${key} cpuPerK`)),
          path.gc === undefined ? "-" : figure(m(`${key} rssMib`)),
          path.gc === undefined ? "-" : figure(m(`${key} gcPerSecond`)),
          path.gc === undefined ? "-" : figure(m(`${key} gcMaxPause`)),
          path.gc === undefined ? "-" : percent(m(`${key} gcShare`)),
          path.gc === undefined ? "-" : percent(m(`${key} aboveP99`)),
          path.gc === undefined ? "-" : percent(m(`${key} aboveP999`)),
        ];
      });
      print(`${clients} keep-alive client(s); latencies in ms`);
      print(renderTable([
        "path",
        "p50",
        "p99",
        "p99.9",
        "max",
        "added p99",
        "req/s",
        "CPU ms/1k",
        "RSS MiB",
        "GCs/s",
        "max pause",
        "time in GC",
        "GC>p99 <=",
        "GC>p99.9 <=",
      ], rows));
      print();
    }
    print("GC>p99 <= : the largest share of requests a collection pause can have pushed above the p99");
    print("(pauses at least p99 - p50 long, times the clients in flight, over the requests); below 1%,");
    print("collections cannot be what sets the p99; below 0.1%, not the p99.9 either.");
    print("CPU ms/1k: the proxy's CPU time (every thread, V8's collector threads included) per 1,000");
    print("requests; RSS MiB: the proxy's resident memory after the run.");
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

async function runWrk(port: number, clients: number, seconds: number, script: string) {
  const { code, text } = await capture("wrk", [
    "-t1",
    `-c${clients}`,
    `-d${seconds}s`,
    "-s",
    script,
    `http://${HOST}:${port}/small`,
  ]);
  if (code !== 0) throw new Error(`wrk failed (${code}):\n${text}`);
  return parseWrkTail(text);
}

if (import.meta.main) await main();
