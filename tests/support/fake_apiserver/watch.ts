/**
 * Streaming response bodies: {@linkcode ResponseStream} (a chunked body the server writes lines
 * into, and can end, cut, stall or break) and {@linkcode WatchSession} (one open watch:
 * newline-delimited JSON events for one resource type, filtered by namespace and selectors, with
 * periodic bookmarks and the `timeoutSeconds` clean end).
 *
 * Lines are batched: everything written in one synchronous run of the store goes out as one
 * chunk, so a burst of thousands of events costs one write, not thousands.
 *
 * @module
 */

import { groupVersion } from "./kinds.ts";
import type { StatusBody } from "./status.ts";
import { type Filter, type KindStore, matches, Store, type StoreEvent } from "./store.ts";

const encoder = new TextEncoder();

/** Where a stream is in its life. */
type StreamState =
  | { readonly type: "open" }
  /** The next line is sent half, then the stream ends. */
  | { readonly type: "cutting" }
  /** Open, but nothing is ever sent again. */
  | { readonly type: "stalled" }
  | { readonly type: "closed" };

/** A chunked response body written line by line. */
export class ResponseStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #state: StreamState = { type: "open" };
  #pending: string[] = [];
  #scheduled = false;
  readonly #onClosed: () => void;

  /** `onClosed` runs once, however the stream ends (by the server, or the client going away). */
  constructor(onClosed: () => void) {
    this.#onClosed = onClosed;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        this.#finish();
      },
    });
  }

  /** Whether the stream still accepts lines (open or about to be cut). */
  get writable(): boolean {
    return this.#state.type === "open" || this.#state.type === "cutting";
  }

  /** Whether the stream has ended. */
  get closed(): boolean {
    return this.#state.type === "closed";
  }

  /** Queues one line (with its newline); sent with the rest of this burst. */
  write(line: string): void {
    if (!this.writable) return;
    this.#pending.push(line);
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#flush());
    }
  }

  #flush(): void {
    this.#scheduled = false;
    if (!this.writable || this.#pending.length === 0) return;
    if (this.#state.type === "cutting") {
      const line = this.#pending[0]!;
      this.#pending = [];
      this.#controller.enqueue(encoder.encode(line.slice(0, Math.max(1, Math.floor((line.length - 1) / 2)))));
      this.#controller.close();
      this.#finish();
      return;
    }
    const text = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join("");
    this.#pending = [];
    this.#controller.enqueue(encoder.encode(text));
  }

  /** Sends what is queued, then ends the body cleanly (the chunked terminator). */
  end(): void {
    if (this.#state.type === "closed") return;
    if (this.#state.type !== "stalled") this.#flush();
    if (this.closed) return; // the flush cut the stream
    this.#controller.close();
    this.#finish();
  }

  /** Breaks the body: the connection is torn down without a clean end (a crashed server). */
  abort(): void {
    if (this.#state.type === "closed") return;
    this.#controller.error(new Error("fake API server stopped"));
    this.#finish();
  }

  /** Never sends another byte (queued lines are dropped) and never ends by itself. */
  stall(): void {
    if (this.#state.type === "closed") return;
    this.#pending = [];
    this.#state = { type: "stalled" };
  }

  /** The next line goes out half-written, then the body ends. */
  cutNext(): void {
    if (this.#state.type === "open") this.#state = { type: "cutting" };
  }

  #finish(): void {
    if (this.#state.type === "closed") return;
    this.#state = { type: "closed" };
    this.#pending = [];
    this.#onClosed();
  }
}

/** What a watch asked for. */
export interface WatchParameters {
  readonly filter: Filter;
  /** Events to send first (history after the requested version, or the initial state). */
  readonly replay: readonly StoreEvent[];
  /** A line to send before anything else (the `malformed-line` fault). */
  readonly before?: string | undefined;
  /** `allowWatchBookmarks=true`. */
  readonly bookmarks: boolean;
  /** Interval of periodic bookmarks; 0 = never. */
  readonly bookmarkIntervalMs: number;
  /** `sendInitialEvents=true`: a bookmark annotated `k8s.io/initial-events-end` follows the replay. */
  readonly initialEventsEnd: boolean;
  /** `timeoutSeconds`, in ms: the server ends the stream cleanly then. */
  readonly timeoutMs: number | undefined;
}

/** One open watch on one resource type. */
export class WatchSession {
  readonly stream: ResponseStream;
  readonly kind: KindStore;
  readonly #store: Store;
  readonly #filter: Filter;
  #unsubscribe: (() => void) | undefined;
  #timeout: ReturnType<typeof setTimeout> | undefined;
  #bookmarkTimer: ReturnType<typeof setInterval> | undefined;
  #bookmarks: boolean;

  /**
   * Starts the watch: queues the replay, subscribes to live changes (in the same synchronous
   * step, so nothing falls between them) and arms the timers. `onClosed` runs when it ends.
   */
  constructor(store: Store, kind: KindStore, parameters: WatchParameters, onClosed: () => void) {
    this.#store = store;
    this.kind = kind;
    this.#filter = parameters.filter;
    this.#bookmarks = parameters.bookmarks;
    this.stream = new ResponseStream(() => {
      this.#cleanup();
      onClosed();
    });
    if (parameters.before !== undefined) this.stream.write(parameters.before);
    for (const event of parameters.replay) this.#offer(event);
    if (parameters.initialEventsEnd && parameters.bookmarks) this.bookmark(true);
    this.#unsubscribe = kind.subscribe((event) => this.#offer(event));
    if (parameters.timeoutMs !== undefined) {
      this.#timeout = setTimeout(() => this.stream.end(), parameters.timeoutMs);
    }
    if (parameters.bookmarks && parameters.bookmarkIntervalMs > 0) {
      this.#bookmarkTimer = setInterval(() => this.bookmark(false), parameters.bookmarkIntervalMs);
    }
  }

  /** Sends an event as this watcher sees it: selector entries become ADDED, exits DELETED. */
  #offer(event: StoreEvent): void {
    if (event.type !== "MODIFIED" || event.previous === undefined) {
      if (matches(this.#filter, event.current)) this.stream.write(event.line());
      return;
    }
    const now = matches(this.#filter, event.current);
    const before = matches(this.#filter, event.previous);
    if (now && before) this.stream.write(event.line());
    else if (now) this.stream.write(Store.retyped(event, "ADDED").line());
    else if (before) this.stream.write(Store.retyped(event, "DELETED").line());
  }

  /** Sends a BOOKMARK at the current resourceVersion (if the client allowed bookmarks). */
  bookmark(initialEventsEnd: boolean): void {
    if (!this.#bookmarks) return;
    const { info } = this.kind;
    const metadata = initialEventsEnd
      ? {
        resourceVersion: String(this.#store.resourceVersion),
        annotations: { "k8s.io/initial-events-end": "true" },
      }
      : { resourceVersion: String(this.#store.resourceVersion) };
    const object = { kind: info.kind, apiVersion: groupVersion(info), metadata };
    this.stream.write(`{"type":"BOOKMARK","object":${JSON.stringify(object)}}\n`);
  }

  /** Sends an `ERROR` event with this Status and ends the stream. */
  error(status: StatusBody): void {
    this.stream.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
    this.stream.end();
  }

  /** Sends nothing more, ever; the timers stop too (a stalled server does not time out). */
  stall(): void {
    this.#cleanup();
    this.stream.stall();
  }

  #cleanup(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    clearTimeout(this.#timeout);
    clearInterval(this.#bookmarkTimer);
    this.#bookmarks = false;
  }
}
