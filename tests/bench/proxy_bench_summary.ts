/**
 * What the proxy benchmark prints around its rounds: the environment header and the final
 * report (per-round samples, figures per path, ratios to HAProxy at threads = CPUs and to
 * direct, and the goals as PASS/MISS lines). The arithmetic lives in `proxy_bench_report.ts`.
 *
 * @module
 */

import { figure, parseOpenFilesLimit, ratio, renderTable } from "./bench_report.ts";
import { capture, print, readProc } from "./proxy_bench_io.ts";
import type { Recorder } from "./proxy_bench_measure.ts";
import {
  addedLatency,
  figureRows,
  goalLine,
  judgeGoals,
  judgeWorkersDefault,
  medianRow,
  type MetricRow,
  type PathInfo,
  ratioRows,
  routingCost,
} from "./proxy_bench_report.ts";
import {
  LATENCY_CLIENTS,
  moreWorkers,
  RATE_CLIENTS,
  type Settings,
  workerCounts,
} from "./proxy_bench_settings.ts";
import { defaultWorkers } from "../../lib/util/available_cpus.ts";

/**
 * Bulk throughput of ours in the run of 2026-12-02 recorded in docs/performance.md (medians of 5 rounds, 1 GiB):
 * the floor of the "bulk not below today's" goal.
 */
export const BULK_BASELINE = { download: 1304, upload: 1182, date: "2026-12-02" } as const;

/** The lines describing the machine and the tools, printed first. */
export async function environment(cpus: number): Promise<string[]> {
  const cpuinfo = await readProc("/proc/cpuinfo");
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown";
  const first = (text: string) => text.split("\n").find((line) => line.trim() !== "")?.trim() ?? "unknown";
  const limits = parseOpenFilesLimit(await readProc("/proc/self/limits"));
  return [
    `date:        ${new Date().toISOString()}`,
    `uname -m:    ${first((await capture("uname", ["-m"])).text)}   kernel ${Deno.osRelease()}`,
    `CPU:         ${model}, ${cpus} CPUs for the proxies: workers ${
      workerCounts(cpus).join(", ")
    }, HAProxy threads = ${cpus}`,
    `Deno:        ${Deno.version.deno} (V8 ${Deno.version.v8})`,
    `HAProxy:     ${first((await capture("haproxy", ["-v"])).text)}`,
    `nginx:       ${first((await capture("nginx", ["-v"])).text)}`,
    `wrk:         ${first((await capture("wrk", ["-v"])).text)}`,
    `python3:     ${
      first((await capture("python3", ["--version"])).text)
    } (bench_peer.py: sink, bulk and idle clients)`,
    `fd limit:    ${limits} (soft) for the harness; proxies and peers start with the soft limit raised to the hard one`,
    `loadavg:     ${
      (await readProc("/proc/loadavg")).trim()
    } (at start; other work on the machine skews figures)`,
  ];
}

/** Everything the final report needs. */
export interface ReportInputs {
  readonly settings: Settings;
  readonly paths: readonly PathInfo[];
  readonly cpus: number;
  readonly recorder: Recorder;
  /** Per path: the large idle count reached and why (descriptors per connection, limit). */
  readonly idleCounts: ReadonlyMap<string, string>;
  /** Whether the proxy offered `--workers`. */
  readonly workers: boolean;
}

