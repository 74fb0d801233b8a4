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
