/**
 * Go-syntax durations (`5s`, `1m30s`, `250ms`, `1.5h`), as the original's flags and env vars
 * take them, so an operator's existing values keep working.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** Milliseconds per Go duration unit. `µs` and `μs` are the two spellings Go accepts for micro. */
const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  "µs": 1e-3,
  "μs": 1e-3,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const TERM = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** The longest duration Go can hold (2^63 − 1 ns), in milliseconds; longer is refused. */
export const MAX_DURATION_MS = 9_223_372_036_854.775;

/**
 * Parses a Go duration (what `time.ParseDuration` accepts) into milliseconds, else `undefined`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parseDuration } from "./duration.ts";
 *
 * assert.equal(parseDuration("1m30s"), 90000);
 * assert.equal(parseDuration("250ms"), 250);
 * assert.equal(parseDuration("5"), undefined); // a unit is required
 * ```
 */
export function parseDuration(text: string): number | undefined {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    sign = rest.startsWith("-") ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  TERM.lastIndex = 0;
  while (TERM.lastIndex < rest.length) {
    const start = TERM.lastIndex;
    const match = TERM.exec(rest);
    if (match === null || match.index !== start) return undefined;
    const [, amount, unit] = match;
    total += Number(amount) * (UNIT_MS[unit ?? ""] ?? Number.NaN);
  }
  if (!Number.isFinite(total) || total > MAX_DURATION_MS) return undefined;
  return total === 0 ? 0 : sign * total;
}

/** Formats milliseconds as Go prints a `time.Duration` (`1m30s`, `250ms`, `0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1_000) {
    if (rest >= 1) return `${sign}${trimNumber(rest)}ms`;
    if (rest >= 1e-3) return `${sign}${trimNumber(rest * 1e3)}µs`;
    return `${sign}${trimNumber(rest * 1e6)}ns`;
  }
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  // Nine decimals keep nanoseconds, as Go prints them (`1.000000001s`).
  const seconds = trimNumber(rest / 1_000, 9);
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Rounds away floating-point noise (`0.30000000000000004`) and drops trailing zeros. */
function trimNumber(value: number, decimals = 6): string {
  return String(Number(value.toFixed(decimals)));
}

/** Milliseconds as seconds, to the millisecond: the one unit every logged duration uses. */
export function toSeconds(ms: number): number {
  return Math.round(ms) / 1_000;
}
