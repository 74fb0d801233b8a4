/**
 * The standard process metrics every Prometheus client library exports, under their conventional
 * names, so stock dashboards and alerts work: CPU seconds, start time, V8 heap and, where the
 * runtime lets us read `/proc`, open and maximum file descriptors (the ones that matter to a
 * proxy that handles EMFILE). Resident memory stays with each subcommand's metrics (its `rss`
 * option), where it always was.
 *
 * Decision: the fd series are registered only when their source can be read at registration.
 * Deno refuses every read under `/proc` (and `/sys`) unless the process runs with all
 * permissions ("Requires all access to /proc/self/fd"), whatever `--allow-read` lists, so under
 * the subcommands' permission sets (`-P=proxy`, …) the two series are absent rather than a
 * made-up zero. Counting Deno's own resources is not the same thing (it misses the runtime's
 * files and sockets), so it is not offered as a substitute.
 *
 * Pure: every source is injected ({@linkcode ProcessSources}); {@linkcode systemProcessSources}
 * is the edge that reads the real process.
 *
 * @module
 */

import process from "node:process";
import type { MetricsRegistry } from "./metrics.ts";

/** Where the figures come from; tests pass fakes. */
export interface ProcessSources {
  /** CPU time used by the whole process so far, in microseconds (user and system). */
  cpuUsage(): { readonly user: number; readonly system: number };
  /** V8's heap figures for the calling isolate. */
  heap(): { readonly heapTotal: number; readonly heapUsed: number; readonly external: number };
  /** When the process started, in Unix seconds. */
  readonly startTimeSeconds: number;
  /** The number of entries in a directory; throws when it cannot be read. */
  countEntries(path: string): number;
  /** A file's text; throws when it cannot be read. */
  readText(path: string): string;
}

/** The directory whose entries are the open file descriptors (Linux). */
export const OPEN_FDS_DIR = "/proc/self/fd";
/** The file whose "Max open files" line holds the descriptor limit (Linux). */
export const LIMITS_FILE = "/proc/self/limits";

/** Names of the families this module registers (the fd ones only where readable). */
export const PROCESS_METRIC_NAMES: readonly string[] = [
  "process_cpu_seconds_total",
  "process_start_time_seconds",
  "process_open_fds",
  "process_max_fds",
  "deno_heap_size_total_bytes",
  "deno_heap_size_used_bytes",
  "deno_external_memory_bytes",
];

/** What {@linkcode registerProcessMetrics} could register. */
export interface ProcessMetricsReport {
  /** `process_open_fds` is exported. */
  readonly openFds: boolean;
  /** `process_max_fds` is exported. */
  readonly maxFds: boolean;
}

/**
 * The soft "Max open files" limit from `/proc/self/limits` text; `undefined` when the line is
 * missing or the limit is `unlimited` (no finite number to report).
 *
 * @example
 * ```ts
 * import { parseMaxOpenFiles } from "./process_metrics.ts";
 *
 * parseMaxOpenFiles("Max open files            1024                 524288               files\n"); // 1024
 * ```
 */
