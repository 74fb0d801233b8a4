/**
 * The standard Prometheus process metrics under their conventional names, so stock dashboards
 * work: CPU seconds, start time, V8 heap and, where `/proc` is readable, open and maximum fds.
 *
 * The fd series are registered only when readable at registration: Deno refuses `/proc` reads
 * unless the process has all permissions, so under `-P=proxy` they are absent, not a fake zero.
 *
 * Pure: every source is injected; {@linkcode systemProcessSources} reads the real process.
 *
 * @module
 */

import process from "node:process";
import type { MetricsRegistry } from "./metrics.ts";

/** Where the figures come from; tests pass fakes. */
export interface ProcessSources {
  /** CPU time of the whole process so far, in microseconds. */
  cpuUsage(): { readonly user: number; readonly system: number };
  heap(): { readonly heapTotal: number; readonly heapUsed: number; readonly external: number };
  /** When the process started, in Unix seconds. */
  readonly startTimeSeconds: number;
  /** The number of entries in a directory; throws when it cannot be read. */
  countEntries(path: string): number;
  /** A file's text; throws when it cannot be read. */
  readText(path: string): string;
}

/** One entry per open file descriptor (Linux). */
export const OPEN_FDS_DIR = "/proc/self/fd";
/** Holds the "Max open files" limit (Linux). */
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

/** Which fd series {@linkcode registerProcessMetrics} could register. */
export interface ProcessMetricsReport {
  readonly openFds: boolean;
  readonly maxFds: boolean;
}

/**
 * The soft "Max open files" limit in `/proc/self/limits` text; `undefined` if absent or unlimited.
 */
export function parseMaxOpenFiles(limits: string): number | undefined {
  const match = /^Max open files\s+(\S+)\s+\S+/m.exec(limits);
  if (match === null || match[1] === undefined) return undefined;
  const value = Number(match[1]);
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}

function probe<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Registers the process metrics, sampled at each scrape; the fd ones only if readable now. */
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

/** The real process: `cpuUsage()` (getrusage), `Deno.memoryUsage()`, time origin, `/proc`. */
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

/** Registers `ouroboros_build_info{version,revision}` at 1, to join on in queries. */
export function registerBuildInfo(registry: MetricsRegistry, options: BuildInfoOptions): void {
  registry.gauge(
    "ouroboros_build_info",
    "Build information (release version and source revision); the value is always 1.",
    ["version", "revision"],
  ).labels({ version: options.version, revision: options.revision }).value = 1;
}
