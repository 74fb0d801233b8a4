/**
 * The proxy benchmark's measurements, each run on one path and recorded into a
 * {@linkcode Samples} store under the path's id:
 *   - bulk: `bench_peer.py download` / `upload` of the large file, MiB/s, plus the proxy's CPU
 *     seconds per GiB (utime + stime around the transfer);
 *   - connection rate: `wrk -t1 -c<clients> -H 'Connection: close'` on /small: every request
 *     is a new connection, so requests/s = connections/s (`rate@<clients>`);
 *   - keep-alive latency: `wrk -t1 -c<clients> --latency` on /small, p50/p99 from wrk's
 *     HdrHistogram percentiles (`p50@<clients>`, `p99@<clients>`);
 *   - idle memory: a fresh proxy, a separate client process opening idle connections, VmRSS of
 *     the proxy (and its descendants) before and once the sink holds them all.
 *
 * @module
 */

import { BENCH_HOST } from "./proxy_bench_paths.ts";
import { parseWrk, type WrkResult } from "./bench_report.ts";
import { waitFor } from "../support/wait.ts";
import { capture, cpuTicks, fdLimit, HOST, openFds, rssKib } from "./proxy_bench_io.ts";
import { peerJson, type SinkStats, startHolder } from "./proxy_bench_peers.ts";
import { feasibleConnections, type Samples } from "./proxy_bench_report.ts";
import type { ProxyInstance, Target } from "./proxy_bench_paths.ts";

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
/** Descriptors kept free in the proxy besides those of the idle connections (health, probes, slack). */
export const FD_RESERVE = 64;

/** Where measurements record samples and problems. */
export interface Recorder {
  readonly samples: Samples;
  /** wrk's socket errors and non-2xx counts: the runs they come from are suspect. */
  readonly problems: string[];
}

/** One bulk transfer through `target`; throws when a byte is missing. */
export async function bulk(
  kind: "download" | "upload",
  target: Target,
  options: { recorder: Recorder; bigPath: string; fileBytes: number; clockTicks: number },
): Promise<void> {
  const before = target.pid === undefined ? undefined : await cpuTicks(target.pid);
  const result = kind === "download"
    ? await peerJson(["download", HOST, String(target.httpPort), "/big.bin"])
    : await peerJson(["upload", HOST, String(target.sinkPort), options.bigPath]);
  const after = target.pid === undefined ? undefined : await cpuTicks(target.pid);
  if (result.bytes !== options.fileBytes) {
    throw new Error(
      `${kind} via ${target.info.label} moved ${result.bytes} bytes, expected ${options.fileBytes}`,
    );
  }
  const { samples } = options.recorder;
  samples.add(kind, target.info.id, result.bytes / MIB / result.seconds);
  if (before !== undefined && after !== undefined) {
    const metric = kind === "download" ? "cpuDownload" : "cpuUpload";
    samples.add(metric, target.info.id, (after - before) / options.clockTicks / (result.bytes / GIB));
  }
}

/** Runs wrk with one thread against /small on `port`. */
export async function wrk(
  port: number,
  options: { connections: number; seconds: number; extra: readonly string[] },
): Promise<WrkResult> {
  const { code, text } = await capture("wrk", [
    "-t1",
    `-c${options.connections}`,
    `-d${options.seconds}s`,
    // A name of the routed path's table: every path gets the same request.
    "-H",
    `Host: ${BENCH_HOST}`,
    ...options.extra,
    `http://${HOST}:${port}/small`,
  ]);
  if (code !== 0) throw new Error(`wrk failed (${code}):\n${text}`);
  return parseWrk(text);
}

/** wrk's extra arguments for the connection-rate test: a new connection per request. */
export const CONNECTION_CLOSE = ["-H", "Connection: close"] as const;

/** What a wrk-based measurement needs: where to record, how many clients, how long. */
export interface WrkOptions {
  readonly recorder: Recorder;
  readonly clients: number;
  readonly seconds: number;
}

/** One wrk run through `target` with `options.clients` connections; its problems are noted. */
async function wrkThrough(
  target: Target,
  options: WrkOptions & { what: string; extra: readonly string[] },
): Promise<WrkResult> {
  const result = await wrk(target.httpPort, {
    connections: options.clients,
    seconds: options.seconds,
    extra: options.extra,
  });
  for (const problem of result.problems) {
    options.recorder.problems.push(
      `${options.what} -c${options.clients} via ${target.info.label}: ${problem}`,
    );
  }
  return result;
}

