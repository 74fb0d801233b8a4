/**
 * One open watch stream with a client-side idle timeout (server `timeoutSeconds` plus a margin),
 * since a silently stalled connection would leave the cache stale forever (kube-rs
 * `next_with_idle_timeout`). One timer sleep per quiet period, not per event.
 *
 * A server that sends bookmarks tells us how often to expect them: the gaps between two bookmarks
 * of a stream are kept in a {@linkcode BookmarkPace} that outlives the stream (the runtimes share
 * one among every watch on the same API server, whose bookmark frequency is its own setting), and
 * a silence of `factor` times the longest gap (at least `floorMs`, at most the idle timeout) is a
 * stall too. A watch the apiserver bookmarks about once a minute is then caught within a few
 * minutes instead of up to ten, and so is a stream opened since (a stall right after a reconnect).
 * A server that never bookmarks keeps the idle timeout. The longest gap is kept, not the latest,
 * so a quick pair of bookmarks cannot tighten the bound; the gap before a stream's first bookmark
 * is not counted (when a server sends it is its own affair). A stream that has not bookmarked
 * yet may be young for the server too: when one is cut short by the pace, the next young streams
 * get twice that silence (an allowance), until a young stream's first bookmark comes within the
 * pace's bound again. So a server whose first bookmark comes late cannot keep every new stream cut
 * short, and the streams that did bookmark keep the bound the pace gives them.
 *
 * A stream that ignores its abort is abandoned after a grace period so the reflector cannot hang
 * on it; {@linkcode WatchHandle.abandoned} then says so.
 *
 * @module
 */

import type { ListWatcher, WatchOptions } from "../kube/list_watch.ts";
import type { WatchEvent } from "../kube/list_watch.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { Clock } from "../util/clock.ts";

/** Why the watch was stopped from our side; `open` while it runs (or the server ended it). */
export type WatchStop = "open" | "idle-timeout" | "shutdown";

/** What {@linkcode WatchHandle.open} needs besides the list-watcher. */
export interface WatchHandleOptions {
  readonly clock: Clock;
  /** Abort after this long without an event. */
  readonly idleMs: number;
  /** Shutdown: aborts the watch. */
  readonly signal: AbortSignal;
  /** How long a stream may take to end after its abort before it is abandoned. */
  readonly abandonAfterMs: number;
  /** The silence bound learnt from bookmarks; without it only `idleMs` applies. */
  readonly bookmarkStall?: BookmarkStall;
  /** What earlier streams learnt of the server's bookmark pace; this stream adds to it. */
  readonly pace?: BookmarkPace;
}

/** The longest gap seen between two bookmarks, kept across streams (and shared among reflectors). */
export class BookmarkPace {
  #gapMs: number | undefined;
  #youngAllowanceMs = 0;
  readonly #onTightened = new Set<() => void>();

  /** `undefined` until two bookmarks of one stream have come. */
  get gapMs(): number | undefined {
    return this.#gapMs;
  }

  /** The least silence a stream without a bookmark of its own is allowed; 0 unless one was cut short. */
  get youngAllowanceMs(): number {
    return this.#youngAllowanceMs;
  }

  /** Notes a gap between two bookmarks; the first one known wakes every stream's watchdog. */
  observe(gapMs: number): void {
    const first = this.#gapMs === undefined;
    this.#gapMs = Math.max(this.#gapMs ?? 0, gapMs);
    if (first) this.#tightened();
  }

  /** A stream without a bookmark was cut short after `silenceMs`: young streams get twice that. */
  youngCutShort(silenceMs: number): void {
    this.#youngAllowanceMs = Math.max(this.#youngAllowanceMs, 2 * silenceMs);
  }

