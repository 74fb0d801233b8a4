/**
 * The reflector's cache of one resource type: a writer side the reflector owns and a read-only
 * view for consumers.
 *
 * A relist is swapped in by one {@linkcode Store.replace}, so readers never see a half-filled
 * cache; new versions share unchanged parts with the cached one (`structural_share.ts`).
 *
 * Pure apart from calling subscribers: no I/O, no timers.
 *
 * @module
 */

import { type KubeObject, objectKey } from "../resources/kube_object.ts";
import { shareUnchanged } from "./structural_share.ts";

/** One visible change, as reported to {@linkcode StoreView.subscribe} listeners. */
export type StoreChange<T> =
  /** A complete list was swapped in; `firstSync` is reported even for an empty list. */
  | {
    readonly kind: "replaced";
    readonly version: number;
    readonly firstSync: boolean;
    readonly added: readonly T[];
    readonly updated: readonly T[];
    readonly deleted: readonly T[];
  }
  /** One object was added or changed; `previous` is the cached object it replaced. */
  | { readonly kind: "upserted"; readonly version: number; readonly object: T; readonly previous?: T }
  /** One object was removed; `object` is the last state the cache held. */
  | { readonly kind: "deleted"; readonly version: number; readonly object: T };

/** A coalesced wake-up from {@linkcode StoreView.updates}. */
export interface StoreUpdate {
  readonly version: number;
}

/** What consumers may do with a store: read it and be told about changes. */
export interface StoreView<T extends KubeObject> {
  /** True once a first complete list has been swapped in; never goes back to false. */
  readonly synced: boolean;
  /** Starts at 0 and goes up by one on every visible change (never on a no-op). */
  readonly version: number;
  readonly size: number;
  /** The cached object for `namespace/name` (or `name` for cluster-scoped types). */
  get(key: string): T | undefined;
  /** Every cached object, in no particular order. The array is shared until the next change. */
  list(): readonly T[];
  /** Every cached key, in the same order as {@linkcode list}. */
  keys(): readonly string[];
  /** Calls `listener` synchronously after every visible change; returns the unsubscriber. */
  subscribe(listener: (change: StoreChange<T>) => void): () => void;
  /** Yields once per burst of changes after this call; ends when `signal` aborts. */
  updates(signal: AbortSignal): AsyncIterable<StoreUpdate>;
  /** Resolves `true` once synced (at once if it already is), `false` if `signal` aborts first. */
  whenSynced(signal: AbortSignal): Promise<boolean>;
}

/** What the reflector does to a store (client-go's narrow `ReflectorStore`). */
export interface StoreWriter<T extends KubeObject> {
  /** Swaps in a complete list and sets `synced`; one notification for the whole list. */
  replace(items: Iterable<T>): void;
  /** Adds or updates one object; false, with no notification, for a replayed resourceVersion. */
  apply(object: T): boolean;
  /** Removes one object; false, with no notification, for an unknown key. */
  delete(object: T): boolean;
}

/** Reports a listener that threw; the store itself has no logger. */
export type ListenerErrorHandler = (error: unknown) => void;

/** A map of objects by {@linkcode objectKey}, with change notification. */
export class Store<T extends KubeObject> implements StoreView<T>, StoreWriter<T> {
  #objects = new Map<string, T>();
  #synced = false;
  #version = 0;
  #listCache: { readonly objects: readonly T[]; readonly keys: readonly string[] } | undefined;
  readonly #listeners = new Set<(change: StoreChange<T>) => void>();
  readonly #waiters = new Set<() => void>();
  readonly #onListenerError: ListenerErrorHandler;

  /** `onListenerError` hears about listeners that throw (default: ignore them). */
  constructor(onListenerError: ListenerErrorHandler = () => {}) {
    this.#onListenerError = onListenerError;
  }

  get synced(): boolean {
    return this.#synced;
  }

  get version(): number {
    return this.#version;
  }

  get size(): number {
    return this.#objects.size;
  }

  get(key: string): T | undefined {
    return this.#objects.get(key);
  }

