/**
 * Settings of the proxy benchmark: the full run (medians of 5 interleaved rounds, about ten
 * minutes on a 2-core machine) and the `--quick` smoke run (one round, short durations), the
 * client counts of each test, and the command-line parser. Pure.
 *
 * @module
 */

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

/** The settings the arguments ask for, or the usage error naming what was not understood. */
export function parseBenchArgs(args: readonly string[]): Settings | { error: string } {
  const unknown = args.filter((arg) => arg !== "--quick");
  if (unknown.length > 0) {
    return { error: `usage: deno task bench:proxy [--quick]   (unknown: ${unknown.join(" ")})` };
  }
  return args.includes("--quick") ? QUICK : FULL;
}