  /** A stream's first bookmark came `delayMs` after it opened: in time, young streams need no allowance. */
  firstBookmark(delayMs: number, boundMs: number): void {
    if (this.#youngAllowanceMs === 0 || delayMs >= boundMs) return;
    this.#youngAllowanceMs = 0;
    this.#tightened();
  }

  /** Calls `wake` when a stream's bound may have shrunk; returns the unsubscribe. */
  onTightened(wake: () => void): () => void {
    this.#onTightened.add(wake);
    return () => this.#onTightened.delete(wake);
  }

  #tightened(): void {
    for (const wake of [...this.#onTightened]) wake();
  }
}

/** How a silence is judged once the stream's bookmark pace is known. */
export interface BookmarkStall {
  /** A silence longer than this many times the longest gap between bookmarks is a stall. */
  readonly factor: number;
  /** Never shorter than this, so a quick pair of bookmarks cannot make the bound hair-trigger. */
  readonly floorMs: number;
}

/** An open watch. Call {@linkcode close} once it has ended or is no longer wanted. */
export class WatchHandle<T extends KubeObject> {
  /** `clock.now()` when the watch was opened. */
  readonly openedAt: number;
  readonly #clock: Clock;
  readonly #idleMs: number;
  readonly #abandonAfterMs: number;
  readonly #bookmarkStall: BookmarkStall | undefined;
  readonly #pace: BookmarkPace;
  /** When this stream's last bookmark came; `undefined` before its first. */
  #lastBookmarkAt: number | undefined;
  #stalledAfterMs: number | undefined;
  /** Wakes the watchdog early when the silence bound shrinks. */
  #nap: AbortController | undefined;
  /** Ends the read in progress early when the stream ignores its abort. */
  #abandonRead: ((result: IteratorResult<WatchEvent<T>>) => void) | undefined;
  #abandoned = false;
  #abandonArmed = false;
  readonly #controller = new AbortController();
  readonly #watchdogStop = new AbortController();
  readonly #outer: AbortSignal;
  readonly #onShutdown = () => this.#stopWith("shutdown");
  #iterator: AsyncIterator<WatchEvent<T>> | undefined;
  #openError: { readonly error: unknown } | undefined;
  #lastActivity: number;
  #stop: WatchStop = "open";
  #watchdog: Promise<void>;

  private constructor(options: WatchHandleOptions) {
    this.#clock = options.clock;
    this.#idleMs = options.idleMs;
    this.#abandonAfterMs = options.abandonAfterMs;
    this.#bookmarkStall = options.bookmarkStall;
    this.#pace = options.pace ?? new BookmarkPace();
    this.#outer = options.signal;
    this.openedAt = this.#clock.now();
    this.#lastActivity = this.openedAt;
    if (this.#outer.aborted) this.#stopWith("shutdown");
    else this.#outer.addEventListener("abort", this.#onShutdown, { once: true });
    this.#watchdog = this.#watchIdle();
  }

  /** Starts the watch and its idle timer; an error opening it is thrown by {@linkcode next}. */
  static open<T extends KubeObject>(
    listWatcher: ListWatcher<T>,
    watch: Omit<WatchOptions, "signal">,
    options: WatchHandleOptions,
  ): WatchHandle<T> {
    const handle = new WatchHandle<T>(options);
    try {
      handle.#iterator = listWatcher.watch({ ...watch, signal: handle.#controller.signal })
        [Symbol.asyncIterator]();
    } catch (error) {
      handle.#openError = { error };
    }
    return handle;
  }

  get stop(): WatchStop {
    return this.#stop;
  }

  /** The silence that ended the stream as stalled; `undefined` unless it did. */
  get stalledAfterMs(): number | undefined {
    return this.#stalledAfterMs;
  }

  /** The silence after which the stream counts as stalled, as it stands now. */
  #silenceLimitMs(): number {
    const bound = this.#paceBoundMs();
    if (bound === undefined) return this.#idleMs;
    const young = this.#lastBookmarkAt === undefined ? this.#pace.youngAllowanceMs : 0;
    return Math.min(this.#idleMs, Math.max(bound, young));
  }

  /** What the pace alone allows: `factor` gaps, at least the floor; `undefined` without a pace. */
  #paceBoundMs(): number | undefined {
    const stall = this.#bookmarkStall;
    const gapMs = this.#pace.gapMs;
    if (stall === undefined || gapMs === undefined) return undefined;
    return Math.max(stall.floorMs, stall.factor * gapMs);
  }

  /** True when the stream ignored its abort for the grace period and was left behind. */
  get abandoned(): boolean {
    return this.#abandoned;
  }

  /** The next event; `done` when the server ended the stream. Rejects like the stream does. */
  async next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.#openError !== undefined) throw this.#openError.error;
    if (this.#iterator === undefined || this.#abandoned) return { done: true, value: undefined };
    const read = this.#iterator.next();
    // Both promises are per read, so nothing accumulates on a long-lived promise.
    const abandon = Promise.withResolvers<IteratorResult<WatchEvent<T>>>();
    this.#abandonRead = abandon.resolve;
    if (this.#stop !== "open") this.#armAbandon();
    try {
      const result = await Promise.race([read, abandon.promise]);
      this.#lastActivity = this.#clock.now();
      if (result.done !== true && result.value.type === "BOOKMARK") this.#learnPace();
      return result;
    } finally {
      this.#abandonRead = undefined;
    }
  }

  /** Aborts the stream, stops the idle timer and releases the connection; idempotent. */
  async close(): Promise<void> {
    this.#outer.removeEventListener("abort", this.#onShutdown);
    this.#controller.abort(new DOMException("watch closed", "AbortError"));
    this.#watchdogStop.abort();
    await this.#watchdog;
    const iterator = this.#iterator;
    this.#iterator = undefined;
    // An abandoned stream still has a read pending; `return()` would wait behind it forever.
    if (iterator !== undefined && !this.#abandoned) {
      try {
        await iterator.return?.();
      } catch {
        // The stream already failed; its error was handled by whoever read it.
      }
    }
  }

  #stopWith(stop: Exclude<WatchStop, "open">): void {
    if (this.#stop !== "open") return;
    this.#stop = stop;
    this.#controller.abort(new DOMException(`watch stopped: ${stop}`, "AbortError"));
    if (this.#abandonRead !== undefined) this.#armAbandon();
  }

  #armAbandon(): void {
    if (this.#abandonArmed) return;
    this.#abandonArmed = true;
    void this.#abandonAfterGrace();
  }

  async #abandonAfterGrace(): Promise<void> {
    if (!await this.#clock.sleep(this.#abandonAfterMs, this.#watchdogStop.signal)) return;
    const abandonRead = this.#abandonRead;
    if (abandonRead === undefined) return;
    this.#abandoned = true;
    abandonRead({ done: true, value: undefined });
  }

  #learnPace(): void {
    const now = this.#lastActivity;
    const last = this.#lastBookmarkAt;
    this.#lastBookmarkAt = now;
    if (last !== undefined) this.#pace.observe(now - last);
    else {
      const bound = this.#paceBoundMs();
      if (bound !== undefined) this.#pace.firstBookmark(now - this.openedAt, bound);
    }
  }

  async #watchIdle(): Promise<void> {
    const stopped = this.#watchdogStop.signal;
    const unsubscribe = this.#pace.onTightened(() => this.#nap?.abort());
    try {
      await this.#watchQuiet(stopped);
    } finally {
      unsubscribe();
    }
  }

  async #watchQuiet(stopped: AbortSignal): Promise<void> {
    while (!stopped.aborted) {
      const limit = this.#silenceLimitMs();
      const quiet = this.#clock.now() - this.#lastActivity;
      if (quiet >= limit) {
        this.#stalledAfterMs = limit;
        // A stream that bookmarked and then went quiet proves the pace; one that never did may
        // only be young for the server.
        if (limit < this.#idleMs && this.#lastBookmarkAt === undefined) this.#pace.youngCutShort(limit);
        this.#stopWith("idle-timeout");
        return;
      }
      this.#nap = new AbortController();
      await this.#clock.sleep(limit - quiet, AbortSignal.any([stopped, this.#nap.signal]));
    }
  }
}
