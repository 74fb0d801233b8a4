/**
 * What a reflector step ({@linkcode listStep}, {@linkcode watchStep}) works with: the API, the
 * store, time, the resolved tuning, and the bookkeeping the reflector keeps across steps
 * (restart counters, the health condition, the backoff), so each step can live in its own file
 * while the {@linkcode Reflector} owns the state.
 *
 * @module
 */

import type { DecodeFailure, ListOptions, ListWatcher } from "../kube/list_watch.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Clock } from "../util/clock.ts";
import type { Log } from "../util/logging.ts";
import type { Outcome } from "./condition.ts";
import type { Failure } from "./failure.ts";
import type { BackoffState, ListedState, ListingState } from "./reflector_state.ts";
import type { Store } from "./store.ts";

/** The reflector's tuning; `ReflectorOptions` makes every field optional. */
export interface ReflectorSettings {
  /**
   * Objects per list page; 0 lists in one request. Same as client-go and kube-rs.
   * @default {500}
   */
  readonly pageSize: number;
  /**
   * Range (inclusive, seconds) of the `timeoutSeconds` asked of the server per watch, drawn at
   * random per watch "to spread the load on apiserver" (client-go: 5 to 10 minutes).
   * @default {{ min: 300, max: 600 }}
   */
  readonly watchTimeoutSeconds: { readonly min: number; readonly max: number };
  /**
   * Added to the watch's timeout to get the client-side idle timeout: a watch with no event
   * for that long is aborted and reopened.
   * @default {30000}
   */
  readonly idleMarginMs: number;
  /**
   * How long a watch stream may take to end after the reflector aborted it (idle timeout or
   * shutdown) before it is abandoned, so a stream that ignores its abort cannot hang the
   * reflector.
   * @default {10000}
   */
  readonly abandonAfterMs: number;
  /**
   * Deadline per list page, on top of the client's own request deadline.
   * @default {60000}
   */
  readonly listTimeoutMs: number;
  /**
   * A watch that ends cleanly sooner than this with no event counts as a failure (backed off),
   * so a server that closes every watch at once cannot cause a hot loop (client-go
   * `VeryShortWatchError`).
   * @default {1000}
   */
  readonly shortWatchMs: number;
  /**
   * Retry period while the resource type is not served (404 on list).
   * @default {60000}
   */
  readonly missingRetryMs: number;
}

/** The defaults of {@linkcode ReflectorSettings} (client-go's and kube-rs' where they have one). */
export const DEFAULT_REFLECTOR_SETTINGS: ReflectorSettings = {
  pageSize: 500,
  watchTimeoutSeconds: { min: 300, max: 600 },
  idleMarginMs: 30_000,
  abandonAfterMs: 10_000,
  listTimeoutMs: 60_000,
  shortWatchMs: 1_000,
  missingRetryMs: 60_000,
};

/** The dependencies and bookkeeping one step of a reflector may use. */
export interface StepContext<T extends KubeObject> {
  readonly listWatcher: ListWatcher<T>;
  readonly store: Store<T>;
  readonly clock: Clock;
  /** Numbers in [0, 1): the watch timeout draw. */
  readonly random: () => number;
  readonly settings: ReflectorSettings;
  readonly selectors: Pick<ListOptions, "labelSelector" | "fieldSelector">;
  /** The reflector's logger (category `reflector`). */
  readonly log: Log;
  /** The signal `run` was given: shutdown. */
  readonly signal: AbortSignal;
  /** Swaps a complete list into the store and notes when (`lastSyncAt`). */
  swapIn(items: Iterable<T>): void;
  /** Counts a restart of list or watch under its reason, remembering its message. */
  restart(failure: Failure): void;
  /** Folds an outcome into the health condition, logging the transition if it is news. */
  report(outcome: Outcome): void;
  /** Counts and reports `failure` and draws the wait: the `backoff` state that leads to `then`. */
  backOff(failure: Failure, then: ListingState<T> | ListedState): BackoffState<T>;
  /** Logs objects that could not be decoded, once per object version. */
  rejected(failures: readonly DecodeFailure[], resourceVersion: string): void;
}
