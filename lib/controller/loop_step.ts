/**
 * The reconcile loop's scheduling, as data and one pure function: the loop's state
 * ({@linkcode LoopState}), what is pending ({@linkcode Trigger}) and the time decide what it does
 * next ({@linkcode nextLoopStep}). The {@linkcode ReconcileLoop} only carries the steps out.
 *
 * | state              | pending / time                           | step                                      |
 * |--------------------|------------------------------------------|-------------------------------------------|
 * | any                | the signal aborted                       | `stop`                                    |
 * | `new`, `waiting-…` | some source or prerequisite not listed   | `wait-for-sync` (any store notification)  |
 * | `new`, `waiting-…` | every cache listed                       | `start`: the first window opens now       |
 * | `idle`             | nothing pending                          | `wait-for-trigger`                        |
 * | `idle`             | a trigger pending                        | `debounce`: a window opens now            |
 * | `debouncing`       | before the window's end                  | `debounce` until the same end             |
 * | `debouncing`       | the window has ended                     | `reconcile` everything pending            |
 * | `reconciling`      | (the call returned) nothing pending      | `wait-for-trigger`                        |
 * | `reconciling`      | (the call returned) more came meanwhile  | `debounce`: one more, after a new window  |
 * | `backing-off`      | before the retry time                    | `back-off` until the same time            |
 * | `backing-off`      | the retry time has come                  | `debounce` (the retry is pending)         |
 * | synced, any        | this replica does not lead (election)    | `follow`: wait, caches warm, no sink call |
 * | `following`        | leading again, a trigger pending         | `debounce`: a window opens now            |
 *
 * A window's end is fixed when it opens and later changes do not move it, so a steady storm of
 * events still reconciles once per window. Changes during a reconcile stay pending and cause
 * exactly one more.
 *
 * With leader election, a replica that does not lead keeps its caches synced but never calls the
 * sink: whatever it was about to do, it follows instead. Becoming the leader adds a `leadership`
 * trigger, so the new leader reconciles at once, however stale what its sink last accepted.
 *
 * Pure: no I/O, no clock; `now` is an input.
 *
 * @module
 */

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
  /** This replica just became the leader: call the sink, its last accepted set may be stale. */
  readonly leadership: boolean;
  /** A hold-off the sink asked for (a refusal's `recheckAfterMs`) has ended: call the sink again. */
  readonly recheck: boolean;
}

/** The reasons of a {@linkcode Trigger}, in the order logs list them. */
export const TRIGGER_REASONS = [
  "sources",
  "target",
  "prerequisite",
  "resync",
  "retry",
  "leadership",
  "recheck",
] as const;

/** Nothing pending. */
export const NO_TRIGGER: Trigger = {
  sources: false,
  target: false,
  prerequisite: false,
  resync: false,
  retry: false,
  leadership: false,
  recheck: false,
};

/**
 * `pending` with the reasons of `more` added.
 *
 * @example
 * ```ts
 * import { mergeTriggers, NO_TRIGGER } from "./loop_step.ts";
 *
 * mergeTriggers(NO_TRIGGER, { target: true });
 * // { sources: false, target: true, prerequisite: false, resync: false, retry: false, leadership: false, recheck: false }
 * ```
 */
export function mergeTriggers(pending: Trigger, more: Partial<Trigger>): Trigger {
  return {
    sources: pending.sources || more.sources === true,
    target: pending.target || more.target === true,
    prerequisite: pending.prerequisite || more.prerequisite === true,
    resync: pending.resync || more.resync === true,
    retry: pending.retry || more.retry === true,
    leadership: pending.leadership || more.leadership === true,
    recheck: pending.recheck || more.recheck === true,
  };
}

/** The reasons set in `trigger`, comma-separated, for logs (`"sources,resync"`). */
export function triggerReasons(trigger: Trigger): string {
  return TRIGGER_REASONS.filter((name) => trigger[name]).join(",");
}

function isPending(trigger: Trigger): boolean {
  return TRIGGER_REASONS.some((name) => trigger[name]);
}

