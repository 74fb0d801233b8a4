/**
 * The reflector's states (kube-rs `watcher.rs` shape, client-go semantics). One step reads a list
 * page ({@linkcode listStep}), a watch event ({@linkcode watchStep}), or waits once:
 *
 * | state      | on                                          | next                                 |
 * |------------|---------------------------------------------|--------------------------------------|
 * | `listing`  | a page with a `continue` token              | `listing` (next page, buffered)      |
 * | `listing`  | the last page (swapped into the store)      | `listed`                             |
 * | `listing`  | Expired / too-large RV (not yet at `""`)    | `listing` at `""`, at once           |
 * | `listing`  | Expired `continue` token                    | `listing` unpaged, at once           |
 * | `listing`  | 404 (type not served)                       | `missing` (WARN once), then `listing`|
 * | `listing`  | any other error                             | `backoff`, then `listing`            |
 * | `listed`   | —                                           | `watching` from the list's RV        |
 * | `watching` | ADDED / MODIFIED / DELETED / BOOKMARK       | `watching` at the event's RV         |
 * | `watching` | clean end (server `timeoutSeconds`)         | `listed`: re-watch, no relist        |
 * | `watching` | clean end < 1 s with no event               | `backoff`, then `listed`             |
 * | `watching` | 410 (HTTP status or ERROR event)            | `listing` at the last RV             |
 * | `watching` | idle timeout, ERROR event, 5xx, 429, 403, … | `backoff`, then `listed` (no relist) |
 * | any        | the signal aborts                           | `stopped`                            |
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { KubeObject } from "../resources/kube_object.ts";
import type { RestartReason } from "./failure.ts";
import type { WatchHandle } from "./watch_handle.ts";

/** Reading a list page by page; nothing is visible to readers until the last page. */
export interface ListingState<T extends KubeObject> {
  readonly kind: "listing";
  /** The resourceVersion to list at: `"0"`, a version, or `""` for a consistent read. */
  readonly from: string;
  /** False after an expired `continue` token: the retry lists everything in one request. */
  readonly paged: boolean;
  readonly continue?: string;
  /** Objects of the pages read so far, by key. */
  readonly buffer: Map<string, T>;
  /** Set on the slow retry after a 404: another 404 confirms the type is gone. */
  readonly retryOfMissing?: true;
}

/** The store holds a complete list (or survived a watch): open a watch from `resourceVersion`. */
export interface ListedState {
  readonly kind: "listed";
  readonly resourceVersion: string;
}

/** Reading events; `resourceVersion` is the last one applied (or a bookmark's). */
export interface WatchingState<T extends KubeObject> {
  readonly kind: "watching";
  readonly resourceVersion: string;
  readonly watch: WatchHandle<T>;
  /** Events (bookmarks included) received on this watch. */
  readonly events: number;
}

/** Waiting before a retry after a failure. */
export interface BackoffState<T extends KubeObject> {
  readonly kind: "backoff";
  readonly reason: RestartReason;
  readonly delayMs: number;
  readonly then: ListingState<T> | ListedState;
}

/** The reflector's state: one of these at any time, advanced by one step at a time. */
export type ReflectorState<T extends KubeObject> =
  | ListingState<T>
  | ListedState
  | WatchingState<T>
  | BackoffState<T>
  /** The type is not served (404 on list): retrying slowly. */
  | { readonly kind: "missing"; readonly retryInMs: number; readonly then: ListingState<T> }
  /** Aborted; final. */
  | { readonly kind: "stopped" };

/** The coarse phase for health checks and metrics. */
export type ReflectorPhase = "listing" | "watching" | "backoff" | "missing" | "stopped";

/** A fresh listing attempt at `from`. */
export function listingState<T extends KubeObject>(from: string, paged = true): ListingState<T> {
  return { kind: "listing", from, paged, buffer: new Map() };
}

/** The phase a state belongs to: `listed` counts as `watching` (a watch opens next, at once). */
export function reflectorPhase(state: Pick<ReflectorState<KubeObject>, "kind">): ReflectorPhase {
  switch (state.kind) {
    case "listing":
      return "listing";
    case "listed":
    case "watching":
      return "watching";
    case "backoff":
      return "backoff";
    case "missing":
      return "missing";
    case "stopped":
      return "stopped";
  }
}
