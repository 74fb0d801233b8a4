/**
 * Backend readiness as a small state machine, so the WARN-once / INFO-on-recovery rule is testable.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { DialCause } from "./dial_cause.ts";

/** What the last probe found. */
export type ReadinessState =
  | { readonly kind: "unprobed" }
  | { readonly kind: "ready" }
  | { readonly kind: "failing"; readonly cause: DialCause; readonly error: string };

/** One probe's outcome. */
export type ProbeResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly cause: DialCause; readonly error: string };

/** A log line a transition asks for; `undefined` when nothing changed worth saying. */
export type ReadinessLog =
  | { readonly level: "warn"; readonly cause: DialCause; readonly error: string }
  | { readonly level: "info" }
  | undefined;

/**
 * Folds one probe result into the state: WARN on entering failure, INFO on leaving it. A new
 * cause while still failing is not re-logged, so a flapping resolver cannot flood the log.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { nextReadiness } from "./readiness.ts";
 *
 * const first = nextReadiness({ kind: "unprobed" }, { ok: false, cause: "timeout", error: "…" });
 * assert.deepEqual(nextReadiness(first.state, { ok: true }).log, { level: "info" }); // recovered
 * ```
 */
export function nextReadiness(
  state: ReadinessState,
  result: ProbeResult,
): { readonly state: ReadinessState; readonly log: ReadinessLog } {
  if (result.ok) {
    return { state: { kind: "ready" }, log: state.kind === "failing" ? { level: "info" } : undefined };
  }
  const failing: ReadinessState = { kind: "failing", cause: result.cause, error: result.error };
  if (state.kind === "failing") return { state: failing, log: undefined };
  return { state: failing, log: { level: "warn", cause: result.cause, error: result.error } };
}

/** The `/readyz` text for a failed probe: `backend unreachable (<cause>): <error>`. */
export function unreachableText(cause: DialCause, error: string): string {
  return `backend unreachable (${cause}): ${error}`;
}
