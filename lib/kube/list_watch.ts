/**
 * The two calls a reflector needs from the API (list and watch), so tests can script them.
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
  readonly resourceVersion: string;
  readonly allowWatchBookmarks: boolean;
  /** The server ends the stream cleanly after this long. */
  readonly timeoutSeconds: number;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly signal: AbortSignal;
}

/** Lists and watches one resource type (optionally one namespace or selection). */
export interface ListWatcher<T extends KubeObject> {
  /** For logs and metrics: `networking.k8s.io/v1 ingresses`. */
  readonly description: string;
  list(options: ListOptions): Promise<ListPage<T>>;
  watch(options: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

/** One page of a list. */
export interface ListPage<T> {
  readonly items: readonly T[];
  /** Watch from here to see every later change. */
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continue?: string;
  /** Items that failed to decode, skipped so one bad object cannot stop a sync. */
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
  /** Everything up to `resourceVersion` has been sent. */
  | { readonly type: "BOOKMARK"; readonly resourceVersion: string }
  /** The server ended the stream with a Status (410 Expired, 500, 403, …). */
  | { readonly type: "ERROR"; readonly status: StatusDetails }
  /** An undecodable object, skipped; the stream continues. */
  | { readonly type: "REJECTED"; readonly resourceVersion: string; readonly failure: DecodeFailure };
