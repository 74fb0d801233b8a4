/**
 * What the reconcile loop tells the rest of the controller: its status (for readiness) and each
 * reconcile's result (for the metrics), a sink outcome without what only logging needs.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { RefusalScope, SinkOutcome } from "./modes/sink.ts";
import type { LoopState } from "../daemon/loop_step.ts";
import type { Trigger } from "./trigger.ts";
import type { FailingRun } from "../daemon/retry_pacing.ts";

/** A snapshot for readiness, metrics and tests. */
export interface LoopStatus {
  readonly state: LoopState<Trigger>;
  /** The last sink call's result; absent before the first call. */
  readonly last?: ReconcileResult;
  /** True once a sink call succeeded (a refusal of `some-hosts` counts); never goes back. */
  readonly succeeded: boolean;
  /** True once this replica stood by while another led (a ready standby); never goes back. */
  readonly stoodBy: boolean;
  /** The current run of failed sink calls; absent when the last call did not fail. */
  readonly failing?: FailingRun;
  /** Hostnames in the desired set at the last recompute. */
  readonly desiredHosts: number;
  /** Refused hostname values at the last recompute. */
  readonly rejectedHosts: number;
}

/** Hears about every recompute and sink call (the metrics implement it). */
export interface ReconcileObserver {
  /** A recompute finished: the set's size, the values refused, the wildcards left out. */
  desiredSet(hosts: number, rejected: number, skippedWildcards: number): void;
  /** A recompute found nothing for the sink to do. */
  skipped(): void;
  /** A sink call finished. */
  reconciled(result: ReconcileResult, durationMs: number): void;
}

/** One reconcile's result. */
export type ReconcileResult =
  | { readonly kind: "unchanged"; readonly hosts: number }
  | { readonly kind: "written"; readonly hosts: number; readonly added: number; readonly removed: number }
  | { readonly kind: "previewed"; readonly hosts: number; readonly added: number; readonly removed: number }
  | {
    readonly kind: "refused";
    readonly problem: string;
    readonly message: string;
    readonly scope: RefusalScope;
  }
  | { readonly kind: "error"; readonly message: string };

/** The result a sink outcome counts as (`failed` is an `error`). */
export function reconcileResult(outcome: SinkOutcome): ReconcileResult {
  switch (outcome.kind) {
    case "unchanged":
      return { kind: "unchanged", hosts: outcome.hosts };
    case "written":
    case "previewed":
      return { kind: outcome.kind, hosts: outcome.hosts, added: outcome.added, removed: outcome.removed };
    case "refused":
      return { kind: "refused", problem: outcome.problem, message: outcome.message, scope: outcome.scope };
    case "failed":
      return { kind: "error", message: outcome.message };
  }
}
