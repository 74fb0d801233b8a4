/**
 * Settings of the proxy benchmark: the full run (medians of 5 interleaved rounds, about ten
 * minutes on a 2-core machine) and the `--quick` smoke run (one round, short durations), the
 * client counts of each test, and the command-line parser. Pure.
 *
 * @module
 */

import { defaultWorkers } from "../../lib/util/available_cpus.ts";

/** Durations and sizes of one run. */
export interface Settings {
  readonly quick: boolean;
  readonly rounds: number;
  readonly idleRounds: number;
  readonly fileMiB: number;
  readonly rateSeconds: number;
  readonly latencySeconds: number;
  readonly idleSmall: number;
  /** The idle count aimed for; lowered per path to what its descriptor limit allows. */
  readonly idleTarget: number;
  /**
   * `--cpus=N`: every proxy runs in a cgroup with a quota of N CPUs (as a pod with `limits.cpu: N`),
   * the clients and backends outside it; absent, the proxies may use the whole machine.
   */
  readonly cpus?: number;
}

/** The default run. */
export const FULL: Settings = {
  quick: false,
  rounds: 5,
  idleRounds: 3,
  fileMiB: 1024,
  rateSeconds: 2,
  latencySeconds: 3,
  idleSmall: 1000,
  idleTarget: 9900,
};

/** `--quick`: one round, short durations; figures are indicative only. */
export const QUICK: Settings = {
  quick: true,
  rounds: 1,
  idleRounds: 1,
  fileMiB: 64,
  rateSeconds: 1,
  latencySeconds: 1,
  idleSmall: 200,
  idleTarget: 1000,
};

/** Concurrent clients of the connection-rate test (a new connection per request). */
export const RATE_CLIENTS: readonly number[] = [1, 4, 16];
/** Concurrent keep-alive clients of the latency test. */
export const LATENCY_CLIENTS: readonly number[] = [1, 8];

/**
 * The worker counts ours runs at on `cpus` CPUs: one, the `--workers` default, and N = the CPUs but
 * at least 2 (at one CPU the default's choice is still judged against a second worker).
 */
export function workerCounts(cpus: number): number[] {
  return [...new Set([1, defaultWorkers(cpus), moreWorkers(cpus)])].sort((a, b) => a - b);
}

/** The most workers the benchmark runs: the CPUs, at least 2. */
export function moreWorkers(cpus: number): number {
  return Math.max(2, cpus);
}

const USAGE = "usage: deno task bench:proxy [--quick] [--cpus=N]";

/** The settings the arguments ask for, or the usage error naming what was not understood. */
export function parseBenchArgs(args: readonly string[]): Settings | { error: string } {
  let settings: Settings = FULL;
  let cpus: number | undefined;
  const unknown: string[] = [];
  for (const arg of args) {
    const quota = /^--cpus=(.*)$/.exec(arg);
    if (arg === "--quick") settings = QUICK;
    else if (quota === null) unknown.push(arg);
    else if (/^[1-9][0-9]{0,3}$/.test(quota[1] ?? "")) cpus = Number(quota[1]);
    else return { error: `${USAGE}   (--cpus takes a whole number of CPUs from 1, got "${quota[1]}")` };
  }
  if (unknown.length > 0) return { error: `${USAGE}   (unknown: ${unknown.join(" ")})` };
  return cpus === undefined ? settings : { ...settings, cpus };
}