  list(): readonly T[] {
    return this.#snapshot().objects;
  }

  keys(): readonly string[] {
    return this.#snapshot().keys;
  }

  subscribe(listener: (change: StoreChange<T>) => void): () => void {
    // Wrapped so the same function may subscribe twice and unsubscribe each independently.
    const entry = (change: StoreChange<T>) => listener(change);
    this.#listeners.add(entry);
    return () => this.#listeners.delete(entry);
  }

  updates(signal: AbortSignal): AsyncIterable<StoreUpdate> {
    // Taken now, not at the first `next()`, so a change before the first pull is not missed.
    let seen = this.#version;
    return {
      [Symbol.asyncIterator]: () => ({
        next: async (): Promise<IteratorResult<StoreUpdate>> => {
          while (this.#version === seen) {
            if (!await this.#nextNotification(signal)) return { done: true, value: undefined };
          }
          if (signal.aborted) return { done: true, value: undefined };
          seen = this.#version;
          return { done: false, value: { version: seen } };
        },
        return: (): Promise<IteratorResult<StoreUpdate>> => Promise.resolve({ done: true, value: undefined }),
      }),
    };
  }

  async whenSynced(signal: AbortSignal): Promise<boolean> {
    while (!this.#synced) {
      if (!await this.#nextNotification(signal)) return false;
    }
    return true;
  }

  replace(items: Iterable<T>): void {
    const next = new Map<string, T>();
    for (const item of items) next.set(objectKey(item.metadata), item);
    const added: T[] = [];
    const updated: T[] = [];
    const deleted: T[] = [];
    for (const [key, item] of next) {
      const old = this.#objects.get(key);
      if (old === undefined) added.push(item);
      else if (old.metadata.resourceVersion === item.metadata.resourceVersion) next.set(key, old);
      else {
        const kept = shareUnchanged(old, item);
        next.set(key, kept);
        updated.push(kept);
      }
    }
    for (const [key, old] of this.#objects) if (!next.has(key)) deleted.push(old);
    const firstSync = !this.#synced;
    this.#objects = next;
    this.#synced = true;
    if (!firstSync && added.length === 0 && updated.length === 0 && deleted.length === 0) return;
    this.#changed((version) => ({ kind: "replaced", version, firstSync, added, updated, deleted }));
  }

  apply(object: T): boolean {
    const key = objectKey(object.metadata);
    const previous = this.#objects.get(key);
    if (previous !== undefined && previous.metadata.resourceVersion === object.metadata.resourceVersion) {
      return false;
    }
    const kept = previous === undefined ? object : shareUnchanged(previous, object);
    this.#objects.set(key, kept);
    this.#changed((version) =>
      previous === undefined
        ? { kind: "upserted", version, object: kept }
        : { kind: "upserted", version, object: kept, previous }
    );
    return true;
  }

  delete(object: T): boolean {
    const key = objectKey(object.metadata);
    const previous = this.#objects.get(key);
    if (previous === undefined) return false;
    this.#objects.delete(key);
    this.#changed((version) => ({ kind: "deleted", version, object: previous }));
    return true;
  }

  #snapshot(): { readonly objects: readonly T[]; readonly keys: readonly string[] } {
    if (this.#listCache === undefined) {
      this.#listCache = { objects: [...this.#objects.values()], keys: [...this.#objects.keys()] };
    }
    return this.#listCache;
  }

  #changed(change: (version: number) => StoreChange<T>): void {
    this.#version += 1;
    this.#listCache = undefined;
    const notification = change(this.#version);
    for (const listener of [...this.#listeners]) {
      try {
        listener(notification);
      } catch (error) {
        this.#onListenerError(error);
      }
    }
    const waiters = [...this.#waiters];
    this.#waiters.clear();
    for (const wake of waiters) wake();
  }

  /** Resolves `true` at the next notification, `false` when `signal` aborts (or has). */
  #nextNotification(signal: AbortSignal): Promise<boolean> {
    if (signal.aborted) return Promise.resolve(false);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiters.delete(wake);
        resolve(false);
      };
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve(true);
      };
      this.#waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}
