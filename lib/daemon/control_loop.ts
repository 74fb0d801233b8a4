/**
 * The one control loop of the long-running subcommands (the controller's reconcile loop and
 * kuberture's passes run on it): level-based and coalescing, silent until its caches have listed,
 * gated by leadership, paced after failures. A cache change or a timer only records a reason; the
 * loop then runs one pass over everything, so a missed, duplicated or reordered event leaves
 * nothing stale. The schedule is the pure `nextLoopStep`; what a pass does is the caller's.
 *
 * Effects: timers through the injected clock, subscriptions the caller wires, log lines for
 * failures (through `ReconcileRetry`) and for a pass the write fence stopped.
 *
 * @module
 */

import { errorMessage } from "../util/error_message.ts";
import type { Clock } from "../util/clock.ts";
import type { Log } from "../util/logging.ts";
import { type LoopState, type LoopStep, type LoopTrigger, nextLoopStep } from "./loop_step.ts";
import {
  type FailingRun,
  type FailureStreakOptions,
  ReconcileRetry,
  type RetryPacingOptions,
} from "./retry_pacing.ts";

/** Whether this replica may write now, and how to hear when that changes (a `LeaseElector`). */
export interface Leadership {
  isLeader(): boolean;
  /** Calls `listener` after every change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void;
}

/** Without leader election this replica always leads. */
export const ALWAYS_LEADING: Leadership = { isLeader: () => true, subscribe: () => () => {} };

/** What one pass answered. */
export type PassVerdict =
  /** It went through; `recheckAfterMs`: run again when a hold-off it met ends. */
  | { readonly kind: "done"; readonly recheckAfterMs?: number }
  | { readonly kind: "failed"; readonly message: string }
  /** It found nothing to do: neither a success nor a failure for the retry pacing. */
  | { readonly kind: "skipped" };

/** What a {@linkcode ControlLoop} runs with. */
export interface ControlLoopOptions<T extends LoopTrigger> {
  /** Nothing pending: every reason false. */
  readonly none: T;
  /** The reasons of the first pass, once every cache has listed. */
  readonly first: Partial<T>;
  /** What the passes act on, logged as `target`. */
  readonly target: string;
  /** The caches the first pass waits for that have not listed yet, by name. */
  readonly unsynced: () => readonly string[];
  /** Wires cache changes to reasons; returns the unsubscribe. */
  readonly subscribe: (add: (reasons: Partial<T>) => void) => () => void;
  readonly pass: (trigger: T, signal: AbortSignal) => Promise<PassVerdict>;
  /** Retry delays after a failed pass. @default {RETRY_PACING: 1–1.5 s doubling to 2 min} */
  readonly pacing?: RetryPacingOptions;
  /** When failures turn from WARN to ERROR. @default {3 attempts and 30 s} */
  readonly persistence?: FailureStreakOptions;
  /** Numbers in [0, 1) for the backoff jitter. @default {Math.random} */
  readonly random?: () => number;
  readonly log: Log;
  readonly clock: Clock;
  /** How long changes are collected before a pass. */
  readonly debounceMs: number;
  /** The period of the `resync` reason; 0 turns it off. */
  readonly resyncMs: number;
  readonly leadership?: Leadership;
  /** Every cache has listed, `durationMs` after the run started. */
  readonly onStart?: (durationMs: number) => void;
  /** This replica stopped leading (what it accepted as leader may be stale when it leads again). */
  readonly onFollow?: () => void;
  /** Called after every state change (tests, tracing). Must return quickly. */
  readonly observe?: (state: LoopState<T>) => void;
}

/** `pending` with the reasons set in `more` added. */
export function addReasons<T extends LoopTrigger>(pending: T, more: Partial<T>): T {
  const added = Object.fromEntries(Object.entries(more).filter(([, set]) => set === true));
  return { ...pending, ...added };
}

/** Runs passes until its signal aborts (see the module documentation). */
export class ControlLoop<T extends LoopTrigger> {
  readonly #options: ControlLoopOptions<T>;
  readonly #leadership: Leadership;
  readonly #recheck: RecheckTimer;
  readonly #retry: ReconcileRetry;
  #state: LoopState<T> = { kind: "new" };
  #pending: T;
  #wake: (() => void) | undefined;
  #started = false;
  #stoodBy = false;

