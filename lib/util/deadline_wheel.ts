/**
 * A timing wheel: many deadlines share one clock tick instead of one runtime timer each, so the
 * proxy's per-dial deadline costs a `Set` insert and delete on the hot path, not two timer ops.
 *
 * Deadlines round up to the next tick: never early, at most one tick late when driven every tick.
 *
 * Pure: no I/O and no clock of its own; time is what the caller passes in.
 *
 * @module
 */

/** One deadline in a wheel; pass it to {@linkcode DeadlineWheel.cancel}. */
export interface DeadlineEntry<T> {
  /** What the caller attached; handed back when the deadline passes. */
  readonly item: T;
  /** The slot the entry sits in (its deadline rounded up to a tick). */
  readonly slot: number;
}

/**
 * Deadlines bucketed by tick. Entries fire in slot order; within a slot, in the order added.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { DeadlineWheel } from "./deadline_wheel.ts";
 *
 * const wheel = new DeadlineWheel<string>(100);
 * const entry = wheel.add(1_250, "dial a");
 * assert.equal(entry.slot, 13); // rounded up to 1,300
 * wheel.add(1_400, "dial b");
 * wheel.cancel(entry); // "dial a" connected in time
 * const due: string[] = [];
 * wheel.expire(1_450, (item) => due.push(item));
 * assert.deepEqual(due, ["dial b"]);
 * ```
 */
export class DeadlineWheel<T> {
  /** Length of one tick in the caller's time unit. */
  readonly tick: number;
  readonly #slots = new Map<number, Set<DeadlineEntry<T>>>();
  #size = 0;
  /** Every slot at or below this has expired. */
  #expiredThrough = -Infinity;

  /** Creates a wheel whose deadlines are rounded up to multiples of `tick` (> 0). */
  constructor(tick: number) {
    if (!(tick > 0) || !Number.isFinite(tick)) {
      throw new RangeError(`Cannot create deadline wheel: tick must be a positive number, got ${tick}`);
    }
    this.tick = tick;
  }

  /** Entries waiting. */
  get size(): number {
    return this.#size;
  }

  /** Adds a deadline; one already past lands in the next slot to expire. */
  add(deadline: number, item: T): DeadlineEntry<T> {
    const slot = Math.max(Math.ceil(deadline / this.tick), this.#expiredThrough + 1);
    const entry: DeadlineEntry<T> = { item, slot };
    let bucket = this.#slots.get(slot);
    if (bucket === undefined) {
      bucket = new Set();
      this.#slots.set(slot, bucket);
    }
    bucket.add(entry);
    this.#size += 1;
    return entry;
  }

  /** Removes an entry that has not fired; cancelling one that fired or was cancelled does nothing. */
  cancel(entry: DeadlineEntry<T>): void {
    const bucket = this.#slots.get(entry.slot);
    if (bucket === undefined || !bucket.delete(entry)) return;
    this.#size -= 1;
    if (bucket.size === 0) this.#slots.delete(entry.slot);
  }

  /** Fires every entry due at `now`, soonest first; returns how many. `fire` may add and cancel. */
  expire(now: number, fire: (item: T) => void): number {
    const through = Math.floor(now / this.tick);
    if (through <= this.#expiredThrough) return 0;
    let fired = 0;
    const due = [...this.#slots.keys()].filter((slot) => slot <= through).sort((a, b) => a - b);
    this.#expiredThrough = through;
    for (const slot of due) {
      const bucket = this.#slots.get(slot);
      if (bucket === undefined) continue;
      // Kept in place while firing, so a callback can cancel a later entry of the same slot.
      for (const entry of bucket) {
        bucket.delete(entry);
        this.#size -= 1;
        fired += 1;
        fire(entry.item);
      }
      this.#slots.delete(slot);
    }
    return fired;
  }
}