/** Prints the samples, the tables and the goals. */
export function report(inputs: ReportInputs): void {
  const { settings, paths, cpus, recorder } = inputs;
  const { samples } = recorder;
  const small = settings.idleSmall.toLocaleString("en-US");
  const large = settings.idleTarget.toLocaleString("en-US");
  const rows: MetricRow[] = [
    medianRow("download, MiB/s (higher is better)", "download", { samples }),
    medianRow("upload, MiB/s", "upload", { samples }),
    ...RATE_CLIENTS.map((c) => medianRow(`new connections/s, ${c} client(s)`, `rate@${c}`, { samples })),
    ...LATENCY_CLIENTS.flatMap((c) => [
      medianRow(`keep-alive p50, ${c} client(s), ms`, `p50@${c}`, { samples }),
      medianRow(`keep-alive p99, ${c} client(s), ms`, `p99@${c}`, { samples }),
    ]),
    ...LATENCY_CLIENTS.map((c) => ({
      label: `added p99 vs direct, ${c} client(s), ms`,
      value: addedLatency(samples, `p99@${c}`, "direct"),
    })),
    medianRow(`RSS/idle conn at ${small}, KiB`, "idleSmall", { samples, direct: false }),
    medianRow(`RSS/idle conn at ${large}*, KiB`, "idleLarge", { samples, direct: false }),
    medianRow(`marginal RSS/idle conn, KiB`, "idleMarginal", { samples, direct: false }),
    medianRow("CPU s/GiB download", "cpuDownload", { samples, direct: false }),
    medianRow("CPU s/GiB upload", "cpuUpload", { samples, direct: false }),
  ];

  print("Per-round samples (in run order)");
  const sampleMetrics = [
    "download",
    "upload",
    ...RATE_CLIENTS.map((c) => `rate@${c}`),
    ...LATENCY_CLIENTS.map((c) => `p99@${c}`),
    "idleSmall",
    "idleLarge",
  ];
  for (const metric of sampleMetrics) {
    const parts = paths.filter((path) => samples.values(metric, path.id).length > 0)
      .map((path) => `${path.label} ${samples.values(metric, path.id).map(figure).join(" ")}`);
    print(`  ${metric.padEnd(11)} ${parts.join(" | ")}`);
  }
  print();

  const haproxy = paths.find((path) => path.kind === "haproxy" && path.threads === cpus);
  const direct = paths.find((path) => path.kind === "direct");
  const ours = paths.find((path) => path.kind === "ours" && path.threads === cpus) ??
    paths.find((path) => path.kind === "ours");
  print(
    `RESULTS (medians of ${settings.rounds} interleaved rounds; idle memory: ${settings.idleRounds}; ` +
      (settings.cpus === undefined
        ? `${cpus} cores shared by clients, backend and proxies)`
        : `proxies held to ${cpus} CPU(s) by a cgroup quota; clients and backend outside it)`),
  );
  print(renderTable(["metric", ...paths.map((path) => path.label)], figureRows(rows, paths)));
  const counts = [...inputs.idleCounts].map(([id, text]) =>
    `${paths.find((p) => p.id === id)?.label}: ${text}`
  );
  print(`* idle count reached per path: ${counts.join("; ")}`);
  if (!inputs.workers) print("  (workers are not available in this proxy: ours ran as one configuration)");
  for (const [reference, title] of [[haproxy, `HAProxy, threads = ${cpus}`], [direct, "direct"]] as const) {
    if (reference === undefined) continue;
    print();
    print(`Ratios to ${title} (path / ${reference.label}; '-' = not applicable)`);
    const others = paths.filter((path) => path.id !== reference.id);
    const ratios = ratioRows(rows, paths, reference).filter((row) =>
      row.slice(1).some((cell) => cell !== "-")
    );
    print(renderTable(["metric", ...others.map((path) => path.label)], ratios));
  }
  const routing = routingCost(samples, [
    ...RATE_CLIENTS.map((c) => [`rate@${c}`, `new connections/s, ${c} client(s)`] as const),
    ["download", "download, MiB/s"],
    ["upload", "upload, MiB/s"],
    ...LATENCY_CLIENTS.map((c) => [`p99@${c}`, `keep-alive p99, ${c} client(s), ms`] as const),
  ]);
  if (routing.length > 0) {
    print();
    print("Routing (--routes-file, 200 routes) against the same proxy without it, both at one worker");
    print(renderTable(
      ["metric", "without", "routed", "routed/without"],
      routing.map((row) => [row.label, figure(row.unrouted), figure(row.routed), row.ratio.toFixed(2)]),
    ));
    const rates = routing.filter((row) => row.label.startsWith("new connections"));
    const worst = Math.min(...rates.map((row) => row.ratio));
    print(
      `  goal: connection rate within 10% of routing off: ${worst >= 0.9 ? "met" : "missed"} (worst ${
        worst.toFixed(2)
      })`,
    );
  }
  if (recorder.problems.length > 0) {
    print();
    print("wrk reported errors (figures for these runs are suspect):");
    for (const problem of recorder.problems) print(`  ${problem}`);
  }
  if (ours === undefined || haproxy === undefined || direct === undefined) return;
  print();
  print(`Goals (${ours.label} against ${haproxy.label}; bulk against docs/performance.md)`);
  const goals = judgeGoals({
    samples,
    ours,
    haproxy,
    direct,
    rateClients: RATE_CLIENTS,
    latencyClients: LATENCY_CLIENTS,
    idle: [["idleSmall", small], ["idleLarge", `${large}*`]],
    bulkBaseline: BULK_BASELINE,
  });
  for (const goal of goals) print(`  ${goalLine(goal)}`);
  if (!inputs.workers) return;
  print();
  print(
    `Goals (the --workers default against --workers=1, ${cpus} CPU(s)${
      settings.cpus === undefined ? "" : " by quota"
    })`,
  );
  const workerGoals = judgeWorkersDefault({
    samples,
    cpus,
    defaultWorkers: defaultWorkers(cpus),
    rateClients: RATE_CLIENTS,
    idle: [["idleSmall", small], ["idleLarge", `${large}*`]],
  });
  for (const goal of workerGoals) print(`  ${goalLine(goal)}`);
  const more = moreWorkers(cpus);
  const against = (metric: string) =>
    ratio(samples.median(metric, `ours-${more}`), samples.median(metric, "ours-1"));
  print(
    `  for the choice, --workers=${more} / --workers=1: new connections/s ${
      RATE_CLIENTS.map((c) => `${against(`rate@${c}`)} at ${c}`).join(", ")
    }; RSS/idle conn ${against("idleSmall")} at ${small}, ${against("idleLarge")} at ${large}; download ${
      against("download")
    }`,
  );
}
