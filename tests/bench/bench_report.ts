/**
 * Pure helpers for the proxy benchmark: reading wrk's output and /proc files, medians, and the
 * plain-text tables the README quotes. Kept apart from the orchestration so they carry no I/O.
 *
 * @module
 */

/** What one wrk run reported. */
export interface WrkResult {
  readonly requestsPerSecond: number;
  /** Latency percentiles in milliseconds (present with `--latency`). */
  readonly p50Ms?: number;
  readonly p99Ms?: number;
  /** wrk's "Socket errors" line and non-2xx count, if any: a run with errors is suspect. */
  readonly problems: readonly string[];
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

/**
 * Parses wrk 4.x text output. Throws when the requests-per-second line is missing, because a
 * benchmark that silently records 0 would be worse than one that stops.
 */
export function parseWrk(output: string): WrkResult {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(output);
  if (rps === null || rps[1] === undefined) throw new Error(`wrk printed no Requests/sec line:\n${output}`);
  const percentile = (p: string): number | undefined => {
    const match = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(output);
    if (match === null || match[1] === undefined || match[2] === undefined) return undefined;
    return Number(match[1]) * (UNIT_MS[match[2]] ?? Number.NaN);
  };
  const problems: string[] = [];
  const socketErrors = /^\s+Socket errors:.*$/m.exec(output);
  if (socketErrors !== null) problems.push(socketErrors[0].trim());
  const non2xx = /^\s+Non-2xx or 3xx responses:.*$/m.exec(output);
  if (non2xx !== null) problems.push(non2xx[0].trim());
  const p50 = percentile("50");
  const p99 = percentile("99");
  return {
    requestsPerSecond: Number(rps[1]),
    ...(p50 === undefined ? {} : { p50Ms: p50 }),
    ...(p99 === undefined ? {} : { p99Ms: p99 }),
    problems,
  };
}

/** Resident set size in KiB from the text of `/proc/<pid>/status`. */
export function parseVmRssKib(status: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (match === null || match[1] === undefined) throw new Error("no VmRSS line in /proc/<pid>/status");
  return Number(match[1]);
}

/** utime + stime in clock ticks from the text of `/proc/<pid>/stat` (whole process, all threads). */
export function parseCpuTicks(stat: string): number {
  // The command name (field 2) is in parentheses and may hold spaces: count from the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error(`cannot parse /proc stat: ${stat}`);
  return utime + stime;
}

/** The soft "Max open files" limit from the text of `/proc/<pid>/limits`. */
export function parseOpenFilesLimit(limits: string): number {
  const match = /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)/m.exec(limits);
  if (match === null || match[1] === undefined) {
    throw new Error("no 'Max open files' line in /proc/<pid>/limits");
  }
  return match[1] === "unlimited" ? Number.POSITIVE_INFINITY : Number(match[1]);
}

/** Median of the samples (mean of the middle two for an even count); NaN when empty. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const upper = sorted[middle] ?? Number.NaN;
  return sorted.length % 2 === 1 ? upper : ((sorted[middle - 1] ?? Number.NaN) + upper) / 2;
}

/**
 * Formats a figure for a table: NaN/undefined become "-", and the number of decimals shrinks as
 * the magnitude grows so columns stay narrow without hiding small values.
 */
export function figure(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return "-";
  const magnitude = Math.abs(value);
  const decimals = magnitude >= 1000 ? 0 : magnitude >= 100 ? 1 : magnitude >= 1 ? 2 : 3;
  return value.toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/**
 * A ratio such as "0.53x", or "-" when either side is missing or the divisor is not positive
 * (an added latency can come out negative in a noisy quick run; its ratio means nothing).
 */
export function ratio(value: number | undefined, reference: number | undefined): string {
  if (
    value === undefined || reference === undefined || !Number.isFinite(value) || !Number.isFinite(reference)
  ) {
    return "-";
  }
  if (reference <= 0) return "-";
  return `${(value / reference).toFixed(2)}x`;
}

/**
 * Renders rows as a fixed-width plain-text table: first column left-aligned, the rest right-
 * aligned, a dashed rule under the header. Plain ASCII so it pastes into a README code block.
 */
export function renderTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows];
  const widths = header.map((_, column) => Math.max(...all.map((row) => (row[column] ?? "").length)));
  const line = (row: readonly string[]) =>
    row.map((cell, column) => {
      const width = widths[column] ?? 0;
      return column === 0 ? cell.padEnd(width) : cell.padStart(width);
    }).join("  ").trimEnd();
  const rule = widths.map((width) => "-".repeat(width)).join("  ");
  return [line(header), rule, ...rows.map(line)].join("\n");
}

