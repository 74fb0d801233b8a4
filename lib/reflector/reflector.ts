/**
 * The list-then-watch loop that keeps a {@linkcode Store} equal to the server's objects of one
 * resource type, through watch drops, 410 Gone, silent stalls, restarts and throttling.
 *
 * It is a state machine (kube-rs `watcher.rs`) with client-go's semantics (`reflector.go`); one
 * step reads one list page, one watch event, or waits once:
 *
 * | state      | on                                          | next                                 |
 * |------------|---------------------------------------------|--------------------------------------|
 * | `listing`  | a page with a `continue` token              | `listing` (next page, buffered)      |
 * | `listing`  | the last page (swapped into the store)      | `listed`                             |
 * | `listing`  | Expired / too-large RV (not yet at `""`)    | `listing` at `""`, at once           |
 * | `listing`  | Expired `continue` token                    | `listing` unpaged, at once           |
 * | `listing`  | 404 (type not served)                       | `missing` (WARN once), then `listing`|
 * | `listing`  | any other error                             | `backoff`, then `listing`            |
 * | `listed`   | —                                           | `watching` from the list's RV        |
 * | `watching` | ADDED / MODIFIED / DELETED / BOOKMARK       | `watching` at the event's RV         |
 * | `watching` | clean end (server `timeoutSeconds`)         | `listed`: re-watch, no relist        |
 * | `watching` | clean end < 1 s with no event               | `backoff`, then `listed`             |
 * | `watching` | 410 (HTTP status or ERROR event)            | `listing` at the last RV             |
 * | `watching` | idle timeout, ERROR event, 5xx, 429, 403, … | `backoff`, then `listed` (no relist) |
 *
 * The list's resourceVersion follows client-go's `relistResourceVersion()`: `"0"` for the first
 * list (served from the API server's watch cache, cheap), the last seen version for a relist
 * after a watch's 410 (the server answers with data at least that new), and `""` (a consistent
 * read from etcd) once a list at a version failed with Expired or "too large resource
 * version". Pages are requested with `limit` and their objects buffered; only the last page
 * hands the whole list to the store in one swap.
 *
 * @module
 */

import { KubeApiError, KubeTransportError } from "../kube/errors.ts";
import type { ListOptions, ListWatcher } from "../kube/list_watch.ts";
import { type DecodeFailure, type WatchEvent } from "../kube/list_watch.ts";
import { type KubeObject, objectKey } from "../resources/kube_object.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import { Backoff, type BackoffOptions } from "./backoff.ts";
import { nextCondition, type Outcome, type ReflectorCondition } from "./condition.ts";
import { classifyFailure, type Failure, RESTART_REASONS, type RestartReason } from "./failure.ts";
import { Store, type StoreView } from "./store.ts";
import { WatchHandle } from "./watch_handle.ts";

/** Reading a list page by page; nothing is visible to readers until the last page. */
export interface ListingState<T extends KubeObject> {
  readonly kind: "listing";
  /** The resourceVersion to list at: `"0"`, a version, or `""` for a consistent read. */
  readonly from: string;
  /** False after an expired `continue` token: the retry lists everything in one request. */
  readonly paged: boolean;
  /** The token for the next page; absent for the first page. */
  readonly continue?: string;
  /** Objects of the pages read so far, by key (owned by this listing attempt). */
  readonly buffer: Map<string, T>;
  /** Set on the slow retry after a 404: another 404 confirms the type is gone. */
  readonly retryOfMissing?: true;
}

/** The store holds a complete list (or survived a watch): open a watch from `resourceVersion`. */
export interface ListedState {
  readonly kind: "listed";
  readonly resourceVersion: string;
}

/** The reflector's state: one of these at any time, advanced by one step at a time. */
export type ReflectorState<T extends KubeObject> =
  | ListingState<T>
  | ListedState
  /** Reading events; `resourceVersion` is the last one applied (or a bookmark's). */
  | {
    readonly kind: "watching";
    readonly resourceVersion: string;
    readonly watch: WatchHandle<T>;
    /** Events (bookmarks included) received on this watch. */
    readonly events: number;
  }
  /** Waiting before a retry after a failure. */
  | {
    readonly kind: "backoff";
    readonly reason: RestartReason;
    readonly delayMs: number;
    readonly then: ListingState<T> | ListedState;
  }
  /** The type is not served (404 on list): retrying slowly. */
  | { readonly kind: "missing"; readonly retryInMs: number; readonly then: ListingState<T> }
  /** Aborted; final. */
  | { readonly kind: "stopped" };

