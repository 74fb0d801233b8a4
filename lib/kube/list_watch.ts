/**
 * The two calls a reflector needs from the API, as an interface, so the reflector can be driven
 * by the real client or by a scripted source in tests, and what they return: list pages and
 * decoded watch events.
 *
 * Pure: types only.
 *
 * @module
 */

import type { KubeObject } from "../resources/kube_object.ts";
import type { StatusDetails } from "./errors.ts";

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

/** One page of a list. */
export interface ListPage<T> {
  readonly items: readonly T[];
  /** The collection's resourceVersion: watch from here to see every later change. */
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continue?: string;
  /** Items that failed to decode, skipped (with why), so one bad object cannot stop a sync. */
  readonly rejected: readonly DecodeFailure[];
}

/** An object that could not be decoded, and why. */
export interface DecodeFailure {
  /** `namespace/name` when it could be read, else `"?"`. */
  readonly key: string;
  readonly reason: string;
}

/** One event of a watch stream, decoded. */
export type WatchEvent<T> =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED"; readonly object: T }
  /** Only the resourceVersion is meaningful: everything up to it has been sent. */
  | { readonly type: "BOOKMARK"; readonly resourceVersion: string }
  /** The server ended the stream with a Status (410 Expired, 500, 403, …). */
  | { readonly type: "ERROR"; readonly status: StatusDetails }
  /** An object of the stream could not be decoded; it is skipped, the stream continues. */
  | { readonly type: "REJECTED"; readonly resourceVersion: string; readonly failure: DecodeFailure };
