/**
 * The controller's reconcile loop: level-based, coalescing, and silent until every cache has
 * synced. A store change only marks work pending; the loop then recomputes the whole desired set
 * and hands it to the sink, so a missed, duplicated or reordered event leaves nothing stale.
 *
 * The decisions are pure modules (`loop_step.ts`, `sink_call_needed.ts`, `refusal_wording.ts`,
 * `change_wording.ts`); this class carries them out and writes every log line. The first reconcile
 * also waits for the prerequisites, so a sink never acts on a half-known world. A refusal is
 * remembered like a success: the same input would be refused again, so only a change, the resync
 * or the refusal's own `recheckAfterMs` calls the sink again.
 *
 * Effects: store subscriptions, timers through the injected clock, sink calls, log lines.
 *
 * @module
 */

import type { DesiredSetOptions } from "../hostnames/desired_set.ts";
import type { StoreView } from "../reflector/store.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Sink, SinkOutcome } from "./modes/sink.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";
import { ALWAYS_LEADING, ControlLoop, type Leadership, type PassVerdict } from "../daemon/control_loop.ts";
import { type FailureStreakOptions, type RetryPacingOptions } from "../daemon/retry_pacing.ts";
import type { LoopState } from "../daemon/loop_step.ts";
import { NO_TRIGGER, type Trigger, triggerReasons } from "./trigger.ts";
import {
  type LoopStatus,
  type ReconcileObserver,
  type ReconcileResult,
  reconcileResult,
} from "./loop_status.ts";
import { changeWording } from "./change_wording.ts";
import { refusalLine } from "./refusal_wording.ts";
import { type DesiredInput, sinkCallNeeded } from "./sink_call_needed.ts";
import {
  type LoopSources,
  type Prerequisite,
  sourceLists,
  subscribeCaches,
  unsyncedCaches,
} from "./loop_caches.ts";
import { callSink } from "./call_sink.ts";
import { DesiredRecompute } from "./desired_recompute.ts";
import { toSeconds } from "../util/duration.ts";

/** What the loop needs; all but `sources`, `sink`, `desired`, `resyncMs` and `log` are optional. */
export interface ReconcileLoopOptions {
  readonly sources: LoopSources;
  /** Caches of the sink's target: a change calls the sink at once; never waited for. */
  readonly targets?: readonly StoreView<KubeObject>[];
  /** Caches the sink reads besides the hostnames: waited for first; a change calls the sink. */
  readonly prerequisites?: readonly Prerequisite[];
  /**
   * The sink reads the sources' status too (`--routes`: the addresses owners report), so a
   * status-only change calls it, as a prerequisite's change does. @default false
   */
  readonly statusMatters?: boolean;
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

const DEFAULTS = { debounceMs: 100, shutdownGraceMs: 10_000 } as const;

/** Runs reconciles for one sink until its signal aborts, on the shared {@linkcode ControlLoop}. */
export class ReconcileLoop {
  readonly #sources: LoopSources;
  readonly #sink: Sink;
  readonly #recompute: DesiredRecompute;
  readonly #graceMs: number;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #observer: ReconcileObserver | undefined;
  readonly #loop: ControlLoop<Trigger>;

  #last: ReconcileResult | undefined;
  #succeeded = false;
  /** What the sink last accepted; `undefined` until a success and after a failure. */
  #accepted: DesiredInput | undefined;
  /** The identity of the refusal last logged, so a repeat stays quiet (see `refusalLine`). */
  #refusalLogged: string | undefined;
  /** The dry-run diff last logged at INFO, so the same one again goes to DEBUG. */
  #previewLogged: string | undefined;
  /** The last sink call's outcome, for {@linkcode ReconcileLoop.once}. */
  #lastOutcome: SinkOutcome | undefined;

