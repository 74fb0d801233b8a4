/**
 * What a `ReconcileLoop` is built with, and the defaults of what may be left out.
 *
 * Pure: types and constants.
 *
 * @module
 */

import type { DesiredSetOptions } from "../hostnames/desired_set.ts";
import type { StoreView } from "../reflector/store.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Sink } from "./modes/sink.ts";
import type { Clock } from "../util/clock.ts";
import type { FailureStreakOptions, RetryPacingOptions } from "../daemon/retry_pacing.ts";
import type { Log } from "../util/logging.ts";
import type { Leadership } from "../daemon/control_loop.ts";
import type { LoopState } from "../daemon/loop_step.ts";
import type { Trigger } from "./trigger.ts";
import type { ReconcileObserver } from "./loop_status.ts";
import type { LoopSources, Prerequisite } from "./loop_caches.ts";

/** What the loop needs; all but `sources`, `sink`, `desired`, `resyncMs` and `log` are optional. */
export interface ReconcileLoopOptions {
  readonly sources: LoopSources;
  /** Caches of the sink's target: a change calls the sink at once; never waited for. */
  readonly targets?: readonly StoreView<KubeObject>[];
  /** Caches the sink reads besides the hostnames: waited for first; a change calls the sink. */
  readonly prerequisites?: readonly Prerequisite[];
  readonly sink: Sink;
  readonly desired: DesiredSetOptions;
  /** `--resync`: period of the sink call that repairs drift; 0 turns it off. */
  readonly resyncMs: number;
  readonly log: Log;
  /** How long changes are collected before a reconcile. @default {100} */
  readonly debounceMs?: number;
  /** How long a sink call in flight may go on after the signal aborts. @default {10000} */
  readonly shutdownGraceMs?: number;
  /** Retry delays after a failed call. @default {RETRY_PACING: 1–1.5 s doubling to 2 min} */
  readonly backoff?: RetryPacingOptions;
  /** When failures turn from WARN to ERROR and fail readiness. @default {3 attempts and 30 s} */
  readonly persistence?: FailureStreakOptions;
  /** @default {systemClock} */
  readonly clock?: Clock;
  /** Numbers in [0, 1) for the backoff jitter. @default {Math.random} */
  readonly random?: () => number;
  readonly observer?: ReconcileObserver;
  /** While `isLeader()` is false the loop keeps its caches but never calls the sink. */
  readonly leadership?: Leadership;
  /** Called after every state change (tests, tracing). Must return quickly. */
  readonly observe?: (state: LoopState<Trigger>) => void;
}
