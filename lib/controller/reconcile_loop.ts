/**
 * The controller's reconcile loop: level-based, coalescing, and silent until every cache has
 * synced.
 *
 * The loop never looks at individual events. A store change only marks work as pending; when
 * the loop gets to it, it recomputes the whole desired set from the full caches and hands it to
 * the mode's {@linkcode Sink}. So a missed, duplicated or reordered event cannot leave a stale
 * hostname behind, and any number of events collapses into one reconcile:
 *
 * | state              | on                                         | next                                   |
 * |--------------------|--------------------------------------------|----------------------------------------|
 * | `waiting-for-sync` | the last source or prerequisite synced     | `debouncing` (a first reconcile)        |
 * | `idle`             | a store change, the resync timer           | `debouncing`                           |
 * | `debouncing`       | the window (`debounceMs`) ends             | `reconciling` (everything pending)     |
 * | `reconciling`      | unchanged / written / refused              | `idle`, or `debouncing` if more came   |
 * | `reconciling`      | the sink rejected (a transient failure)    | `backing-off`                          |
 * | `backing-off`      | the delay ends                             | `debouncing` (a retry)                 |
 * | any                | the signal aborts                          | `stopped`                              |
 *
 * The window is fixed from the first pending change, not restarted by later ones, so a steady
 * storm of events (status churn on thousands of Ingresses) still reconciles at a bounded rate:
 * at most one reconcile per window plus the reconcile's own time. Changes that arrive during a
 * reconcile are remembered and cause exactly one more.
 *
 * The sink is called only when it can matter: when the desired set (the hostnames, or the kinds
 * they come from) differs from the last one the sink accepted, when the target itself changed
 * (the watched ConfigMap), when a prerequisite changed (the proxy Service whose addresses the
 * records point at), on the periodic resync, and after a failure. A burst that changes no
 * hostname (status-only updates) is recomputed and dropped without a request to the API server.
 *
 * Prerequisites are caches the sink reads besides the hostnames. The first reconcile waits for
 * them as it waits for the sources, so a sink never acts on a half-known world (external-dns
 * mode would otherwise see "no proxy address" and hold everything back, or worse).
 *
 * Refusals are logged by what they held back ({@linkcode RefusalScope}): a refusal that wrote
 * nothing, or left some hostnames alone while writing the rest, is an ERROR; a safety guard that
 * kept published records is a WARN (nothing is broken; the message says what to do). Each is
 * logged once per distinct problem, and at DEBUG when the sink has already logged it itself.
 *
 * Shutdown never leaves a half-done write: no sink call starts after the signal aborts, and a
 * call in flight keeps a signal of its own that aborts only after `shutdownGraceMs`. A sink
 * checks that signal before each write, and a single PUT either reached the API server whole or
 * not at all, so the worst case is a write that is abandoned before it starts.
 *
 * Time and randomness are injected, so tests drive the loop with a manual clock.
 *
 * @module
 */

import type { KubeObject } from "../resources/kube_object.ts";
import { Backoff, type BackoffOptions } from "../reflector/backoff.ts";
import type { StoreView } from "../reflector/store.ts";
import type { Gateway } from "../resources/gateway.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { Ingress } from "../resources/ingress.ts";
import type { HostSource } from "../hostnames/sources.ts";
import type { RefusalScope, Sink, SinkOutcome } from "../sinks/sink.ts";
import { createDesiredSetMemo, desiredHostnames, type DesiredSetOptions } from "../hostnames/desired_set.ts";
import { formatLoggedValue, RejectionLog } from "../hostnames/rejection_log.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { type Log, logger } from "../util/logging.ts";
import { errorMessage } from "../util/error_message.ts";

/** The caches hostnames come from. Leave the Gateway API stores out when `--gateway-api` is off. */
export interface LoopSources {
  readonly ingresses: StoreView<Ingress>;
  readonly gateways?: StoreView<Gateway>;
  readonly routes?: StoreView<HttpRoute>;
}

/**
 * A cache the sink depends on besides the hostname sources (external-dns mode: the proxy
 * Service). `kind` names it in logs and in the waiting-for-sync state.
 */
