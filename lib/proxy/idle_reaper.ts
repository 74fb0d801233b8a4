/**
 * Closes connections on which nothing moved for `--idle-timeout` (like Envoy's TCP idle timeout).
 * The relay only bumps a counter; a sweep compares it, so the hot path never reads the clock.
 *
 * Effects: sleeps through the injected clock; expiring a connection is the callback's job.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { Activity } from "./relay.ts";

interface Tracked {
  readonly activity: Activity;
  readonly expire: () => void;
  seen: number;
  quietMs: number;
}

/** Expires connections silent for 1× to 1.25× the timeout (a sweep every quarter of it). */
export class IdleReaper {
  readonly #clock: Clock;
  readonly #timeoutMs: number;
  readonly #intervalMs: number;
  readonly #tracked = new Set<Tracked>();

  /** Creates a reaper for `timeoutMs` of silence; 0 disables it. */
  constructor(clock: Clock, timeoutMs: number) {
    this.#clock = clock;
    this.#timeoutMs = timeoutMs;
    this.#intervalMs = Math.min(Math.max(timeoutMs / 4, 250), 60_000);
  }

  /** Starts tracking; the returned function stops it (call it when the connection ends). */
  track(activity: Activity, expire: () => void): () => void {
    if (this.#timeoutMs === 0) return () => {};
    const entry: Tracked = { activity, expire, seen: activity.count, quietMs: 0 };
    this.#tracked.add(entry);
    return () => this.#tracked.delete(entry);
  }

  /** Runs one sweep as if `elapsedMs` had passed since the previous one. */
  sweep(elapsedMs: number): void {
    for (const entry of this.#tracked) {
      if (entry.activity.count !== entry.seen) {
        entry.seen = entry.activity.count;
        entry.quietMs = 0;
        continue;
      }
      entry.quietMs += elapsedMs;
      if (entry.quietMs >= this.#timeoutMs) {
        this.#tracked.delete(entry);
        entry.expire();
      }
    }
  }

  /** Sweeps until the signal aborts. Resolves at once when the timeout is 0 (disabled). */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#timeoutMs === 0) return;
    let last = this.#clock.now();
    while (await this.#clock.sleep(this.#intervalMs, signal)) {
      const now = this.#clock.now();
      this.sweep(now - last);
      last = now;
    }
  }
}
