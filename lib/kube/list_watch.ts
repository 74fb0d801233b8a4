/**
 * The two calls a reflector needs from the API, as an interface, so the reflector can be driven
 * by the real client or by a scripted source in tests.
 *
 * @module
 */

import type { KubeObject, ListPage, WatchEvent } from "./objects.ts";

/** Options for one list page. */
export interface ListOptions {
  /** `"0"` (any cached version), a version (at least this new), or absent (a consistent read). */
  readonly resourceVersion?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly signal?: AbortSignal;
}

/** Options for a watch. */
export interface WatchOptions {
  /** Start after this version (a list's or a bookmark's). */
  readonly resourceVersion: string;
  readonly allowWatchBookmarks: boolean;
  /** Asks the server to end the stream cleanly after this long. */
  readonly timeoutSeconds: number;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Aborting ends the stream (the reflector's idle timeout, or shutdown). */
  readonly signal: AbortSignal;
}

/**
 * Lists and watches one resource type (optionally one namespace). `list` rejects with a
 * `KubeApiError` or `KubeTransportError`; `watch` rejects the same way if the stream cannot be
 * opened, yields events, and ends when the server closes it or the signal aborts.
 */
export interface ListWatcher<T extends KubeObject> {
  /** What this watches, for logs and metrics: `networking.k8s.io/v1 ingresses`. */
  readonly description: string;
  list(options: ListOptions): Promise<ListPage<T>>;
  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>>;
}
