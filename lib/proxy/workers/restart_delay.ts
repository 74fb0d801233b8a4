/**
 * The pause before restarting a dead proxy worker: short at first, doubling while deaths follow
 * starts closely, so a worker that dies on every start cannot spin a core.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The first pause, and the longest. */
export const RESTART_FIRST_MS = 100;
export const RESTART_MAX_MS = 30_000;
/** A worker that served this long before dying was healthy: its next restart is quick again. */
export const RESTART_STABLE_MS = 30_000;

/**
 * The pause before restart number `failures` (from 1) of a run of quick deaths.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { restartDelay } from "./restart_delay.ts";
 *
 * assert.equal(restartDelay(4), 800); // ms; capped at 30 s
 * ```
 */
export function restartDelay(failures: number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 20));
  return Math.min(RESTART_FIRST_MS * 2 ** exponent, RESTART_MAX_MS);
}

/** The run of quick deaths after one more; back to 1 after {@linkcode RESTART_STABLE_MS} up. */
export function nextFailures(failures: number, options: { readonly upForMs: number }): number {
  return options.upForMs >= RESTART_STABLE_MS ? 1 : failures + 1;
}
