/**
 * The list-then-watch loop that keeps a {@linkcode Store} equal to the server's objects of one
 * resource type, through watch drops, 410 Gone, stalls, restarts and throttling.
 *
 * A state machine ({@linkcode ReflectorState} has the transition table) advanced a step at a
 * time; this class owns what outlives a step: store, restart counters, health and backoff.
 *
 * @module
 */

import type { DecodeFailure, ListWatcher } from "../kube/list_watch.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import { Backoff, type BackoffOptions } from "./backoff.ts";
import { nextCondition, type Outcome, type ReflectorCondition } from "./condition.ts";
import { type Failure, RESTART_REASONS, type RestartReason } from "./failure.ts";
import { listStep } from "./list_step.ts";
import {
  type BackoffState,
  type ListedState,
  type ListingState,
  listingState,
  type ReflectorPhase,
  reflectorPhase,
  type ReflectorState,
} from "./reflector_state.ts";
import { DEFAULT_REFLECTOR_SETTINGS, type ReflectorSettings, type StepContext } from "./step_context.ts";
import { Store, type StoreView } from "./store.ts";
import { transitionLog } from "./transition_log.ts";
import { openWatch, watchStep } from "./watch_step.ts";
import { BookmarkPace } from "./watch_handle.ts";
import { toSeconds } from "../util/duration.ts";

/** A snapshot for health checks, metrics and logs. */
export interface ReflectorStatus {
  /** The list-watcher's description, e.g. `networking.k8s.io/v1 ingresses`. */
  readonly resource: string;
  readonly phase: ReflectorPhase;
  readonly synced: boolean;
  readonly condition: ReflectorCondition["kind"];
  /** The last resourceVersion seen (list, event or bookmark); `""` before the first list. */
  readonly resourceVersion: string;
  /** `clock.now()` when the last complete list was swapped in. */
  readonly lastSyncAt?: number;
  /** Restarts of list or watch since start. */
  readonly restarts: Readonly<Record<RestartReason, number>>;
  readonly lastError?: string;
}

/** Tuning and dependencies of a {@linkcode Reflector}; see {@linkcode ReflectorSettings}. */
export interface ReflectorOptions<T extends KubeObject> extends Partial<ReflectorSettings> {
  /** @default {systemClock} */
  readonly clock?: Clock;
  /** Numbers in [0, 1): backoff jitter and the watch timeout draw. @default {Math.random} */
  readonly random?: () => number;
  /** @default {DEFAULT_BACKOFF} */
  readonly backoff?: BackoffOptions;
  /**
   * The server's bookmark pace, shared by every reflector watching the same API server, so a
   * stream opened since is judged by it at once. @default a pace of this reflector's own
   */
  readonly pace?: BookmarkPace;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** @default {logger("reflector")} */
  readonly log?: Log;
  /** Called after every step with the new state (tests, tracing); must return quickly. */
  readonly observe?: (state: ReflectorState<T>) => void;
}

/** Remembered REJECTED object versions, so a bad object is logged once, not on every relist. */
const REJECTED_MEMORY = 10_000;

/** The reflector's own lifecycle: `run` may be called once. */
type Lifecycle = "new" | "running" | "done";

/**
 * Keeps a store in step with one resource type. Create one per type (and namespace), call
 * {@linkcode run} with a signal, hand {@linkcode store} to consumers.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../kube/client.ts";
 * import { INGRESS } from "../resources/ingress.ts";
 * import { Reflector } from "./reflector.ts";
 *
 * declare const client: KubeClient;
 * declare const signal: AbortSignal;
 * // `run` lists and watches until `signal` aborts; once the store has synced, read
 * // reflector.store.list() on each update.
 * const reflector = new Reflector(client.listWatcher(INGRESS));
 * const running = reflector.run(signal);
 * await reflector.store.whenSynced(signal);
 * await running;
 * ```
 */
export class Reflector<T extends KubeObject> {
  readonly #listWatcher: ListWatcher<T>;
  readonly #store: Store<T>;
  readonly #clock: Clock;
  readonly #backoff: Backoff;
  readonly #log: Log;
  readonly #observe: ((state: ReflectorState<T>) => void) | undefined;
  readonly #settings: ReflectorSettings;
  readonly #pace: BookmarkPace;
  readonly #random: () => number;
  readonly #selectors: StepContext<T>["selectors"];
  #lifecycle: Lifecycle = "new";
  #state: ReflectorState<T> = listingState("0");
  #condition: ReflectorCondition = { kind: "healthy" };
  #resourceVersion = "";
  #lastSyncAt: number | undefined;
  #lastError: string | undefined;
  readonly #restarts: Record<RestartReason, number>;
  readonly #rejected = new Set<string>();