/** The coarse phase for health checks and metrics. */
export type ReflectorPhase = "listing" | "watching" | "backoff" | "missing" | "stopped";

/** A snapshot for health checks, metrics and logs. */
export interface ReflectorStatus {
  /** The list-watcher's description, e.g. `networking.k8s.io/v1 ingresses`. */
  readonly resource: string;
  readonly phase: ReflectorPhase;
  readonly synced: boolean;
  /** Operator-facing health: `healthy`, `forbidden`, `missing` or `failing`. */
  readonly condition: ReflectorCondition["kind"];
  /** The last resourceVersion seen (list, event or bookmark); `""` before the first list. */
  readonly resourceVersion: string;
  /** `clock.now()` when the last complete list was swapped in. */
  readonly lastSyncAt?: number;
  /** Restarts of list or watch, by reason, since start. */
  readonly restarts: Readonly<Record<RestartReason, number>>;
  /** The last failure's message. */
  readonly lastError?: string;
}

/** Tuning and dependencies of a {@linkcode Reflector}. Every field has a default. */
export interface ReflectorOptions<T extends KubeObject> {
  /** @default {systemClock} */
  readonly clock?: Clock;
  /** Numbers in [0, 1): backoff jitter and the watch timeout draw. @default {Math.random} */
  readonly random?: () => number;
  /**
   * Objects per list page; 0 lists in one request. Same as client-go and kube-rs.
   * @default {500}
   */
  readonly pageSize?: number;
  /**
   * Range (inclusive, seconds) of the `timeoutSeconds` asked of the server per watch, drawn at
   * random per watch "to spread the load on apiserver" (client-go: 5 to 10 minutes).
   * @default {{ min: 300, max: 600 }}
   */
  readonly watchTimeoutSeconds?: { readonly min: number; readonly max: number };
  /**
   * Added to the watch's timeout to get the client-side idle timeout: a watch with no event
   * for that long is aborted and reopened.
   * @default {30000}
   */
  readonly idleMarginMs?: number;
  /**
   * How long a watch stream may take to end after the reflector aborted it (idle timeout or
   * shutdown) before it is abandoned, so a stream that ignores its abort cannot hang the
   * reflector.
   * @default {10000}
   */
  readonly abandonAfterMs?: number;
  /**
   * Deadline per list page, on top of the client's own request deadline.
   * @default {60000}
   */
  readonly listTimeoutMs?: number;
  /**
   * A watch that ends cleanly sooner than this with no event counts as a failure (backed off),
   * so a server that closes every watch at once cannot cause a hot loop (client-go
   * `VeryShortWatchError`).
   * @default {1000}
   */
  readonly shortWatchMs?: number;
  /**
   * Retry period while the resource type is not served (404 on list).
   * @default {60000}
   */
  readonly missingRetryMs?: number;
  /** Retry delays; client-go's defaults (800 ms → 30 s, ×2, reset after 2 min). */
  readonly backoff?: BackoffOptions;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** @default {logger("reflector")} */
  readonly log?: Log;
  /** Called after every step with the new state (tests, tracing). Must return quickly. */
  readonly observe?: (state: ReflectorState<T>) => void;
}

const DEFAULTS = {
  pageSize: 500,
  watchTimeoutSeconds: { min: 300, max: 600 },
  idleMarginMs: 30_000,
  abandonAfterMs: 10_000,
  listTimeoutMs: 60_000,
  shortWatchMs: 1_000,
  missingRetryMs: 60_000,
} as const;

/** Remembered REJECTED object versions, so a bad object is logged once, not on every relist. */
const REJECTED_MEMORY = 10_000;

/** The reflector's own lifecycle: `run` may be called once. */
type Lifecycle = "new" | "running" | "done";

function listing<T extends KubeObject>(from: string, paged = true): ListingState<T> {
  return { kind: "listing", from, paged, buffer: new Map() };
}

function phaseOf(state: Pick<ReflectorState<KubeObject>, "kind">): ReflectorPhase {
  switch (state.kind) {
    case "listing":
      return "listing";
    case "listed":
    case "watching":
      return "watching";
    case "backoff":
      return "backoff";
    case "missing":
      return "missing";
    case "stopped":
      return "stopped";
  }
}

