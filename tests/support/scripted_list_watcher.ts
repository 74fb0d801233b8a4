/**
 * A {@linkcode ListWatcher} driven by the test, call by call: each `list` or `watch` the code
 * under test makes waits until the test answers it (a page, an error, events, a clean close, a
 * failure, or nothing at all, which is a stall). Streams honour their abort signal as the
 * contract requires, and report whether the consumer closed them.
 *
 * @module
 */

import type { ListOptions, ListWatcher, WatchOptions } from "../../lib/kube/list_watch.ts";
import type { DecodeFailure, ListPage, WatchEvent } from "../../lib/kube/list_watch.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";

/** How long a test waits for the code under test to make a call before failing loudly. */
const HANG_GUARD_MS = 5_000;

/** Rejects with `what` when `promise` has not settled within the hang guard. */
export function guard<T>(promise: Promise<T>, what: string, ms = HANG_GUARD_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A FIFO whose `take` waits for the next item. */
class Mailbox<T> {
  readonly #items: T[] = [];
  readonly #takers: ((item: T) => void)[] = [];

  push(item: T): void {
    const taker = this.#takers.shift();
    if (taker === undefined) this.#items.push(item);
    else taker(item);
  }

  take(): Promise<T> {
    const item = this.#items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.#takers.push(resolve));
  }

  get size(): number {
    return this.#items.length;
  }
}

/** A page answer; `rejected` defaults to none. */
export interface PageAnswer<T> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly rejected?: readonly DecodeFailure[];
}

/** One `list` call, waiting for the test's answer. */
export class ListCall<T extends KubeObject> {
  readonly options: ListOptions;
  readonly #answer = Promise.withResolvers<PageAnswer<T>>();
  #settled = false;

  constructor(options: ListOptions) {
    this.options = options;
    // A rejection nobody awaits yet must not count as unhandled.
    this.#answer.promise.catch(() => {});
    options.signal?.addEventListener(
      "abort",
      () => this.#settle(() => this.#answer.reject(options.signal?.reason)),
      {
        once: true,
      },
    );
  }

  /** The promise `list` returned. */
  get result(): Promise<PageAnswer<T>> {
    return this.#answer.promise;
  }

  /** True once answered, failed or aborted. */
  get settled(): boolean {
    return this.#settled;
  }

  /** True when the caller aborted the request. */
  get aborted(): boolean {
    return this.options.signal?.aborted ?? false;
  }

  respond(page: PageAnswer<T>): void {
    this.#settle(() => this.#answer.resolve(page));
  }

  fail(error: unknown): void {
    this.#settle(() => this.#answer.reject(error));
  }

  #settle(action: () => void): void {
    if (this.#settled) return;
    this.#settled = true;
    action();
  }
}

type Item<T> = { readonly kind: "event"; readonly event: WatchEvent<T> } | { readonly kind: "close" } | {
  readonly kind: "fail";
  readonly error: unknown;
};

/** How a watch stream ended. */
export type WatchEnd = "closed" | "failed" | "aborted" | "returned";

/** One `watch` call: an event stream the test feeds. */
export class WatchCall<T extends KubeObject> implements AsyncIterable<WatchEvent<T>> {
  readonly options: WatchOptions;
  readonly #queue: Item<T>[] = [];
  #reader: PromiseWithResolvers<IteratorResult<WatchEvent<T>>> | undefined;
  #end: WatchEnd | undefined;
  readonly #ended = Promise.withResolvers<WatchEnd>();
  #idleWaiters: { resolve: () => void; reject: (error: Error) => void }[] = [];
  #iterated = false;

  /** `ignoreAbort`: a broken stream that goes on waiting after its signal aborts. */
  constructor(options: WatchOptions, ignoreAbort = false) {
    this.options = options;
    if (ignoreAbort) return;
    const onAbort = () => this.#finish("aborted", { error: options.signal.reason });
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
  }

  /** How the stream ended, once it has. */
  get end(): WatchEnd | undefined {
    return this.#end;
  }

  /** Resolves with how the stream ended. */
  get ended(): Promise<WatchEnd> {
    return this.#ended.promise;
  }

  /** Queues events for the consumer. */
  send(...events: WatchEvent<T>[]): void {
    for (const event of events) this.#push({ kind: "event", event });
  }

  /** Ends the stream cleanly after the queued events (the server's timeout). */
  close(): void {
    this.#push({ kind: "close" });
  }

  /** Makes the stream throw after the queued events (refused, reset, HTTP status). */
  fail(error: unknown): void {
    this.#push({ kind: "fail", error });
  }

