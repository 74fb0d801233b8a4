/**
 * What a reflector step ({@linkcode listStep}, {@linkcode watchStep}) works with: the API, the
 * store, time, tuning, and the bookkeeping the {@linkcode Reflector} keeps across steps.
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
import type { BookmarkPace, BookmarkStall } from "./watch_handle.ts";

/** The reflector's tuning; defaults in {@linkcode DEFAULT_REFLECTOR_SETTINGS}. */
export interface ReflectorSettings {
  /** Objects per list page; 0 lists in one request. */
  readonly pageSize: number;
  /** Inclusive range of the server-side `timeoutSeconds`, drawn per watch to spread the load. */
  readonly watchTimeoutSeconds: { readonly min: number; readonly max: number };
  /** Added to the watch's timeout to get its client-side idle timeout. */
  readonly idleMarginMs: number;
  /** The shorter silence bound once a stream's bookmark pace is known (see `WatchHandle`). */
  readonly bookmarkStall: BookmarkStall;
  /** How long an aborted watch stream may take to end before it is abandoned. */
  readonly abandonAfterMs: number;
  /** Deadline per list page, on top of the client's own. */
  readonly listTimeoutMs: number;
  /** A clean watch end this soon with no event is backed off (client-go `VeryShortWatchError`). */
  readonly shortWatchMs: number;
  /** Retry period while the resource type is not served (404 on list). */
  readonly missingRetryMs: number;
}

/** The defaults (client-go's and kube-rs' where they have one). */
export const DEFAULT_REFLECTOR_SETTINGS: ReflectorSettings = {
  pageSize: 500,
  watchTimeoutSeconds: { min: 300, max: 600 },
  idleMarginMs: 30_000,
  // The apiserver bookmarks a watch about once a minute: a stall shows within about three.
  bookmarkStall: { factor: 3, floorMs: 10_000 },
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
  readonly random: () => number;
  readonly settings: ReflectorSettings;
  readonly selectors: Pick<ListOptions, "labelSelector" | "fieldSelector">;
  readonly log: Log;
  readonly signal: AbortSignal;
  /** The server's bookmark pace as this reflector's watches have seen it. */
  readonly pace: BookmarkPace;
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
