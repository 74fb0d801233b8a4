/**
 * The reconcile loop's scheduling as one pure function: its state, the pending triggers and the
 * time decide its next step ({@linkcode nextLoopStep}); `ReconcileLoop` only carries steps out.
 *
 * A debounce window's end is fixed when it opens, so a steady storm of events still reconciles
 * once per window; changes during a reconcile cause exactly one more. A replica that does not lead
 * keeps its caches synced but follows instead of calling the sink; becoming the leader adds a
 * `leadership` trigger, so it reconciles at once.
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
  /** A hold-off the sink asked for (`recheckAfterMs`) has ended: call the sink again. */
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

/** `pending` with the reasons of `more` added. */
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
  /** The last sink call failed; the next attempt is at `until` (clock time), `delayMs` after. */
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
  | { readonly kind: "stop" }
  /** Wait in `waiting-for-sync` for any store notification; `unsynced` names who is missing. */
  | { readonly kind: "wait-for-sync"; readonly unsynced: readonly string[] }
  /** Every cache has listed: say so, start the resync timer, and open the first window. */
  | { readonly kind: "start"; readonly until: number }
  | { readonly kind: "wait-for-trigger" }
  | { readonly kind: "debounce"; readonly until: number }
  | { readonly kind: "reconcile" }
  | { readonly kind: "back-off"; readonly until: number }
  /** This replica does not lead: wait in `following` for any notification. */
  | { readonly kind: "follow" };

/** The inputs of {@linkcode nextLoopStep}. */
export interface LoopStepInput {
  readonly state: LoopState;
  readonly pending: Trigger;
  /** Clock time, in the unit of the states' `until`. */
  readonly now: number;
  readonly aborted: boolean;
  /** Source and prerequisite kinds that have not listed yet (read before the first reconcile). */
  readonly unsynced: readonly string[];
  /** How long a window collects changes. */
  readonly debounceMs: number;
  /** False while another replica leads (leader election); always true without it. */
  readonly leading: boolean;
}

/**
 * Decides the loop's next step.
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