/** What one dnsperf 2.x run reported. */
export interface DnsperfResult {
  readonly sent: number;
  readonly completed: number;
  readonly lost: number;
  readonly queriesPerSecond: number;
  /** The "Response codes" line's counts, e.g. `{ NOERROR: 1000 }`. */
  readonly responseCodes: Readonly<Record<string, number>>;
  /**
   * With `-v`: every answered query's latency in milliseconds, sorted ascending, then one
   * `Infinity` per query dnsperf reported as timed out (`> T …`), so a percentile that falls on
   * lost queries reads as unbounded rather than silently dropping them.
   */
  readonly latenciesMs: Float64Array;
}

/**
 * Parses dnsperf 2.x output, with or without `-v`. In verbose mode dnsperf prints one line per
 * query as it completes: `> NOERROR name A 0.000131` (rcode, the query line, latency in
 * seconds) or `> T name A` for a timeout. Throws when the statistics block is missing, since a
 * figure of 0 would be worse than a stop.
 */
export function parseDnsperf(output: string): DnsperfResult {
  const count = (label: string): number => {
    const match = new RegExp(`^\\s+${label}:\\s+([\\d.]+)`, "m").exec(output);
    if (match === null || match[1] === undefined) {
      throw new Error(`dnsperf printed no '${label}' line:\n${output.slice(-2000)}`);
    }
    return Number(match[1]);
  };
  const codes: Record<string, number> = {};
  const codeLine = /^\s+Response codes:(.*)$/m.exec(output)?.[1] ?? "";
  for (const match of codeLine.matchAll(/([A-Z]+) (\d+)/g)) codes[match[1] ?? ""] = Number(match[2]);
  const answered: number[] = [];
  let timedOut = 0;
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf("\n", start);
    if (end < 0) end = output.length;
    if (output.startsWith("> ", start)) {
      if (output.startsWith("> T ", start)) timedOut++;
      else answered.push(Number(output.slice(output.lastIndexOf(" ", end) + 1, end)) * 1000);
    }
    start = end + 1;
  }
  const latencies = new Float64Array(answered.length + timedOut);
  latencies.set(answered);
  latencies.subarray(0, answered.length).sort();
  latencies.fill(Number.POSITIVE_INFINITY, answered.length);
  return {
    sent: count("Queries sent"),
    completed: count("Queries completed"),
    lost: count("Queries lost"),
    queriesPerSecond: count("Queries per second"),
    responseCodes: codes,
    latenciesMs: latencies,
  };
}

/** Nearest-rank percentile (`p` in 0..100] of ascending `sorted`; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
}

/**
 * The last "queries forwarded N, queries answered locally M" line dnsmasq logs on SIGUSR1
 * (cumulative since start), or undefined when it has logged none yet.
 */
export function parseDnsmasqCounters(log: string): { forwarded: number; local: number } | undefined {
  const all = [...log.matchAll(/queries forwarded (\d+), queries answered locally (\d+)/g)];
  const last = all.at(-1);
  if (last === undefined) return undefined;
  return { forwarded: Number(last[1]), local: Number(last[2]) };
}

/** A `kB` field of `/proc/<pid>/status` in KiB, such as `VmHWM` (peak RSS); throws when absent. */
export function parseStatusKib(status: string, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, "m").exec(status);
  if (match === null || match[1] === undefined) throw new Error(`no ${field} line in /proc/<pid>/status`);
  return Number(match[1]);
}

/** `items` rotated left by `by` places: the order of the round `by` in an interleaved benchmark. */
export function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}