/** The loop's state. */
export type LoopState =
  | { readonly kind: "new" }
  /** Some source or prerequisite caches have not listed yet; nothing is written meanwhile. */
  | { readonly kind: "waiting-for-sync"; readonly unsynced: readonly string[] }
  | { readonly kind: "idle" }
  /** Collecting changes until `until` (clock time), then reconciling once. */
  | { readonly kind: "debouncing"; readonly until: number }
  | { readonly kind: "reconciling"; readonly since: number; readonly trigger: Trigger }
  /** The last sink call failed; the next attempt starts after `delayMs`, at `until` (clock time). */
  | {
    readonly kind: "backing-off";
    readonly delayMs: number;
    readonly until: number;
    readonly attempt: number;
    readonly error: string;
  }
  /** Leader election: another replica leads; caches stay warm, the sink is not called. */
  | { readonly kind: "following" }
  | { readonly kind: "stopped" };

/** What the loop does next. */
export type LoopStep =
  /** The signal aborted: return. */
  | { readonly kind: "stop" }
  /** Wait in `waiting-for-sync` for any store notification; `unsynced` names who is missing. */
  | { readonly kind: "wait-for-sync"; readonly unsynced: readonly string[] }
  /** Every cache has listed: say so, start the resync timer, and open the first window. */
  | { readonly kind: "start"; readonly until: number }
  /** Nothing pending: wait in `idle` for a trigger. */
  | { readonly kind: "wait-for-trigger" }
  /** Collect changes in `debouncing` until `until`. */
  | { readonly kind: "debounce"; readonly until: number }
  /** Take everything pending and reconcile it once. */
  | { readonly kind: "reconcile" }
  /** Wait in `backing-off` until `until`. */
  | { readonly kind: "back-off"; readonly until: number }
  /** This replica does not lead: wait in `following` for any notification. */
  | { readonly kind: "follow" };

/** The inputs of {@linkcode nextLoopStep}. */
export interface LoopStepInput {
  readonly state: LoopState;
  readonly pending: Trigger;
  /** Clock time, in the unit of the states' `until`. */
  readonly now: number;
  /** True once the loop's signal has aborted. */
  readonly aborted: boolean;
  /** Source and prerequisite kinds that have not listed yet (read before the first reconcile). */
  readonly unsynced: readonly string[];
  /** How long a window collects changes. */
  readonly debounceMs: number;
  /** False while another replica leads (leader election); always true without it. */
  readonly leading: boolean;
}

/**
 * Decides the loop's next step (see the module's table).
 *
 * @example
 * ```ts
 * import { nextLoopStep, NO_TRIGGER } from "./loop_step.ts";
 *
 * nextLoopStep({
 *   state: { kind: "idle" },
 *   pending: { ...NO_TRIGGER, sources: true },
 *   now: 5,
 *   aborted: false,
 *   unsynced: [],
 *   debounceMs: 100,
 *   leading: true,
 * }); // { kind: "debounce", until: 105 }
 * ```
 */
export function nextLoopStep(input: LoopStepInput): LoopStep {
  const { state, pending, now } = input;
  if (input.aborted) return { kind: "stop" };
  const window = { kind: "debounce", until: now + input.debounceMs } as const;
  switch (state.kind) {
    case "new":
    case "waiting-for-sync":
      return input.unsynced.length > 0
        ? { kind: "wait-for-sync", unsynced: input.unsynced }
        : { kind: "start", until: window.until };
    case "stopped":
      return { kind: "stop" };
  }
  if (!input.leading) return { kind: "follow" };
  switch (state.kind) {
    case "following":
    case "idle":
    case "reconciling":
      return isPending(pending) ? window : { kind: "wait-for-trigger" };
    case "debouncing":
      return now < state.until ? { kind: "debounce", until: state.until } : { kind: "reconcile" };
    case "backing-off":
      return now < state.until ? { kind: "back-off", until: state.until } : window;
  }
}