/**
 * Keeps a store in step with one resource type. Create one per type (and namespace), call
 * {@linkcode run} with a signal, hand {@linkcode store} to consumers.
 *
 * @example
 * ```ts
 * const reflector = new Reflector(client.listWatcher(INGRESS));
 * const running = reflector.run(signal);
 * await reflector.store.whenSynced(signal);
 * for await (const _ of reflector.store.updates(signal)) reconcile(reflector.store.list());
 * await running;
 * ```
 */
export class Reflector<T extends KubeObject> {
  readonly #listWatcher: ListWatcher<T>;
  readonly #store: Store<T>;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #backoff: Backoff;
  readonly #log: Log;
  readonly #observe: ((state: ReflectorState<T>) => void) | undefined;
  readonly #options: {
    readonly pageSize: number;
    readonly watchTimeoutSeconds: { readonly min: number; readonly max: number };
    readonly idleMarginMs: number;
    readonly abandonAfterMs: number;
    readonly listTimeoutMs: number;
    readonly shortWatchMs: number;
    readonly missingRetryMs: number;
  };
  readonly #selectors: Pick<ListOptions, "labelSelector" | "fieldSelector">;
  #lifecycle: Lifecycle = "new";
  #state: ReflectorState<T> = listing("0");
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
    this.#options = {
      pageSize: options.pageSize ?? DEFAULTS.pageSize,
      watchTimeoutSeconds: options.watchTimeoutSeconds ?? DEFAULTS.watchTimeoutSeconds,
      idleMarginMs: options.idleMarginMs ?? DEFAULTS.idleMarginMs,
      abandonAfterMs: options.abandonAfterMs ?? DEFAULTS.abandonAfterMs,
      listTimeoutMs: options.listTimeoutMs ?? DEFAULTS.listTimeoutMs,
      shortWatchMs: options.shortWatchMs ?? DEFAULTS.shortWatchMs,
      missingRetryMs: options.missingRetryMs ?? DEFAULTS.missingRetryMs,
    };
    this.#selectors = {
      ...(options.labelSelector === undefined ? {} : { labelSelector: options.labelSelector }),
      ...(options.fieldSelector === undefined ? {} : { fieldSelector: options.fieldSelector }),
    };
    this.#restarts = Object.fromEntries(RESTART_REASONS.map((reason) => [reason, 0])) as Record<
      RestartReason,
      number
    >;
    this.#store = new Store<T>((error) =>
      this.#log.warn("a store subscriber threw", { resource: listWatcher.description, error })
    );
  }

  /** The cache, read-only. */
  get store(): StoreView<T> {
    return this.#store;
  }

  /** Where the reflector is and how it has fared. */
  status(): ReflectorStatus {
    return {
      resource: this.#listWatcher.description,
      phase: this.#lifecycle === "done" ? "stopped" : phaseOf(this.#state),
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
    try {
      while (this.#state.kind !== "stopped") {
        this.#state = await this.#step(this.#state, signal);
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

  /** Advances the state machine by one step: one list page, one watch event, or one wait. */
  async #step(state: ReflectorState<T>, signal: AbortSignal): Promise<ReflectorState<T>> {
    if (signal.aborted && state.kind !== "watching") return { kind: "stopped" };
    switch (state.kind) {
      case "listing":
        return await this.#listPage(state, signal);
      case "listed":
        return this.#openWatch(state.resourceVersion, signal);
      case "watching":
        return await this.#nextEvent(state, signal);
      case "backoff":
        return await this.#clock.sleep(state.delayMs, signal) ? state.then : { kind: "stopped" };
      case "missing":
        return await this.#clock.sleep(state.retryInMs, signal) ? state.then : { kind: "stopped" };
      case "stopped":
        return state;
    }
  }

  async #listPage(state: ListingState<T>, signal: AbortSignal): Promise<ReflectorState<T>> {
    const request = new AbortController();
    const onAbort = () => request.abort(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    const deadline = new AbortController();
    let timedOut = false;
    const timer = this.#clock.sleep(this.#options.listTimeoutMs, deadline.signal).then((expired) => {
      if (!expired) return;
      timedOut = true;
      request.abort(new DOMException("list deadline passed", "TimeoutError"));
    });
    const options: ListOptions = {
      // The API server refuses a resourceVersion together with a continue token.
      ...(state.continue === undefined && state.from !== "" ? { resourceVersion: state.from } : {}),
      ...(state.paged && this.#options.pageSize > 0 ? { limit: this.#options.pageSize } : {}),
      ...(state.continue === undefined ? {} : { continue: state.continue }),
      ...this.#selectors,
      signal: request.signal,
    };
    try {
      const page = await this.#listWatcher.list(options);
      for (const item of page.items) state.buffer.set(objectKey(item.metadata), item);
      this.#logRejected(page.rejected, page.resourceVersion);
      if (page.continue !== undefined && page.continue !== "") {
        return { ...state, continue: page.continue };
      }
      if (page.resourceVersion === "") {
        return this.#fail(
          {
            reason: "error",
            message: `LIST ${this.#listWatcher.description}: the list has no resourceVersion`,
          },
          listing(""),
        );
      }
      this.#store.replace(state.buffer.values());
      this.#lastSyncAt = this.#clock.now();
      this.#report({ ok: true });
      this.#log.debug("listed", {
        resource: this.#listWatcher.description,
        objects: state.buffer.size,
        resourceVersion: page.resourceVersion,
      });
      return { kind: "listed", resourceVersion: page.resourceVersion };
    } catch (error) {
      if (signal.aborted) return { kind: "stopped" };
      const failure = timedOut
        ? classifyFailure(new KubeTransportError(`LIST ${this.#listWatcher.description}`, "timeout", error))
        : classifyFailure(error);
      return this.#listFailed(state, failure);
    } finally {
      deadline.abort();
      await timer;
      signal.removeEventListener("abort", onAbort);
    }
  }

  #listFailed(state: ListingState<T>, failure: Failure): ReflectorState<T> {
    if (failure.reason === "expired" && state.continue !== undefined) {
      // The continue token outlived the server's history: start over in one unpaged request,
      // never mixing pages of two snapshots (client-go pager's full-list fallback).
      this.#count(failure);
      this.#log.debug("list continue token expired; listing without pages", {
        resource: this.#listWatcher.description,
      });
      return listing(state.from, false);
    }
    if ((failure.reason === "expired" || failure.reason === "too-large") && state.from !== "") {
      // The version we listed at is unavailable: retry at once with a consistent read.
      this.#count(failure);
      this.#log.debug("list resourceVersion unavailable; listing from etcd", {
        resource: this.#listWatcher.description,
        from: state.from,
        reason: failure.reason,
      });
      return listing("");
    }
    if (failure.reason === "not-found") {
      const confirmed = state.retryOfMissing === true;
      this.#count(failure);
      this.#report({ ok: false, failure });
      // Never synced: an absent type has no objects, and consumers must not wait for it. Synced
      // before: keep the cache through one 404 (an API server starting up serves CRDs late)
      // and drop it only when the next slow retry confirms the type is gone.
      if (!this.#store.synced || confirmed) this.#store.replace([]);
      return {
        kind: "missing",
        retryInMs: this.#options.missingRetryMs,
        then: { ...listing<T>(state.from), retryOfMissing: true },
      };
    }
    return this.#fail(failure, listing(state.from));
  }

  #openWatch(resourceVersion: string, signal: AbortSignal): ReflectorState<T> {
    const { min, max } = this.#options.watchTimeoutSeconds;
    const timeoutSeconds = min + Math.floor(this.#random() * (max - min + 1));
    const watch = WatchHandle.open(this.#listWatcher, {
      resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds,
      ...this.#selectors,
    }, {
      clock: this.#clock,
      idleMs: timeoutSeconds * 1000 + this.#options.idleMarginMs,
      abandonAfterMs: this.#options.abandonAfterMs,
      signal,
    });
    return { kind: "watching", resourceVersion, watch, events: 0 };
  }

  async #nextEvent(
    state: Extract<ReflectorState<T>, { kind: "watching" }>,
    signal: AbortSignal,
  ): Promise<ReflectorState<T>> {
    let result: IteratorResult<WatchEvent<T>>;
    try {
      result = await state.watch.next();
    } catch (error) {
      return await this.#watchEnded(state, { error }, signal);
    }
    if (result.done === true) return await this.#watchEnded(state, undefined, signal);
    const event = result.value;
    if (state.events === 0) this.#report({ ok: true });
    const events = state.events + 1;
    if (event.type === "ERROR") {
      await state.watch.close();
      const failure = classifyFailure(
        new KubeApiError(`WATCH ${this.#listWatcher.description}`, event.status),
      );
      return this.#watchFailed(state.resourceVersion, failure);
    }
    return { ...state, resourceVersion: this.#apply(event) ?? state.resourceVersion, events };
  }

  /** Applies a non-ERROR event; returns the resourceVersion it brings, if any. */
  #apply(event: WatchEvent<T>): string | undefined {
    switch (event.type) {
      case "ADDED":
      case "MODIFIED":
        this.#store.apply(event.object);
        return event.object.metadata.resourceVersion;
      case "DELETED":
        this.#store.delete(event.object);
        return event.object.metadata.resourceVersion;
      case "BOOKMARK":
        return event.resourceVersion === "" ? undefined : event.resourceVersion;
      case "REJECTED":
        this.#logRejected([event.failure], event.resourceVersion);
        return event.resourceVersion === "" ? undefined : event.resourceVersion;
      case "ERROR":
        return undefined;
    }
  }

  async #watchEnded(
    state: Extract<ReflectorState<T>, { kind: "watching" }>,
    thrown: { readonly error: unknown } | undefined,
    signal: AbortSignal,
  ): Promise<ReflectorState<T>> {
    const stop = state.watch.stop;
    if (state.watch.abandoned) {
      this.#log.warn("a watch stream did not end after it was aborted; abandoned it (a client bug)", {
        resource: this.#listWatcher.description,
        reason: stop,
        graceMs: this.#options.abandonAfterMs,
      });
    }
    await state.watch.close();
    if (stop === "shutdown" || signal.aborted) return { kind: "stopped" };
    const rv = state.resourceVersion;
    if (stop === "idle-timeout") {
      this.#log.info("watch stalled: no event within the idle timeout; reopening", {
        resource: this.#listWatcher.description,
        resourceVersion: rv,
      });
      return this.#fail({ reason: "idle-timeout", message: "watch idle timeout" }, {
        kind: "listed",
        resourceVersion: rv,
      });
    }
    if (thrown !== undefined) return this.#watchFailed(rv, classifyFailure(thrown.error));
    const lived = this.#clock.now() - state.watch.openedAt;
    if (state.events === 0 && lived < this.#options.shortWatchMs) {
      return this.#fail(
        { reason: "short-watch", message: `watch ended after ${Math.round(lived)} ms without events` },
        { kind: "listed", resourceVersion: rv },
      );
    }
    // The server's timeoutSeconds (or a proxy) ended the stream: resume where it stopped.
    this.#count({ reason: "server-timeout", message: "" });
    this.#report({ ok: true });
    return { kind: "listed", resourceVersion: rv };
  }

  #watchFailed(resourceVersion: string, failure: Failure): ReflectorState<T> {
    if (failure.reason === "expired") {
      // Out of the server's history: relist at the last version seen (client-go); objects
      // deleted meanwhile are missing from the list and removed by the swap.
      this.#count(failure);
      this.#log.debug("watch expired; relisting", {
        resource: this.#listWatcher.description,
        resourceVersion,
      });
      return listing(resourceVersion);
    }
    // 404 on a watch: the type may have been removed; the list will tell.
    const then: ListingState<T> | ListedState = failure.reason === "not-found"
      ? listing(resourceVersion)
      : { kind: "listed", resourceVersion };
    return this.#fail(failure, then);
  }

  /** Counts and reports a failure, and waits before `then`. */
  #fail(failure: Failure, then: ListingState<T> | ListedState): ReflectorState<T> {
    this.#count(failure);
    this.#report({ ok: false, failure });
    const delayMs = this.#backoff.next(failure.retryAfterMs);
    this.#log.debug("retrying after backoff", {
      resource: this.#listWatcher.description,
      reason: failure.reason,
      error: failure.message,
      delayMs: Math.round(delayMs),
    });
    return { kind: "backoff", reason: failure.reason, delayMs, then };
  }

  #count(failure: Failure): void {
    this.#restarts[failure.reason] += 1;
    if (failure.message !== "") this.#lastError = failure.message;
  }

  #report(outcome: Outcome): void {
    const step = nextCondition(this.#condition, outcome);
    this.#condition = step.condition;
    const resource = this.#listWatcher.description;
    const log = step.log;
    if (log === undefined) return;
    if (log.level === "info") {
      this.#log.info("list and watch recovered", { resource, recoveredFrom: log.recoveredFrom });
    } else if (log.condition === "forbidden") {
      this.#log.warn(
        "list or watch forbidden: check the RBAC rules (get, list, watch) for this resource; retrying",
        { resource, error: log.message },
      );
    } else if (log.condition === "missing") {
      this.#log.warn(
        "resource type is not served (CRD not installed?); treating it as empty, retrying slowly",
        {
          resource,
          error: log.message,
          retryInMs: this.#options.missingRetryMs,
        },
      );
    } else {
      this.#log.warn("list or watch keeps failing; retrying with backoff", { resource, error: log.message });
    }
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