  /**
   * Resolves when every queued item has been taken and the consumer waits for more, which
   * means it has finished with the last one. Rejects if the stream ends first.
   */
  idle(): Promise<void> {
    if (this.#queue.length === 0 && this.#reader !== undefined) return Promise.resolve();
    if (this.#end !== undefined) return Promise.reject(new Error(`watch already ${this.#end}`));
    const waiter = Promise.withResolvers<void>();
    this.#idleWaiters.push(waiter);
    return guard(waiter.promise, "the reflector to consume the watch events");
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    if (this.#iterated) throw new Error("a watch stream can be read once");
    this.#iterated = true;
    return {
      next: () => this.#next(),
      return: () => {
        this.#finish("returned");
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  #push(item: Item<T>): void {
    if (this.#end !== undefined) throw new Error(`cannot feed a watch that already ${this.#end}`);
    this.#queue.push(item);
    const reader = this.#reader;
    if (reader !== undefined) {
      this.#reader = undefined;
      this.#deliver(reader);
    }
  }

  #next(): Promise<IteratorResult<WatchEvent<T>>> {
    if (this.#end !== undefined) {
      return this.#end === "aborted"
        ? Promise.reject(this.options.signal.reason)
        : Promise.resolve({ done: true, value: undefined });
    }
    const reader = Promise.withResolvers<IteratorResult<WatchEvent<T>>>();
    if (this.#queue.length > 0) {
      this.#deliver(reader);
    } else {
      this.#reader = reader;
      const waiters = this.#idleWaiters;
      this.#idleWaiters = [];
      for (const waiter of waiters) waiter.resolve();
    }
    return reader.promise;
  }

  #deliver(reader: PromiseWithResolvers<IteratorResult<WatchEvent<T>>>): void {
    const item = this.#queue.shift();
    if (item === undefined) return;
    switch (item.kind) {
      case "event":
        reader.resolve({ done: false, value: item.event });
        return;
      case "close":
        this.#finish("closed");
        reader.resolve({ done: true, value: undefined });
        return;
      case "fail":
        this.#finish("failed");
        reader.reject(item.error);
        return;
    }
  }

  #finish(end: WatchEnd, thrown?: { readonly error: unknown }): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    this.#queue.length = 0;
    const reader = this.#reader;
    this.#reader = undefined;
    if (reader !== undefined) {
      if (thrown === undefined) reader.resolve({ done: true, value: undefined });
      else reader.reject(thrown.error);
    }
    for (const waiter of this.#idleWaiters) waiter.reject(new Error(`watch ${end} before going idle`));
    this.#idleWaiters = [];
    this.#ended.resolve(end);
  }
}

/**
 * The scripted list-watcher. Every call is recorded in {@linkcode lists} / {@linkcode watches}
 * and handed to the test through {@linkcode nextList} / {@linkcode nextWatch}.
 *
 * @example
 * ```ts
 * const source = new ScriptedListWatcher<Thing>();
 * const list = await source.nextList();
 * list.respond({ items: [a, b], resourceVersion: "10" });
 * const watch = await source.nextWatch();
 * watch.send({ type: "ADDED", object: c });
 * await watch.idle();
 * ```
 */
export class ScriptedListWatcher<T extends KubeObject> implements ListWatcher<T> {
  readonly description: string;
  /** Every list call, in order. */
  readonly lists: ListCall<T>[] = [];
  /** Every watch call, in order. */
  readonly watches: WatchCall<T>[] = [];
  readonly #listCalls = new Mailbox<ListCall<T>>();
  readonly #watchCalls = new Mailbox<WatchCall<T>>();
  /** New watch streams ignore their abort signal (a contract violation, for robustness tests). */
  ignoreAbort = false;

  constructor(description = "example.com/v1 things") {
    this.description = description;
  }

  list(options: ListOptions): Promise<ListPage<T>> {
    const call = new ListCall<T>(options);
    this.lists.push(call);
    this.#listCalls.push(call);
    return call.result.then((page) => ({ ...page, rejected: page.rejected ?? [] }));
  }

  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>> {
    const call = new WatchCall<T>(options, this.ignoreAbort);
    this.watches.push(call);
    this.#watchCalls.push(call);
    return call;
  }

  /** The next list call not yet taken by the test. */
  nextList(): Promise<ListCall<T>> {
    return guard(this.#listCalls.take(), "a list call");
  }

  /** The next watch call not yet taken by the test. */
  nextWatch(): Promise<WatchCall<T>> {
    return guard(this.#watchCalls.take(), "a watch call");
  }

  /** Calls made but not yet taken by the test. */
  get untaken(): { readonly lists: number; readonly watches: number } {
    return { lists: this.#listCalls.size, watches: this.#watchCalls.size };
  }
}
