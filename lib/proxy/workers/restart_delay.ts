/**
 * How long to wait before starting a proxy worker again after it died: at once-ish the first
 * time (a one-off bug should cost little capacity), doubling on each death that follows soon
 * after the last start, so a worker that dies on every start cannot spin a core.
 *
 * Pure.
 *
 * @module
 */

/** The first pause, and the longest. */
export const RESTART_FIRST_MS = 100;
export const RESTART_MAX_MS = 30_000;
/** A worker that served this long before dying counts as healthy: its next restart is quick again. */
export const RESTART_STABLE_MS = 30_000;

/**
 * The pause before restart number `failures` of a run of quick deaths (1 for the first):
 * 100 ms, 200 ms, 400 ms … capped at 30 s.
 *
 * @example
 * ```ts
 * import { restartDelay } from "./restart_delay.ts";
 *
 * restartDelay(1); // 100
 * restartDelay(4); // 800
 * restartDelay(20); // 30000
 * ```
 */
export function restartDelay(failures: number): number {
  const exponent = Math.max(0, Math.min(failures - 1, 20));
  return Math.min(RESTART_FIRST_MS * 2 ** exponent, RESTART_MAX_MS);
}

/**
 * The length of the run of quick deaths after one more death: reset to 1 when the worker had
 * served for {@linkcode RESTART_STABLE_MS}, else one more than before.
 *
 * @example
 * ```ts
 * import { nextFailures } from "./restart_delay.ts";
 *
 * nextFailures(3, { upForMs: 50 }); // 4
 * nextFailures(3, { upForMs: 60_000 }); // 1
 * ```
 */
export function nextFailures(failures: number, options: { readonly upForMs: number }): number {
  return options.upForMs >= RESTART_STABLE_MS ? 1 : failures + 1;
}