export interface Prerequisite {
  readonly kind: string;
  readonly store: StoreView<KubeObject>;
}

/** Why a reconcile runs; several reasons can be pending at once. */
export interface Trigger {
  /** A source cache changed (or the first sync): recompute, call the sink if the set moved. */
  readonly sources: boolean;
  /** The sink's target changed (someone edited the ConfigMap): call the sink. */
  readonly target: boolean;
  /** A prerequisite changed (the proxy Service): call the sink, its input moved. */
  readonly prerequisite: boolean;
  /** The periodic resync: call the sink, which repairs drift and writes only if needed. */
  readonly resync: boolean;
  /** The previous call failed: call the sink again. */
  readonly retry: boolean;
}

/**
 * What one reconcile ended with, as metrics and readiness see it: the sink's outcome (without
 * its logging hint), or an error the loop backs off from.
 */
export type ReconcileResult =
  | { readonly kind: "unchanged"; readonly hosts: number }
  | { readonly kind: "written"; readonly hosts: number; readonly added: number; readonly removed: number }
  | {
    readonly kind: "refused";
    readonly problem: string;
    readonly message: string;
    readonly scope: RefusalScope;
  }
  | { readonly kind: "error"; readonly message: string };

/** The loop's state. */
export type LoopState =
  | { readonly kind: "new" }
  /** Some source or prerequisite caches have not listed yet; nothing is written meanwhile. */
  | { readonly kind: "waiting-for-sync"; readonly unsynced: readonly string[] }
  | { readonly kind: "idle" }
  /** Collecting changes until `until` (clock time), then reconciling once. */
  | { readonly kind: "debouncing"; readonly until: number }
  | { readonly kind: "reconciling"; readonly since: number; readonly trigger: Trigger }
  /** The last sink call failed; the next attempt starts after `delayMs`. */
  | {
    readonly kind: "backing-off";
    readonly delayMs: number;
    readonly attempt: number;
    readonly error: string;
  }
  | { readonly kind: "stopped" };

/** A snapshot for readiness, metrics and tests. */
export interface LoopStatus {
  readonly state: LoopState;
  /** The last sink call's result; absent before the first call. */
  readonly last?: ReconcileResult;
  /**
   * True once a sink call has succeeded (unchanged, written, or a refusal of some hostnames
   * while the rest were written); never goes back.
   */
  readonly succeeded: boolean;
  /** Hostnames in the desired set at the last recompute. */
  readonly desiredHosts: number;
  /** Refused hostname values at the last recompute. */
  readonly rejectedHosts: number;
}

/** Hears about every recompute and sink call (the metrics implement it). */
export interface ReconcileObserver {
  /** A recompute of the desired set finished. */
  desiredSet(hosts: number, rejected: number): void;
  /** A recompute found nothing for the sink to do. */
  skipped(): void;
  /** A sink call finished. */
  reconciled(result: ReconcileResult, durationMs: number): void;
}

/** What the loop needs. Everything but `sources`, `sink`, `desired` and `resyncMs` has a default. */
export interface ReconcileLoopOptions {
  readonly sources: LoopSources;
  /**
   * Caches of the sink's target (the ConfigMap it edits, watched by name). A change there calls
   * the sink even if no hostname changed, so a block someone deleted is restored at once
   * instead of at the next resync. They never hold back the first reconcile.
   */
  readonly targets?: readonly StoreView<KubeObject>[];
  /**
   * Caches the sink reads besides the hostnames (see the module comment): the first reconcile
   * waits until they have synced, and their changes call the sink.
   */
  readonly prerequisites?: readonly Prerequisite[];
  readonly sink: Sink;
  readonly desired: DesiredSetOptions;
  /** `--resync`: period of the sink call that repairs drift; 0 turns it off. */
  readonly resyncMs: number;
  /**
   * How long changes are collected before a reconcile.
   * @default {100}
   */
  readonly debounceMs?: number;
  /**
   * How long a sink call in flight may finish after the signal aborts before its own signal
   * aborts.
   * @default {10000}
   */
  readonly shutdownGraceMs?: number;
  /** Retry delays after a failed sink call. @default {{ initialMs: 1000, maxMs: 120000 }} */
  readonly backoff?: BackoffOptions;
  /** @default {systemClock} */
  readonly clock?: Clock;
  /** Numbers in [0, 1) for the backoff jitter. @default {Math.random} */
  readonly random?: () => number;
  /** @default {logger("controller")} */
  readonly log?: Log;
  readonly observer?: ReconcileObserver;
  /** Called after every state change (tests, tracing). Must return quickly. */
  readonly observe?: (state: LoopState) => void;
}

