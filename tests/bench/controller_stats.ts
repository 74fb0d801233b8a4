/**
 * Pure helpers for `deno task bench:controller`: percentiles, reading the hostnames of our
 * Corefile block, and the goal lines. No I/O, so the figures' arithmetic is easy to check.
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
}

/** `met    `, `NOT met` or `unknown` followed by the goal and the figure, aligned. */
export function goalLine(goal: Goal): string {
  const verdict = goal.met === undefined ? "unknown" : goal.met ? "met    " : "NOT met";
  return `  ${verdict}  ${goal.goal.padEnd(44)} measured: ${goal.measured}`;
}

/** Milliseconds for a table: integers as is, NaN as "-". */
export function ms(value: number): string {
  return Number.isFinite(value) ? `${Math.round(value)} ms` : "-";
}

/** KiB as MiB with one decimal, NaN as "-". */
export function mib(kib: number): string {
  return Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : "-";
}