  /** Sets up; nothing happens until {@linkcode run}. */
  constructor(listWatcher: ListWatcher<T>, options: ReflectorOptions<T> = {}) {
    this.#listWatcher = listWatcher;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? Math.random;
    this.#backoff = new Backoff(this.#clock, this.#random, options.backoff);
    this.#log = options.log ?? logger("reflector");
    this.#observe = options.observe;
    this.#pace = options.pace ?? new BookmarkPace();
    const defaults = DEFAULT_REFLECTOR_SETTINGS;
    this.#settings = {
      pageSize: options.pageSize ?? defaults.pageSize,
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? defaults.watchTimeoutSeconds,
      idleMarginMs: options.idleMarginMs ?? defaults.idleMarginMs,
      bookmarkStall: options.bookmarkStall ?? defaults.bookmarkStall,
      abandonAfterMs: options.abandonAfterMs ?? defaults.abandonAfterMs,
      listTimeoutMs: options.listTimeoutMs ?? defaults.listTimeoutMs,
      shortWatchMs: options.shortWatchMs ?? defaults.shortWatchMs,
      missingRetryMs: options.missingRetryMs ?? defaults.missingRetryMs,
    };
    this.#restarts = Object.fromEntries(RESTART_REASONS.map((reason) => [reason, 0])) as Record<
      RestartReason,
      number
    >;
    this.#store = new Store<T>((error) =>
      this.#log.warn("a store subscriber threw", { resource: listWatcher.description, error })
    );
    this.#selectors = {
      ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      ...(options.fieldSelector === undefined ? {} : { fieldSelector: options.fieldSelector }),
    };
  }

  /** The cache, read-only. */
  get store(): StoreView<T> {
    return this.#store;
  }

  /** Where the reflector is and how it has fared. */
  status(): ReflectorStatus {
    return {
      resource: this.#listWatcher.description,
      phase: this.#lifecycle === "done" ? "stopped" : reflectorPhase(this.#state),
      synced: this.#store.synced,
      condition: this.#condition.kind,
      resourceVersion: this.#resourceVersion,
      ...(this.#lastSyncAt === undefined ? {} : { lastSyncAt: this.#lastSyncAt }),
      restarts: { ...this.#restarts },
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
    };
  }

  /**
   * Lists and watches until `signal` aborts, then closes the open watch and returns. Never
   * rejects for API failures: they are retried. May be called once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#lifecycle !== "new") {
      throw new Error(`Cannot run reflector for ${this.#listWatcher.description} twice`);
    }
    this.#lifecycle = "running";
    const context = this.#stepContext(signal);
    try {
      while (this.#state.kind !== "stopped") {
        this.#state = await this.#step(this.#state, context);
        if (this.#state.kind === "listed" || this.#state.kind === "watching") {
          this.#resourceVersion = this.#state.resourceVersion;
        }
        this.#observe?.(this.#state);
      }
    } finally {
      const state = this.#state;
      if (state.kind === "watching") await state.watch.close();
      this.#lifecycle = "done";
    }
  }

  #stepContext(signal: AbortSignal): StepContext<T> {
    return {
      listWatcher: this.#listWatcher,
      store: this.#store,
      clock: this.#clock,
      random: this.#random,
      settings: this.#settings,
      selectors: this.#selectors,
      log: this.#log,
      signal,
      pace: this.#pace,
      swapIn: (items) => {
        this.#store.replace(items);
        this.#lastSyncAt = this.#clock.now();
      },
      restart: (failure) => this.#restart(failure),
      report: (outcome) => this.#report(outcome),
      backOff: (failure, then) => this.#backOff(failure, then),
      rejected: (failures, resourceVersion) => this.#logRejected(failures, resourceVersion),
    };
  }

  async #step(state: ReflectorState<T>, context: StepContext<T>): Promise<ReflectorState<T>> {
    const signal = context.signal;
    if (signal.aborted && state.kind !== "watching") return { kind: "stopped" };
    switch (state.kind) {
      case "listing":
        return await listStep(state, context);
      case "listed":
        return openWatch(state.resourceVersion, context);
      case "watching":
        return await watchStep(state, context);
      case "backoff":
        return await this.#clock.sleep(state.delayMs, signal) ? state.then : { kind: "stopped" };
      case "missing":
        return await this.#clock.sleep(state.retryInMs, signal) ? state.then : { kind: "stopped" };
      case "stopped":
        return state;
    }
  }

  #backOff(failure: Failure, then: ListingState<T> | ListedState): BackoffState<T> {
    this.#restart(failure);
    this.#report({ ok: false, failure });
    const delayMs = this.#backoff.next(failure.retryAfterMs);
    this.#log.debug("retrying after backoff", {
      resource: this.#listWatcher.description,
      reason: failure.reason,
      error: failure.message,
      retryInSeconds: toSeconds(delayMs),
    });
    return { kind: "backoff", reason: failure.reason, delayMs, then };
  }

  #restart(failure: Failure): void {
    this.#restarts[failure.reason] += 1;
    if (failure.message !== "") this.#lastError = failure.message;
  }

  #report(outcome: Outcome): void {
    const step = nextCondition(this.#condition, outcome);
    this.#condition = step.condition;
    if (step.log === undefined) return;
    const line = transitionLog(step.log, {
      resource: this.#listWatcher.description,
      missingRetryMs: this.#settings.missingRetryMs,
    });
    this.#log[line.level](line.message, line.properties);
  }

  #logRejected(failures: readonly DecodeFailure[], resourceVersion: string): void {
    for (const failure of failures) {
      const id = `${failure.key}@${resourceVersion}`;
      if (this.#rejected.has(id)) continue;
      if (this.#rejected.size >= REJECTED_MEMORY) this.#rejected.clear();
      this.#rejected.add(id);
      this.#log.warn("skipping an object that could not be decoded", {
        resource: this.#listWatcher.description,
        object: failure.key,
        resourceVersion,
        reason: failure.reason,
      });
    }
  }
}
