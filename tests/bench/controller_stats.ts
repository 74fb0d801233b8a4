/**
 * Pure helpers for `deno task bench:controller`: percentiles, reading the hostnames of our
 * Corefile block, the goals each cluster size is held to, and the goal lines. No I/O, so the
 * figures' arithmetic is easy to check (`controller_stats_test.ts`).
 *
 * @module
 */

const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
const END = "# === END ouroboros ===";

/**
 * The `p`th percentile (0 < p ≤ 100) by the nearest-rank method: the smallest sample with at
 * least p% of the samples at or below it. NaN when there are no samples.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

/** The hostnames of the `rewrite name` lines between our markers, in stored order; `[]` without a block. */
export function blockHostsOf(corefile: string): string[] {
  const begin = corefile.indexOf(BEGIN);
  const end = corefile.indexOf(END);
  if (begin < 0 || end < begin) return [];
  const hosts: string[] = [];
  for (const line of corefile.slice(begin + BEGIN.length, end).split("\n")) {
    const words = line.trim().split(/\s+/);
    if (words[0] === "rewrite" && words[1] === "name" && words[2] !== undefined) hosts.push(words[2]);
  }
  return hosts;
}

/** One goal and its verdict. */
export interface Goal {
  readonly goal: string;
  /** Undefined when the figure could not be measured. */
  readonly met: boolean | undefined;
  readonly measured: string;
  /** What bounds the figure, measured: printed under a MISS. */
  readonly bound?: string;
}

/**
 * `PASS`, `MISS` or `????` (not measured) followed by the goal and the figure; a MISS is
 * followed by what bounds it, indented.
 */
export function goalLine(goal: Goal): string {
  const verdict = goal.met === undefined ? "????" : goal.met ? "PASS" : "MISS";
  const line = `  ${verdict}  ${goal.goal.padEnd(52)} measured: ${goal.measured}`;
  return goal.met === false && goal.bound !== undefined ? `${line}\n          bound: ${goal.bound}` : line;
}

/** The limits a run at one cluster size is held to; absent where no issue sets one. */
export interface SizeGoals {
  readonly peakRssMib?: number;
  readonly firstWriteMs?: number;
  readonly changeP99Ms?: number;
  readonly churnCpuPercent?: number;
}

/**
 * The goals for `ingresses` Ingresses: issue 32's at 3,000 (peak RSS within 80 MiB, first
 * correct write within 0.5 s) and at 10,000 (peak RSS within 150 MiB), with issue 19's at
 * 10,000 (first write within 0.5 s, change p99 within 200 ms, CPU under status churn within
 * 24% of a core). Other sizes have none (zero writes under churn holds at any size).
 */
export function goalsFor(ingresses: number): SizeGoals {
  if (ingresses === 3_000) return { peakRssMib: 80, firstWriteMs: 500 };
  if (ingresses === 10_000) {
    return { peakRssMib: 150, firstWriteMs: 500, changeP99Ms: 200, churnCpuPercent: 24 };
  }
  return {};
}

/** Milliseconds for a table: integers as is, NaN as "-". */
export function ms(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value)} ms` : "-";
}

/** KiB as MiB with one decimal, NaN as "-". */
export function mib(kib: number): string {
  return Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : "-";
}
