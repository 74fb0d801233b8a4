/**
 * When the controller counts as ready: every source and prerequisite kind (the proxy Service
 * in external-dns mode) has completed its first list, and a reconcile has succeeded since start
 * (the sink found the target matching, or wrote it, or left only some hostnames alone), or this
 * replica has stood by while another leads (leader election: a warm standby is healthy). These
 * only ever become true, so readiness latches against what a retry or an operator fixes: a later
 * refused reconcile, or a failure that recovers within the threshold (3 attempts and 30 s, see
 * `lib/daemon/retry_pacing.ts`), is reported by logs and metrics only. The one exception is a
 * persistent failure: while sink calls have kept failing past that threshold the controller is
 * not ready (it is not doing its job), and it is ready again with the first call that does not fail.
 *
 * The target watch (the ConfigMap) is not a condition: it only speeds up drift repair.
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
  /** The reflectors, with their kind and role. */
  readonly watched: readonly Pick<Watched, "kind" | "role" | "status">[];
  /** The loop's status. */
  readonly loop: Pick<LoopStatus, "succeeded" | "stoodBy" | "last" | "failing">;
  /** Clock time now, to say for how long a persistent failure has lasted. */
  readonly now?: number;
  /** True once shutdown has begun. */
  readonly stopping: boolean;
}

/**
 * Decides readiness from the reflectors, the loop and whether shutdown has begun.
 *
 * @example
 * ```ts
 * import type { ReconcileLoop } from "./reconcile_loop.ts";
 * import { controllerReadiness } from "./readiness.ts";
 * import type { ControllerSources } from "./sources.ts";
 *
 * declare const sources: ControllerSources;
 * declare const loop: ReconcileLoop;
 * // Before the Ingress cache has listed:
 * controllerReadiness({ watched: sources.watched(), loop: loop.status(), stopping: false });
 * // { ready: false, reason: "waiting for the first list of: Ingress (listing)" }
 * ```
 */
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