/** New connections per second with `clients` concurrent clients (`rate@<clients>`). */
export async function connectionRate(target: Target, options: WrkOptions): Promise<void> {
  const result = await wrkThrough(target, { ...options, what: "connection rate", extra: CONNECTION_CLOSE });
  options.recorder.samples.add(`rate@${options.clients}`, target.info.id, result.requestsPerSecond);
}

/** Keep-alive p50/p99 with `clients` concurrent connections (`p50@<clients>`, `p99@<clients>`). */
export async function keepAliveLatency(target: Target, options: WrkOptions): Promise<void> {
  const result = await wrkThrough(target, { ...options, what: "keep-alive latency", extra: ["--latency"] });
  if (result.p50Ms === undefined || result.p99Ms === undefined) {
    throw new Error("wrk --latency printed no percentiles");
  }
  options.recorder.samples.add(`p50@${options.clients}`, target.info.id, result.p50Ms);
  options.recorder.samples.add(`p99@${options.clients}`, target.info.id, result.p99Ms);
}

/** Checks that a path reaches nginx and that nginx parsed a PROXY header where one is expected. */
export async function sanityCheck(target: Target): Promise<void> {
  const { code, text } = await capture("curl", [
    "-sS",
    "--max-time",
    "10",
    `http://${HOST}:${target.httpPort}/whoami`,
  ]);
  const expected = target.info.kind === "direct" ? "" : HOST;
  if (code !== 0 || text.trim() !== expected) {
    throw new Error(
      `/whoami via ${target.info.label}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(text)}`,
    );
  }
}

/** What one idle-memory pass measured on one fresh instance. */
export interface IdleReading {
  readonly baseKib: number;
  readonly smallKib: number;
  readonly largeKib: number;
  readonly small: number;
  /** The large count reached: the target, or less when the descriptor limit allows less. */
  readonly large: number;
  /** Descriptors the process opened per idle connection (2 for a relay; 6 for Go's splice pipes). */
  readonly fdsPerConnection: number;
  readonly fdLimit: number;
}

/**
 * Opens `small` then up to `large` idle connections through a fresh `instance` and reads its
 * RSS at rest and at each count. The large count is lowered to what the process's descriptor
 * limit allows at the descriptors per connection seen at the small count.
 */
export async function idleMemory(
  instance: ProxyInstance,
  options: { small: number; large: number; sinkStats: () => Promise<SinkStats> },
): Promise<IdleReading> {
  // Connections of earlier instances (and of the port probes of this one) may still be closing
  // at the sink; counting from a moving baseline would wait for a count that never comes.
  await waitFor("the sink to hold no connection before the idle test", async () => {
    return (await options.sinkStats()).ready === 0;
  }, { timeoutMs: 30_000, intervalMs: 20 });
  const ready0 = 0;
  const limit = await fdLimit(instance.pid);
  const baseFds = await openFds(instance.pid);
  const baseKib = await rssKib(instance.pid);
  const holder = startHolder(instance.sinkPort);
  const hold = async (count: number) => {
    await holder.openTo(count);
    let last: SinkStats | undefined;
    try {
      await waitFor(`the sink to hold ${count} connections through ${instance.info.label}`, async () => {
        last = await options.sinkStats();
        return last.ready >= ready0 + count;
      }, { timeoutMs: 60_000, intervalMs: 50 });
    } catch (error) {
      const fds = await openFds(instance.pid).catch(() => Number.NaN);
      throw new Error(
        `${error}: the sink held ${last?.ready} ready connections (${ready0} before) and had accepted ` +
          `${last?.accepted}; ${instance.info.label} has ${fds} descriptors open`,
      );
    }
    return await rssKib(instance.pid);
  };
  try {
    const smallKib = await hold(options.small);
    const fdsPerConnection = Math.round((await openFds(instance.pid) - baseFds) / options.small);
    const feasible = feasibleConnections(limit, {
      base: baseFds,
      reserve: FD_RESERVE,
      perConnection: fdsPerConnection,
    });
    const large = Math.max(options.small, Math.min(options.large, feasible));
    const largeKib = large > options.small ? await hold(large) : smallKib;
    return { baseKib, smallKib, largeKib, small: options.small, large, fdsPerConnection, fdLimit: limit };
  } finally {
    await holder.close();
    await waitFor("the idle connections to close at the sink", async () => {
      return (await options.sinkStats()).ready <= ready0;
    }, { timeoutMs: 60_000, intervalMs: 50 });
  }
}
