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

import type { HostnameSources } from "../hostnames/desired_set.ts";
import type { Sink, SinkOutcome } from "./modes/sink.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";
import { type LoopState, type LoopStep, nextLoopStep, type Trigger, triggerReasons } from "./loop_step.ts";
import {
  type LoopStatus,
  type ReconcileObserver,
  type ReconcileResult,
  reconcileResult,
} from "./loop_status.ts";
import { ALWAYS_LEADING, type Leadership, type ReconcileLoopOptions } from "./reconcile_loop_options.ts";
import { RecheckTimer } from "./recheck_timer.ts";
import { ReconcileRetry } from "../daemon/retry_pacing.ts";
import { changeWording } from "./change_wording.ts";
import { refusalLine } from "./refusal_wording.ts";
import { type DesiredInput, sinkCallNeeded } from "./sink_call_needed.ts";
import { type LoopSources, TriggerInbox } from "./trigger_inbox.ts";
import { callSink } from "./call_sink.ts";
import { DesiredRecompute } from "./desired_recompute.ts";
import { toSeconds } from "../util/duration.ts";

const DEFAULTS = { debounceMs: 100, shutdownGraceMs: 10_000 } as const;

/** Runs reconciles for one sink until its signal aborts. */
export class ReconcileLoop {
  readonly #sources: LoopSources;
  readonly #inbox: TriggerInbox;
  readonly #sink: Sink;
  readonly #recompute: DesiredRecompute;
  readonly #resyncMs: number;
  readonly #debounceMs: number;
  readonly #graceMs: number;
  readonly #clock: Clock;
  readonly #retry: ReconcileRetry;
  readonly #recheck: RecheckTimer;
  readonly #log: Log;
  readonly #observer: ReconcileObserver | undefined;
  readonly #observe: ((state: LoopState) => void) | undefined;
  readonly #leadership: Leadership;

