/**
 * A control loop's scheduling as one pure function: its state, whether work is pending and the
 * time decide its next step ({@linkcode nextLoopStep}); `ControlLoop` only carries steps out.
 *
 * A debounce window's end is fixed when it opens, so a steady storm of events still runs one pass
 * per window; changes during a pass cause exactly one more. The first pass, once every cache has
 * listed, runs at once: the lists are the whole state, not a burst to fold, and waiting a window
 * there only delayed the first write (by 100 ms, a fifth of the controller's 0.5 s goal; issue 32). A replica that does not lead keeps its
 * caches synced but follows; becoming the leader adds a `leadership` reason, so it acts at once.
 *
 * Pure: no I/O, no clock; `now` is an input.
 *
 * @module
 */

/**
 * The reasons the loop adds itself; a subcommand's trigger adds its own (all booleans, several
 * may be pending at once).
 */
export interface LoopTrigger {
  /** The periodic pass (`--resync`, kuberture's 2-minute requeue). */
  readonly resync: boolean;
  /** The previous pass failed. */
  readonly retry: boolean;
  /** This replica just became the leader: what it last did as leader may be stale. */
  readonly leadership: boolean;
  /** A hold-off the pass asked for has ended. */
  readonly recheck: boolean;
}

/** True when any reason is set. */
export function isPending(trigger: LoopTrigger): boolean {
  return Object.values(trigger).some((reason) => reason === true);
}

/** The loop's state. */
export type LoopState<T = LoopTrigger> =
  | { readonly kind: "new" }
  /** Some source or prerequisite caches have not listed yet; nothing is written meanwhile. */
  | { readonly kind: "waiting-for-sync"; readonly unsynced: readonly string[] }
  | { readonly kind: "idle" }
  /** Collecting changes until `until` (clock time), then reconciling once. */
  | { readonly kind: "debouncing"; readonly until: number }
  | { readonly kind: "reconciling"; readonly since: number; readonly trigger: T }
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
  /** Every cache has listed: say so, start the resync timer, and pass at `until` (now). */
  | { readonly kind: "start"; readonly until: number }
  | { readonly kind: "wait-for-trigger" }
  | { readonly kind: "debounce"; readonly until: number }
  | { readonly kind: "reconcile" }
  | { readonly kind: "back-off"; readonly until: number }
  /** This replica does not lead: wait in `following` for any notification. */
  | { readonly kind: "follow" };

/** The inputs of {@linkcode nextLoopStep}. */
export interface LoopStepInput<T extends LoopTrigger = LoopTrigger> {
  readonly state: LoopState<T>;
  readonly pending: T;
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
 * import assert from "node:assert/strict";
 * import { nextLoopStep } from "./loop_step.ts";
 *
 * const step = nextLoopStep({
 *   state: { kind: "idle" },
 *   pending: { resync: true, retry: false, leadership: false, recheck: false },
 *   now: 5,
 *   aborted: false,
 *   unsynced: [],
 *   debounceMs: 100,
 *   leading: true,
 * });
 * assert.deepEqual(step, { kind: "debounce", until: 105 });
 * ```
 */
export function nextLoopStep<T extends LoopTrigger>(input: LoopStepInput<T>): LoopStep {
  const { state, pending, now } = input;
  if (input.aborted) return { kind: "stop" };
  const window = { kind: "debounce", until: now + input.debounceMs } as const;
  switch (state.kind) {
    case "new":
    case "waiting-for-sync":
      return input.unsynced.length > 0
        ? { kind: "wait-for-sync", unsynced: input.unsynced }
        : { kind: "start", until: now };
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