  /** Sets up; nothing happens until {@linkcode run}. */
  constructor(options: ControlLoopOptions<T>) {
    this.#options = options;
    this.#leadership = options.leadership ?? ALWAYS_LEADING;
    this.#recheck = new RecheckTimer(options.clock);
    this.#retry = new ReconcileRetry({
      clock: options.clock,
      random: options.random ?? Math.random,
      log: options.log,
      target: options.target,
      ...(options.pacing === undefined ? {} : { pacing: options.pacing }),
      ...(options.persistence === undefined ? {} : { persistence: options.persistence }),
    });
    this.#pending = options.none;
  }

  /** Where the loop is. */
  get state(): LoopState<T> {
    return this.#state;
  }

  /** The current run of failed passes; absent when the last pass did not fail. */
  failing(): FailingRun | undefined {
    return this.#retry.failing();
  }

  /** True once this replica stood by while another led; never goes back. */
  get stoodBy(): boolean {
    return this.#stoodBy;
  }

  /** Records reasons for a pass and wakes the loop. */
  add(reasons: Partial<T>): void {
    this.#pending = addReasons(this.#pending, reasons);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /**
   * Waits for the caches, then runs a pass on every reason until `signal` aborts; with `once`,
   * one pass (no resync, no retry). Failures are retried, never thrown. Call once.
   */
  async run(signal: AbortSignal, options: { readonly once?: boolean } = {}): Promise<void> {
    if (this.#started) throw new Error("Cannot run a control loop twice");
    this.#started = true;
    const once = options.once === true;
    const startedAt = this.#options.clock.now();
    const unsubscribeCaches = this.#options.subscribe((reasons) => this.add(reasons));
    // Gaining leadership is work (a pass at once); losing it only needs the loop to look again.
    const leadershipReason = { leadership: true } as Partial<T>;
    const unsubscribeLeadership = this.#leadership.subscribe(() =>
      this.add(this.#leadership.isLeader() ? leadershipReason : {})
    );
    let resync: Promise<void> | undefined;
    try {
      while (true) {
        const step = nextLoopStep({
          state: this.#state,
          pending: this.#pending,
          now: this.#options.clock.now(),
          aborted: signal.aborted,
          unsynced: this.#options.unsynced(),
          debounceMs: this.#options.debounceMs,
          leading: this.#leadership.isLeader(),
        });
        if (step.kind === "stop") break;
        if (step.kind === "start") {
          this.#options.onStart?.(this.#options.clock.now() - startedAt);
          this.add(this.#options.first);
          this.#enter({ kind: "debouncing", until: step.until });
          resync = once ? undefined : this.#resyncTimer(signal);
        } else if (once && step.kind === "reconcile") {
          await this.#pass(signal, false);
          break;
        } else await this.#carryOut(step, signal);
      }
    } finally {
      await resync;
      await this.#recheck.stop();
      unsubscribeCaches();
      unsubscribeLeadership();
      this.#wake = undefined;
      this.#enter({ kind: "stopped" });
    }
  }

  async #carryOut(step: Exclude<LoopStep, { kind: "stop" | "start" }>, signal: AbortSignal): Promise<void> {
    const clock = this.#options.clock;
    switch (step.kind) {
      case "wait-for-sync":
        // Any notification may be the sync; changes before it are not work yet.
        this.#enter({ kind: "waiting-for-sync", unsynced: step.unsynced });
        return await this.#next(signal);
      case "wait-for-trigger":
        this.#enter({ kind: "idle" });
        return await this.#next(signal);
      case "debounce": {
        const state = this.#state;
        if (state.kind !== "debouncing" || state.until !== step.until) {
          this.#enter({ kind: "debouncing", until: step.until });
        }
        await clock.sleep(step.until - clock.now(), signal);
        return;
      }
      case "reconcile":
        return await this.#pass(signal, true);
      case "back-off":
        await clock.sleep(step.until - clock.now(), signal);
        return;
      case "follow":
        if (this.#state.kind !== "following") {
          this.#options.onFollow?.();
          this.#retry.reset();
          this.#stoodBy = true;
          this.#enter({ kind: "following" });
        }
        // The fence can close without a notification (a missed renewal): look again by then.
        return await this.#next(signal);
    }
  }

  /** One pass over everything pending; a failure backs off, or without `retry` is only logged. */
  async #pass(signal: AbortSignal, retry: boolean): Promise<void> {
    const { clock, log, target } = this.#options;
    const trigger = this.#pending;
    this.#pending = this.#options.none;
    this.#enter({ kind: "reconciling", since: clock.now(), trigger });
    let verdict: PassVerdict;
    try {
      verdict = await this.#options.pass(trigger, signal);
    } catch (error) {
      // A pass the shutdown cut short may reject with the signal's reason (a writer's contract):
      // no failure, and `run` must not end in a rejection (the process would exit 1). Any other
      // rejection is a bug in the pass: a failed pass, said and retried, never a stalled loop.
      if (signal.aborted) return;
      verdict = { kind: "failed", message: `the pass threw: ${errorMessage(error)}` };
    }
    if (verdict.kind === "done" && verdict.recheckAfterMs !== undefined) {
      // A hold-off: look again when it ends, not at whichever resync comes after it.
      const recheck = { recheck: true } as Partial<T>;
      this.#recheck.schedule(verdict.recheckAfterMs, { signal, fire: () => this.add(recheck) });
    }
    if (verdict.kind !== "failed") {
      if (verdict.kind === "done") this.#retry.succeeded();
      return;
    }
    // An abandoned pass at shutdown is no failure.
    if (signal.aborted) return;
    if (!this.#leadership.isLeader()) {
      // The write fence stopped the pass: another replica leads now, and it writes.
      log.info("a reconcile stopped: this replica no longer leads; it stands by", {
        target,
        error: verdict.message,
      });
      return;
    }
    if (!retry) {
      log.error("reconcile failed", { target, error: verdict.message });
      return;
    }
    const delayMs = this.#retry.failed(verdict.message);
    this.add({ retry: true } as Partial<T>);
    this.#enter({
      kind: "backing-off",
      delayMs,
      until: clock.now() + delayMs,
      attempt: this.#retry.attempt,
      error: verdict.message,
    });
  }

  #next(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#wake = undefined;
        resolve();
      };
      this.#wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  #enter(state: LoopState<T>): void {
    this.#state = state;
    this.#options.observe?.(state);
  }

  async #resyncTimer(signal: AbortSignal): Promise<void> {
    if (this.#options.resyncMs <= 0) return;
    const resync = { resync: true } as Partial<T>;
    while (await this.#options.clock.sleep(this.#options.resyncMs, signal)) this.add(resync);
  }
}

/** One pending "call the sink again at the end of the hold-off"; scheduling again replaces it. */
export class RecheckTimer {
  readonly #clock: Clock;
  #current: { readonly cancel: AbortController; readonly done: Promise<void> } | undefined;

  /** No timer runs until {@linkcode schedule}. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Calls `fire` after `afterMs` unless `signal` aborts or another schedule replaces it first. */
  schedule(afterMs: number, on: { readonly signal: AbortSignal; readonly fire: () => void }): void {
    this.#current?.cancel.abort();
    const cancel = new AbortController();
    const done = this.#clock.sleep(afterMs, AbortSignal.any([on.signal, cancel.signal])).then((slept) => {
      if (slept) on.fire();
    });
    this.#current = { cancel, done };
  }

  /** Cancels a pending timer and waits until it is gone. */
  async stop(): Promise<void> {
    const current = this.#current;
    this.#current = undefined;
    current?.cancel.abort();
    await current?.done;
  }
}