  /** Sets up; nothing happens until {@linkcode run}. */
  constructor(options: ReconcileLoopOptions) {
    this.#sources = options.sources;
    this.#sink = options.sink;
    this.#recompute = new DesiredRecompute(options.desired, options.log);
    this.#graceMs = options.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log;
    this.#observer = options.observer;
    const caches = {
      sources: options.sources,
      targets: options.targets ?? [],
      prerequisites: options.prerequisites ?? [],
      statusMatters: options.statusMatters ?? false,
    };
    this.#loop = new ControlLoop<Trigger>({
      none: NO_TRIGGER,
      first: { sources: true },
      target: options.sink.description,
      unsynced: () => unsyncedCaches(caches),
      subscribe: (add) => subscribeCaches(caches, add),
      pass: (trigger, signal) => this.#passVerdict(trigger, signal),
      random: options.random ?? Math.random,
      ...(options.backoff === undefined ? {} : { pacing: options.backoff }),
      ...(options.persistence === undefined ? {} : { persistence: options.persistence }),
      log: options.log,
      clock: this.#clock,
      debounceMs: options.debounceMs ?? DEFAULTS.debounceMs,
      resyncMs: options.resyncMs,
      leadership: options.leadership ?? ALWAYS_LEADING,
      onStart: (durationMs) => this.#logSynced(durationMs),
      // What the sink accepted as leader may be stale when this replica leads again.
      onFollow: () => this.#accepted = undefined,
      ...(options.observe === undefined ? {} : { observe: options.observe }),
    });
  }

  /** Where the loop is and how the last reconcile went. */
  status(): LoopStatus {
    const failing = this.#loop.failing();
    return {
      state: this.#loop.state,
      ...(this.#last === undefined ? {} : { last: this.#last }),
      ...(failing === undefined ? {} : { failing }),
      succeeded: this.#succeeded,
      stoodBy: this.#loop.stoodBy,
      desiredHosts: this.#recompute.hosts,
      rejectedHosts: this.#recompute.rejected,
    };
  }

  /**
   * Waits for the caches to sync, then reconciles on every change and resync until `signal`
   * aborts, letting a call in flight finish. Failures are retried, never thrown. Call once.
   */
  async run(signal: AbortSignal): Promise<void> {
    await this.#loop.run(signal);
  }

  /**
   * `--once`: one sink call after the caches sync (no resync, no retry); its outcome, or
   * `undefined` when `signal` aborted first.
   */
  async once(signal: AbortSignal): Promise<SinkOutcome | undefined> {
    await this.#loop.run(signal, { once: true });
    return this.#lastOutcome;
  }

  #logSynced(durationMs: number): void {
    this.#log.info("caches synced", {
      durationSeconds: toSeconds(durationMs),
      ingresses: this.#sources.ingresses.size,
      ...(this.#sources.gateways === undefined ? {} : { gateways: this.#sources.gateways.size }),
      ...(this.#sources.routes === undefined ? {} : { routes: this.#sources.routes.size }),
      ...(this.#sources.grpcRoutes === undefined ? {} : { grpcRoutes: this.#sources.grpcRoutes.size }),
      ...(this.#sources.tlsRoutes === undefined ? {} : { tlsRoutes: this.#sources.tlsRoutes.size }),
    });
  }

  /** One pass as the control loop sees it. */
  async #passVerdict(trigger: Trigger, signal: AbortSignal): Promise<PassVerdict> {
    const result = await this.#pass(trigger, signal);
    if (result === undefined) return { kind: "skipped" };
    if (result.kind === "error") return { kind: "failed", message: result.message };
    const outcome = this.#lastOutcome;
    return outcome?.kind === "refused" && outcome.recheckAfterMs !== undefined
      ? { kind: "done", recheckAfterMs: outcome.recheckAfterMs }
      : { kind: "done" };
  }

  /** One recompute and, when needed, one sink call; `undefined` when the sink was not called. */
  async #pass(trigger: Trigger, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const lists = sourceLists(this.#sources);
    let desired: DesiredInput;
    try {
      desired = this.#recompute.run(lists);
      this.#observer?.desiredSet(
        desired.hosts.length,
        this.#recompute.rejected,
        this.#recompute.skippedWildcards,
      );
    } catch (error) {
      // A bug in the pure core: report it like a failed call, so it is retried and seen.
      const failure: SinkOutcome = {
        kind: "failed",
        message: `computing the desired set: ${errorMessage(error)}`,
      };
      return this.#record(failure, reconcileResult(failure), 0);
    }
    const seen = {
      trigger: triggerReasons(trigger),
      ingressesSeen: lists.ingresses.length,
      gatewaysSeen: lists.gateways.length,
      routesSeen: lists.routes.length,
      grpcRoutesSeen: lists.grpcRoutes?.length ?? 0,
      tlsRoutesSeen: lists.tlsRoutes?.length ?? 0,
      hosts: desired.hosts.length,
    };
    if (!sinkCallNeeded({ trigger, accepted: this.#accepted, desired })) {
      this.#log.debug("reconcile", { ...seen, result: "skipped: the desired set did not change" });
      this.#observer?.skipped();
      return undefined;
    }
    if (signal.aborted) return undefined;
    const started = this.#clock.now();
    const outcome = await callSink(this.#sink, desired, {
      signal,
      graceMs: this.#graceMs,
      clock: this.#clock,
      log: this.#log,
    });
    for (const notice of outcome.notices ?? []) {
      this.#log[notice.level](notice.message, { target: this.#sink.description, ...notice.properties });
    }
    this.#accepted = outcome.kind === "failed" ? undefined : desired;
    const result = reconcileResult(outcome);
    const durationMs = this.#clock.now() - started;
    this.#log.debug("reconcile", { ...seen, result: result.kind, durationSeconds: toSeconds(durationMs) });
    return this.#record(outcome, result, durationMs);
  }

  /** Records a sink call's outcome: status, the outcome's log line, the observer. */
  #record(outcome: SinkOutcome, result: ReconcileResult, durationMs: number): ReconcileResult {
    this.#last = result;
    this.#lastOutcome = outcome;
    const target = this.#sink.description;
    if (outcome.kind === "refused") {
      // The other hostnames were written: the sink works, one object on the cluster is in the way.
      if (outcome.scope === "some-hosts") this.#succeeded = true;
      const line = refusalLine(outcome, this.#refusalLogged);
      this.#refusalLogged = line.identity;
      this.#log[line.level](line.message, { target, ...line.properties });
    } else if (outcome.kind !== "failed") {
      this.#succeeded = true;
      this.#refusalLogged = undefined;
      const wording = changeWording(outcome, this.#previewLogged);
      this.#previewLogged = wording.preview;
      for (const line of wording.lines) this.#log[line.level](line.message, { target, ...line.properties });
    }
    this.#observer?.reconciled(result, durationMs);
    return result;
  }
}