  #state: LoopState = { kind: "new" };
  #started = false;
  #last: ReconcileResult | undefined;
  #succeeded = false;
  #stoodBy = false;
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
    this.#inbox = new TriggerInbox({
      sources: options.sources,
      targets: options.targets ?? [],
      prerequisites: options.prerequisites ?? [],
    });
    this.#sink = options.sink;
    this.#recompute = new DesiredRecompute(options.desired, options.log);
    this.#resyncMs = options.resyncMs;
    this.#debounceMs = options.debounceMs ?? DEFAULTS.debounceMs;
    this.#graceMs = options.shutdownGraceMs ?? DEFAULTS.shutdownGraceMs;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log;
    this.#retry = new ReconcileRetry({
      clock: this.#clock,
      random: options.random ?? Math.random,
      log: options.log,
      target: options.sink.description,
      ...(options.backoff === undefined ? {} : { pacing: options.backoff }),
      ...(options.persistence === undefined ? {} : { persistence: options.persistence }),
    });
    this.#recheck = new RecheckTimer(this.#clock);
    this.#observer = options.observer;
    this.#observe = options.observe;
    this.#leadership = options.leadership ?? ALWAYS_LEADING;
  }

  /** Where the loop is and how the last reconcile went. */
  status(): LoopStatus {
    const failing = this.#retry.failing();
    return {
      state: this.#state,
      ...(this.#last === undefined ? {} : { last: this.#last }),
      ...(failing === undefined ? {} : { failing }),
      succeeded: this.#succeeded,
      stoodBy: this.#stoodBy,
      desiredHosts: this.#recompute.hosts,
      rejectedHosts: this.#recompute.rejected,
    };
  }

  /**
   * Waits for the caches to sync, then reconciles on every change and resync until `signal`
   * aborts, letting a call in flight finish. Failures are retried, never thrown. Call once.
   */
  async run(signal: AbortSignal): Promise<void> {
    await this.#drive(signal, false);
  }

  /**
   * `--once`: one sink call after the caches sync (no resync, no retry); its outcome, or
   * `undefined` when `signal` aborted first.
   */
  async once(signal: AbortSignal): Promise<SinkOutcome | undefined> {
    await this.#drive(signal, true);
    return this.#lastOutcome;
  }

  async #drive(signal: AbortSignal, once: boolean): Promise<void> {
    if (this.#started) throw new Error("Cannot run a reconcile loop twice");
    this.#started = true;
    const startedAt = this.#clock.now();
    const unsubscribeStores = this.#inbox.subscribe();
    // Gaining leadership is work (reconcile at once); losing it only needs the loop to look again.
    const unsubscribeLeadership = this.#leadership.subscribe(() =>
      this.#inbox.add(this.#leadership.isLeader() ? { leadership: true } : {})
    );
    let resync: Promise<void> | undefined;
    try {
      while (true) {
        const step = nextLoopStep({
          state: this.#state,
          pending: this.#inbox.pending,
          now: this.#clock.now(),
          aborted: signal.aborted,
          unsynced: this.#inbox.unsynced(),
          debounceMs: this.#debounceMs,
          leading: this.#leadership.isLeader(),
        });
        if (step.kind === "stop") break;
        if (step.kind === "start") resync = this.#start(step.until, startedAt, once ? undefined : signal);
        else if (once && step.kind === "reconcile") {
          await this.#reconcile(signal, { retry: false });
          break;
        } else await this.#carryOut(step, signal);
      }
    } finally {
      await resync;
      await this.#recheck.stop();
      unsubscribeStores();
      unsubscribeLeadership();
      this.#enter({ kind: "stopped" });
    }
  }

  /** Every cache has listed: log it, open the first window, run the resync timer (not for once). */
  #start(until: number, startedAt: number, resyncUntil: AbortSignal | undefined): Promise<void> {
    this.#log.info("caches synced", {
      durationSeconds: toSeconds(this.#clock.now() - startedAt),
      ingresses: this.#sources.ingresses.size,
      ...(this.#sources.gateways === undefined ? {} : { gateways: this.#sources.gateways.size }),
      ...(this.#sources.routes === undefined ? {} : { routes: this.#sources.routes.size }),
      ...(this.#sources.grpcRoutes === undefined ? {} : { grpcRoutes: this.#sources.grpcRoutes.size }),
      ...(this.#sources.tlsRoutes === undefined ? {} : { tlsRoutes: this.#sources.tlsRoutes.size }),
    });
    this.#inbox.add({ sources: true });
    this.#enter({ kind: "debouncing", until });
    return resyncUntil === undefined ? Promise.resolve() : this.#resyncTimer(resyncUntil);
  }

  async #carryOut(step: Exclude<LoopStep, { kind: "stop" | "start" }>, signal: AbortSignal): Promise<void> {
    switch (step.kind) {
      case "wait-for-sync":
        // Any notification may be the sync; changes before it are not work yet.
        this.#enter({ kind: "waiting-for-sync", unsynced: step.unsynced });
        return await this.#inbox.next(signal);
      case "wait-for-trigger":
        this.#enter({ kind: "idle" });
        return await this.#inbox.next(signal);
      case "debounce": {
        const state = this.#state;
        if (state.kind !== "debouncing" || state.until !== step.until) {
          this.#enter({ kind: "debouncing", until: step.until });
        }
        await this.#clock.sleep(step.until - this.#clock.now(), signal);
        return;
      }
      case "reconcile":
        return await this.#reconcile(signal, { retry: true });
      case "back-off":
        await this.#clock.sleep(step.until - this.#clock.now(), signal);
        return;
      case "follow":
        if (this.#state.kind !== "following") {
          // What the sink accepted as leader may be stale when this replica leads again.
          this.#accepted = undefined;
          this.#retry.reset();
          this.#stoodBy = true;
          this.#enter({ kind: "following" });
        }
        // The fence can close without a notification (a missed renewal): look again by then.
        return await this.#inbox.next(signal);
    }
  }

  #enter(state: LoopState): void {
    this.#state = state;
    this.#observe?.(state);
  }

  async #resyncTimer(signal: AbortSignal): Promise<void> {
    if (this.#resyncMs <= 0) return;
    while (await this.#clock.sleep(this.#resyncMs, signal)) this.#inbox.add({ resync: true });
  }

  /** Reconciles everything pending; a failure backs off, or without `retry` is only logged. */
  async #reconcile(signal: AbortSignal, options: { readonly retry: boolean }): Promise<void> {
    const trigger = this.#inbox.take();
    this.#enter({ kind: "reconciling", since: this.#clock.now(), trigger });
    const result = await this.#pass(trigger, signal);
    if (result?.kind !== "error") {
      if (result !== undefined) this.#retry.succeeded();
      return;
    }
    // An abandoned call at shutdown is no failure.
    if (signal.aborted) return;
    if (!this.#leadership.isLeader()) {
      // The write fence stopped the call: another replica leads now, and it writes.
      this.#log.info("a reconcile stopped: this replica no longer leads; it stands by", {
        target: this.#sink.description,
        error: result.message,
      });
      return;
    }
    if (!options.retry) {
      this.#log.error("reconcile failed", { target: this.#sink.description, error: result.message });
      return;
    }
    const delayMs = this.#retry.failed(result.message);
    this.#inbox.add({ retry: true });
    this.#enter({
      kind: "backing-off",
      delayMs,
      until: this.#clock.now() + delayMs,
      attempt: this.#retry.attempt,
      error: result.message,
    });
  }

  /** One recompute and, when needed, one sink call; `undefined` when the sink was not called. */
  async #pass(trigger: Trigger, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const lists: HostnameSources = {
      ingresses: this.#sources.ingresses.list(),
      gateways: this.#sources.gateways?.list() ?? [],
      routes: this.#sources.routes?.list() ?? [],
      grpcRoutes: this.#sources.grpcRoutes?.list() ?? [],
      tlsRoutes: this.#sources.tlsRoutes?.list() ?? [],
    };
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
    if (outcome.kind === "refused" && outcome.recheckAfterMs !== undefined) {
      // A hold-off: look again when it ends, not at whichever resync comes after it.
      this.#recheck.schedule(outcome.recheckAfterMs, {
        signal,
        fire: () => this.#inbox.add({ recheck: true }),
      });
    }
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
