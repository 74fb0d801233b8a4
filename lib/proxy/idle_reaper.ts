/**
 * Closes connections on which nothing has moved for `--idle-timeout`: a client that vanished
 * without a FIN, a half-closed connection whose other side never finishes, or a backend that
 * stopped reading. Like Envoy's TCP proxy idle timeout (1 hour by default there too).
 *
 * The relay only bumps a counter per read and write; this sweep compares each connection's
 * counter with what it saw last time, so the hot path never reads the clock.
 *
 * Effects: sleeps through the injected clock; expiring a connection is the callback's job.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import type { Activity } from "./relay.ts";

/** One tracked connection. */
interface Tracked {
  readonly activity: Activity;
  readonly expire: () => void;
  seen: number;
  quietMs: number;
}

/**
 * Tracks connections and expires the ones idle for longer than the timeout. The sweep runs
 * every quarter of the timeout (between 250 ms and 1 minute), so a connection is closed after
 * between 1× and 1.25× the timeout of silence.
 *
 * @example
 * ```ts
 * import { systemClock } from "../util/clock.ts";
 * import { IdleReaper } from "./idle_reaper.ts";
 *
 * const stop = new AbortController();
 * const reaper = new IdleReaper(systemClock, 3_600_000);
 * const sweeping = reaper.run(stop.signal);
 * const connection = new AbortController();
 * const activity = { count: 0 }; // the relay bumps it on every read and write
 * const untrack = reaper.track(activity, () => connection.abort("idle"));
 * // … relay until the connection ends …
 * untrack();
 * stop.abort();
 * await sweeping;
 * ```
 */
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