export function parseMaxOpenFiles(limits: string): number | undefined {
  const match = /^Max open files\s+(\S+)\s+\S+/m.exec(limits);
  if (match === null || match[1] === undefined) return undefined;
  const value = Number(match[1]);
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** Runs `read` once; `undefined` when it throws (not readable here). */
function probe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * Registers the process metrics in `registry`, sampled at each scrape. The fd series are added
 * only when their source answers now (see the module's decision); the report says which.
 *
 * @example
 * ```ts
 * import { MetricsRegistry } from "./metrics.ts";
 * import { registerProcessMetrics } from "./process_metrics.ts";
 *
 * const registry = new MetricsRegistry();
 * const report = registerProcessMetrics(registry, {
 *   cpuUsage: () => ({ user: 1_500_000, system: 500_000 }),
 *   heap: () => ({ heapTotal: 8e6, heapUsed: 5e6, external: 1e6 }),
 *   startTimeSeconds: 1_700_000_000,
 *   countEntries: () => 12,
 *   readText: () => "Max open files 1024 4096 files\n",
 * });
 * report; // { openFds: true, maxFds: true }
 * registry.render().includes("process_cpu_seconds_total 2\n"); // true
 * ```
 */
export function registerProcessMetrics(
  registry: MetricsRegistry,
  sources: ProcessSources,
): ProcessMetricsReport {
  registry.sampledCounter(
    "process_cpu_seconds_total",
    "Total user and system CPU time spent in seconds (the whole process, every thread).",
    () => {
      const usage = sources.cpuUsage();
      return (usage.user + usage.system) / 1e6;
    },
  );
  registry.gauge("process_start_time_seconds", "Start time of the process since unix epoch in seconds.")
    .labels({}).value = sources.startTimeSeconds;
  const openFds = probe(() => sources.countEntries(OPEN_FDS_DIR)) !== undefined;
  if (openFds) {
    registry.sampledGauge(
      "process_open_fds",
      "Number of open file descriptors.",
      () => probe(() => sources.countEntries(OPEN_FDS_DIR)) ?? NaN,
    );
  }
  const limit = probe(() => parseMaxOpenFiles(sources.readText(LIMITS_FILE)));
  if (limit !== undefined) {
    registry.sampledGauge(
      "process_max_fds",
      "Maximum number of open file descriptors (the soft limit).",
      () => probe(() => parseMaxOpenFiles(sources.readText(LIMITS_FILE))) ?? NaN,
    );
  }
  registry.sampledGauge(
    "deno_heap_size_total_bytes",
    "V8 heap size of the main isolate in bytes (proxy workers' isolates are not included).",
    () => sources.heap().heapTotal,
  );
  registry.sampledGauge(
    "deno_heap_size_used_bytes",
    "V8 heap in use by the main isolate in bytes.",
    () => sources.heap().heapUsed,
  );
  registry.sampledGauge(
    "deno_external_memory_bytes",
    "Memory of objects outside the V8 heap but owned by it (array buffers) in bytes.",
    () => sources.heap().external,
  );
  return { openFds, maxFds: limit !== undefined };
}

/**
 * The real process: `node:process`'s `cpuUsage()` (getrusage, whole process),
 * `Deno.memoryUsage()`, the time origin of the main isolate as the start time, and `/proc`
 * reads (refused under a permission set, see the module's decision).
 */
export function systemProcessSources(): ProcessSources {
  return {
    cpuUsage: () => process.cpuUsage(),
    heap: () => Deno.memoryUsage(),
    startTimeSeconds: Math.floor(performance.timeOrigin / 1000),
    countEntries: (path) => {
      let count = 0;
      for (const _ of Deno.readDirSync(path)) count += 1;
      return count;
    },
    readText: (path) => Deno.readTextFileSync(path),
  };
}

/** Options for {@linkcode registerBuildInfo}. */
export interface BuildInfoOptions {
  readonly version: string;
  /** The source revision the binary was built from; `unknown` when run from source. */
  readonly revision: string;
}

/**
 * Registers `ouroboros_build_info{version,revision}` at 1, the usual way to export what is
 * running (join on it in queries; alert when replicas run different revisions).
 *
 * @example
 * ```ts
 * import { MetricsRegistry } from "./metrics.ts";
 * import { registerBuildInfo } from "./process_metrics.ts";
 *
 * const registry = new MetricsRegistry();
 * registerBuildInfo(registry, { version: "0.1.0", revision: "unknown" });
 * registry.render().includes('ouroboros_build_info{version="0.1.0",revision="unknown"} 1'); // true
 * ```
 */
export function registerBuildInfo(registry: MetricsRegistry, options: BuildInfoOptions): void {
  registry.gauge(
    "ouroboros_build_info",
    "Build information (release version and source revision); the value is always 1.",
    ["version", "revision"],
  ).labels({ version: options.version, revision: options.revision }).value = 1;
}