/** Retry delays after a failed sink call: 1 s doubling to 2 min (full jitter). */
export const RECONCILE_BACKOFF: BackoffOptions = { initialMs: 1_000, maxMs: 120_000 };

const DEFAULTS = { debounceMs: 100, shutdownGraceMs: 10_000 } as const;

const REASONS = ["sources", "target", "prerequisite", "resync", "retry"] as const;

const NO_TRIGGER: Trigger = {
  sources: false,
  target: false,
  prerequisite: false,
  resync: false,
  retry: false,
};

function merge(a: Trigger, b: Partial<Trigger>): Trigger {
  return {
    sources: a.sources || b.sources === true,
    target: a.target || b.target === true,
    prerequisite: a.prerequisite || b.prerequisite === true,
    resync: a.resync || b.resync === true,
    retry: a.retry || b.retry === true,
  };
}

function pending(trigger: Trigger): boolean {
  return REASONS.some((name) => trigger[name]);
}

/** What the sink last accepted: the hostnames and the kinds each came from. */
interface Applied {
  readonly hosts: readonly string[];
  readonly sources: ReadonlyMap<string, readonly HostSource[]>;
}

function sameList<T>(a: readonly T[], b: readonly T[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function sameApplied(a: Applied, b: Applied): boolean {
  if (!sameList(a.hosts, b.hosts) || a.sources.size !== b.sources.size) return false;
  for (const [host, kinds] of a.sources) {
    const other = b.sources.get(host);
    if (other === undefined || !sameList(kinds, other)) return false;
  }
  return true;
}

function reasons(trigger: Trigger): string {
  return REASONS.filter((name) => trigger[name]).join(",");
}

/** How the loop words a refusal of each scope, and at which level when it is news. */
const REFUSAL_WORDING: Readonly<
  Record<RefusalScope, { level: "warn" | "error"; message: string; repeat: string }>
> = {
  "nothing-written": {
    level: "error",
    message: "write refused; nothing was written, retrying on the next change or resync",
    repeat: "write still refused; waiting for a change",
  },
  "some-hosts": {
    level: "error",
    message: "some hostnames were not written (the others were); retrying on the next change or resync",
    repeat: "some hostnames still not written; waiting for a change",
  },
  guard: {
    level: "warn",
    message: "a safety guard held back the change; nothing was written or deleted, published records stay",
    repeat: "the safety guard still holds; waiting for a change",
  },
};

/**
 * Runs reconciles for one sink until its signal aborts.
 *
 * @example
 * ```ts
 * const loop = new ReconcileLoop({
 *   sources: { ingresses: ingressReflector.store },
 *   sink,
 *   desired: { clusterDomain: "cluster.local", proxyFqdn },
 *   resyncMs: 600_000,
 * });
 * await loop.run(signal);
 * ```
 */
export class ReconcileLoop {
  readonly #sources: LoopSources;
  readonly #targets: readonly StoreView<KubeObject>[];
  readonly #prerequisites: readonly Prerequisite[];
  readonly #sink: Sink;
  readonly #desired: DesiredSetOptions;
  /** Per-object hostname results, valid for `#desired` (see `DesiredSetMemo`). */
  readonly #memo = createDesiredSetMemo();
  readonly #resyncMs: number;
  readonly #debounceMs: number;
  readonly #graceMs: number;
  readonly #clock: Clock;
  readonly #backoff: Backoff;
  readonly #log: Log;
  readonly #observer: ReconcileObserver | undefined;
  readonly #observe: ((state: LoopState) => void) | undefined;
  readonly #rejections = new RejectionLog();

  #state: LoopState = { kind: "new" };
  #started = false;
  #pending: Trigger = NO_TRIGGER;
  #wake: (() => void) | undefined;
  #last: ReconcileResult | undefined;
  #succeeded = false;
  /** What the sink last accepted; `undefined` until a success and after a failure or refusal. */
  #applied: Applied | undefined;
  /** The refusal last logged (scope, `problem` and `message`), so a repeat stays quiet. */
  #refusalLogged: string | undefined;
  #desiredHosts = 0;
  #rejectedHosts = 0;

  /** Sets up; nothing happens until {@linkcode run}. */
  constructor(options: ReconcileLoopOptions) {
    this.#sources = options.sources;
    this.#targets = options.targets ?? [];
    this.#prerequisites = options.prerequisites ?? [];
    this.#sink = options.sink;
    this.#desired = options.desired;
    this.#resyncMs = options.resyncMs;
    this.#debounceMs = options.debounceMs ?? DEFAULTS.debounceMs;
    this.#graceMs = options.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs;
    this.#clock = options.clock ?? systemClock;
    this.#backoff = new Backoff(
      this.#clock,
      options.random ?? Math.random,
      options.backoff ?? RECONCILE_BACKOFF,
    );
    this.#log = options.log ?? logger("controller");
    this.#observer = options.observer;
    this.#observe = options.observe;
  }

  /** Where the loop is and how the last reconcile went. */
  status(): LoopStatus {
    return {
      state: this.#state,
      ...(this.#last === undefined ? {} : { last: this.#last }),
      succeeded: this.#succeeded,
      desiredHosts: this.#desiredHosts,
      rejectedHosts: this.#rejectedHosts,
    };
  }

  /**
   * Waits for the source and prerequisite caches to sync, then reconciles on every change and
   * resync until `signal` aborts. Returns once a sink call in flight has finished (or was abandoned after the
   * grace period). Never rejects for sink failures: they are retried. May be called once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error("Cannot run a reconcile loop twice");
    this.#started = true;
    const unsubscribe = this.#subscribe();
    try {
      const started = this.#clock.now();
      if (!await this.#waitForSync(signal)) return;
      this.#log.info("caches synced", {
        elapsedMs: Math.round(this.#clock.now() - started),
        ingresses: this.#sources.ingresses.size,
        ...(this.#sources.gateways === undefined ? {} : { gateways: this.#sources.gateways.size }),
        ...(this.#sources.routes === undefined ? {} : { routes: this.#sources.routes.size }),
      });
      this.#pending = merge(this.#pending, { sources: true });
      const resync = this.#resyncTimer(signal);
      try {
        await this.#work(signal);
      } finally {
        await resync;
      }
    } finally {
      unsubscribe();
      this.#wake = undefined;
      this.#enter({ kind: "stopped" });
    }
  }

  #enter(state: LoopState): void {
    this.#state = state;
    this.#observe?.(state);
  }

  /** Marks work and wakes the loop if it is waiting. */
  #trigger(reason: Partial<Trigger>): void {
    this.#pending = merge(this.#pending, reason);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #subscribe(): () => void {
    const stores: StoreView<KubeObject>[] = [this.#sources.ingresses];
    if (this.#sources.gateways !== undefined) stores.push(this.#sources.gateways);
    if (this.#sources.routes !== undefined) stores.push(this.#sources.routes);
    const unsubscribes = [
      ...stores.map((store) => store.subscribe(() => this.#trigger({ sources: true }))),
      ...this.#targets.map((store) => store.subscribe(() => this.#trigger({ target: true }))),
      ...this.#prerequisites.map(({ store }) => store.subscribe(() => this.#trigger({ prerequisite: true }))),
    ];
    return () => {
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }

  /** Resolves `true` at the next trigger (at once if one is pending), `false` on abort. */
  #nextTrigger(signal: AbortSignal, evenIfPending = false): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    if (!evenIfPending && pending(this.#pending)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#wake = undefined;
        resolve(false);
      };
      this.#wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  async #waitForSync(signal: AbortSignal): Promise<boolean> {
    const named: [string, StoreView<KubeObject> | undefined][] = [
      ["Ingress", this.#sources.ingresses],
      ["Gateway", this.#sources.gateways],
      ["HTTPRoute", this.#sources.routes],
      ...this.#prerequisites.map(({ kind, store }): [string, StoreView<KubeObject>] => [kind, store]),
    ];
    while (true) {
      const unsynced = named.filter(([, store]) => store !== undefined && !store.synced).map(([kind]) =>
        kind
      );
      if (unsynced.length === 0) return true;
      this.#enter({ kind: "waiting-for-sync", unsynced });
      // Any notification may be the sync; changes before it are not work yet.
      if (!await this.#nextTrigger(signal, true)) return false;
    }
  }

  async #resyncTimer(signal: AbortSignal): Promise<void> {
    if (this.#resyncMs <= 0) return;
    while (await this.#clock.sleep(this.#resyncMs, signal)) this.#trigger({ resync: true });
  }

  async #work(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      if (!pending(this.#pending)) {
        this.#enter({ kind: "idle" });
        if (!await this.#nextTrigger(signal)) return;
      }
      this.#enter({ kind: "debouncing", until: this.#clock.now() + this.#debounceMs });
      if (!await this.#clock.sleep(this.#debounceMs, signal)) return;
      const trigger = this.#pending;
      this.#pending = NO_TRIGGER;
      this.#enter({ kind: "reconciling", since: this.#clock.now(), trigger });
      const result = await this.#reconcile(trigger, signal);
      if (result?.kind !== "error") {
        if (result !== undefined) this.#backoff.reset();
        continue;
      }
      if (signal.aborted) return;
      const delayMs = this.#backoff.next();
      this.#log.error("reconcile failed; retrying after backoff", {
        target: this.#sink.description,
        error: result.message,
        retryInMs: Math.round(delayMs),
      });
      this.#enter({ kind: "backing-off", delayMs, attempt: this.#backoff.attempt, error: result.message });
      if (!await this.#clock.sleep(delayMs, signal)) return;
      this.#pending = merge(this.#pending, { retry: true });
    }
  }

  /**
   * One recompute and, when needed, one sink call. Returns `undefined` when the sink was not
   * called (nothing to do).
   */
  async #reconcile(trigger: Trigger, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const ingresses = this.#sources.ingresses.list();
    const gateways = this.#sources.gateways?.list() ?? [];
    const routes = this.#sources.routes?.list() ?? [];
    let applying: Applied;
    try {
      const desired = desiredHostnames({ ingresses, gateways, routes }, this.#desired, this.#memo);
      applying = { hosts: desired.hosts, sources: desired.sources };
      this.#desiredHosts = desired.hosts.length;
      this.#rejectedHosts = desired.rejected.length;
      for (const entry of this.#rejections.observe(desired.rejected)) {
        this.#log.warn("hostname refused; it is not written", {
          kind: entry.source,
          object: entry.key,
          resourceVersion: entry.resourceVersion,
          value: formatLoggedValue(entry.value),
          reason: entry.reason,
          detail: entry.text,
        });
      }
      this.#observer?.desiredSet(desired.hosts.length, desired.rejected.length);
    } catch (error) {
      // A bug in the pure core: report it like a failed call, so it is retried and seen.
      return this.#finish({ kind: "error", message: `computing the desired set: ${errorMessage(error)}` }, 0);
    }
    const hosts = applying.hosts;
    const needed = trigger.target || trigger.prerequisite || trigger.resync || trigger.retry ||
      this.#applied === undefined || !sameApplied(this.#applied, applying);
    const seen = {
      trigger: reasons(trigger),
      ingressesSeen: ingresses.length,
      gatewaysSeen: gateways.length,
      routesSeen: routes.length,
      hosts: hosts.length,
    };
    if (!needed) {
      this.#log.debug("reconcile", { ...seen, result: "skipped: the desired set did not change" });
      this.#observer?.skipped();
      return undefined;
    }
    if (signal.aborted) return undefined;
    const started = this.#clock.now();
    let result: ReconcileResult;
    let sinkLogged = false;
    try {
      const outcome = await this.#callSink(applying, signal);
      for (const notice of outcome.notices ?? []) {
        this.#log[notice.level](notice.message, { target: this.#sink.description, ...notice.properties });
      }
      result = this.#fromOutcome(outcome);
      sinkLogged = outcome.kind === "refused" && outcome.logged === true;
    } catch (error) {
      result = { kind: "error", message: errorMessage(error) };
    }
    // A refusal needs a change on the cluster side (a new desired set, the target or a
    // prerequisite changing, or the resync), not another call with the same input: remembering
    // it keeps status-only churn from repeating the sink's reads while a refusal lasts.
    if (result.kind === "error") this.#applied = undefined;
    else this.#applied = applying;
    const durationMs = this.#clock.now() - started;
    this.#log.debug("reconcile", { ...seen, result: result.kind, durationMs: Math.round(durationMs) });
    return this.#finish(result, durationMs, sinkLogged);
  }

  /**
   * Calls the sink with a signal that outlives `signal` by the grace period, so shutdown lets a
   * started reconcile finish instead of cutting it between its read and its write.
   */
  async #callSink(applying: Applied, signal: AbortSignal): Promise<SinkOutcome> {
    const call = new AbortController();
    const done = new AbortController();
    const onAbort = () => {
      void this.#clock.sleep(this.#graceMs, done.signal).then((expired) => {
        if (!expired) return;
        this.#log.warn("a reconcile did not finish within the shutdown grace period; abandoning it", {
          target: this.#sink.description,
          graceMs: this.#graceMs,
        });
        call.abort(new DOMException("shutdown grace period passed", "AbortError"));
      });
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.#sink.reconcile(applying.hosts, call.signal, { sources: applying.sources });
    } finally {
      signal.removeEventListener("abort", onAbort);
      done.abort();
    }
  }

  #fromOutcome(outcome: SinkOutcome): ReconcileResult {
    switch (outcome.kind) {
      case "unchanged":
        return { kind: "unchanged", hosts: outcome.hosts };
      case "written":
        return { kind: "written", hosts: outcome.hosts, added: outcome.added, removed: outcome.removed };
      case "refused":
        return { kind: "refused", problem: outcome.problem, message: outcome.message, scope: outcome.scope };
      case "failed":
        return { kind: "error", message: outcome.message };
    }
  }

  /**
   * Records a sink call's result: logs, status and the observer. `sinkLogged`: the sink has
   * logged this refusal itself, so it is logged here at DEBUG only.
   */
  #finish(result: ReconcileResult, durationMs: number, sinkLogged = false): ReconcileResult {
    this.#last = result;
    switch (result.kind) {
      case "unchanged":
        this.#succeeded = true;
        this.#refusalLogged = undefined;
        break;
      case "written":
        this.#succeeded = true;
        this.#refusalLogged = undefined;
        this.#log.info("hostnames updated", {
          target: this.#sink.description,
          added: result.added,
          removed: result.removed,
          total: result.hosts,
        });
        break;
      case "refused": {
        const scope = result.scope;
        // The other hostnames were written: the sink works, one object on the cluster is in the way.
        if (scope === "some-hosts") this.#succeeded = true;
        const identity = `${scope}\n${result.problem}\n${result.message}`;
        const properties = {
          target: this.#sink.description,
          problem: result.problem,
          message: result.message,
        };
        const wording = REFUSAL_WORDING[scope];
        if (this.#refusalLogged === identity) {
          this.#log.debug(wording.repeat, properties);
        } else {
          this.#refusalLogged = identity;
          if (sinkLogged) this.#log.debug(wording.message, { ...properties, scope });
          else this.#log[wording.level](wording.message, properties);
        }
        break;
      }
      case "error":
        break;
    }
    this.#observer?.reconciled(result, durationMs);
    return result;
  }
}
