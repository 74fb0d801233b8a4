/**
 * When the controller counts as ready: every source and prerequisite kind has listed, and a
 * reconcile has succeeded or this replica has stood by while another leads. Both latch, so a later
 * refusal or a failure that recovers quickly shows only in logs and metrics; the one exception is
 * a persistent failure (`lib/daemon/retry_pacing.ts`), not ready until a call stops failing. The
 * target watch is no condition: it only speeds up drift repair.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { LoopStatus } from "./loop_status.ts";
import type { Watched } from "./sources.ts";

/** `/readyz`'s answer: ready, or why not in one line. */
export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** What {@linkcode controllerReadiness} decides from. */
export interface ReadinessInput {
  readonly watched: readonly Pick<Watched, "kind" | "role" | "status">[];
  readonly loop: Pick<LoopStatus, "succeeded" | "stoodBy" | "last" | "failing">;
  /** Clock time now, to say for how long a persistent failure has lasted. */
  readonly now?: number;
  readonly stopping: boolean;
}

/** Decides readiness from the reflectors, the loop and whether shutdown has begun. */
export function controllerReadiness(input: ReadinessInput): Readiness {
  const { watched, loop } = input;
  if (input.stopping) return { ready: false, reason: "shutting down" };
  const unsynced = watched
    .filter((entry) => entry.role !== "target")
    .map((entry) => ({ kind: entry.kind, status: entry.status() }))
    .filter(({ status }) => !status.synced)
    .map(({ kind, status }) =>
      `${kind} (${status.condition === "healthy" ? status.phase : status.condition})`
    );
  if (unsynced.length > 0) {
    return { ready: false, reason: `waiting for the first list of: ${unsynced.join(", ")}` };
  }
  const failing = loop.failing;
  if (failing?.persistent === true) {
    const seconds = input.now === undefined ? "" : ` for ${Math.round((input.now - failing.since) / 1000)} s`;
    const error = loop.last?.kind === "error" ? `: ${oneLine(loop.last.message)}` : "";
    return {
      ready: false,
      reason: `reconciles have kept failing${seconds} (${failing.attempts} attempts)${error}`,
    };
  }
  if (loop.succeeded || loop.stoodBy) return { ready: true };
  const last = loop.last;
  if (last === undefined) return { ready: false, reason: "no reconcile has finished yet" };
  switch (last.kind) {
    case "refused":
      return {
        ready: false,
        reason: `the last reconcile was refused (${last.problem}): ${oneLine(last.message)}`,
      };
    case "error":
      return { ready: false, reason: `the last reconcile failed: ${oneLine(last.message)}` };
    default:
      return { ready: true };
  }
}

/** Folds line breaks so the reason stays one line. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ");
}
