/**
 * List paging: `limit` cuts a list into pages and `continue` tokens carry the snapshot's
 * resourceVersion and the offset of the next page, so every page of one list shows the same
 * snapshot and carries the same list resourceVersion. A token also records the compaction epoch
 * it was issued in: after `compact()` (or once history no longer reaches back to its
 * resourceVersion) it is 410 Expired.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { badRequest } from "./status.ts";

/** What a continue token holds. */
export interface ContinueToken {
  /** The snapshot's resourceVersion. */
  readonly rv: number;
  /** Index, in the filtered snapshot, of the next item to return. */
  readonly offset: number;
  /** Compaction epoch when it was issued. */
  readonly epoch: number;
}

/** Encodes a token (opaque base64url JSON, like the real server's). */
export function encodeContinue(token: ContinueToken): string {
  const json = JSON.stringify({
    v: "fake.k8s.io/v1",
    rv: token.rv,
    offset: token.offset,
    epoch: token.epoch,
  });
  return btoa(json).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Decodes a token; a malformed one is 400 BadRequest. */
export function decodeContinue(text: string): ContinueToken {
  let parsed: unknown;
  try {
    const base64 = text.replaceAll("-", "+").replaceAll("_", "/");
    parsed = JSON.parse(atob(base64 + "=".repeat((4 - base64.length % 4) % 4)));
  } catch {
    throw badRequest("continue key is not valid: illegal base64 data or not JSON");
  }
  const token = typeof parsed === "object" && parsed !== null ? parsed as Record<string, unknown> : {};
  const { rv, offset, epoch } = token;
  if (
    token.v !== "fake.k8s.io/v1" || !Number.isSafeInteger(rv) || !Number.isSafeInteger(offset) ||
    !Number.isSafeInteger(epoch) || (offset as number) < 0
  ) {
    throw badRequest(
      "continue key is not valid: incorrect encoded start resourceVersion (version fake.k8s.io/v1)",
    );
  }
  return { rv: rv as number, offset: offset as number, epoch: epoch as number };
}

/** One page of `items` from `offset`, and the offset of the next page if there is one. */
export function page<T>(
  items: readonly T[],
  offset: number,
  limit: number | undefined,
): { items: readonly T[]; next: number | undefined; remaining: number } {
  if (limit === undefined || limit <= 0) {
    const rest = offset === 0 ? items : items.slice(offset);
    return { items: rest, next: undefined, remaining: 0 };
  }
  const end = offset + limit;
  const slice = items.slice(offset, end);
  return end < items.length
    ? { items: slice, next: end, remaining: items.length - end }
    : { items: slice, next: undefined, remaining: 0 };
}

/**
 * Recently served list snapshots, so the pages after the first reuse the snapshot instead of
 * rebuilding it from history. Small and bounded; an evicted snapshot is simply rebuilt.
 */
export class SnapshotCache<T> {
  readonly #entries = new Map<string, readonly T[]>();
  readonly #capacity: number;

  /** Keeps at most `capacity` snapshots. */
  constructor(capacity = 16) {
    this.#capacity = capacity;
  }

  /** The snapshot stored under `key`, if still cached. */
  get(key: string): readonly T[] | undefined {
    const items = this.#entries.get(key);
    if (items !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, items);
    }
    return items;
  }

  /** Stores a snapshot, evicting the least recently used one when full. */
  set(key: string, items: readonly T[]): void {
    this.#entries.delete(key);
    this.#entries.set(key, items);
    while (this.#entries.size > this.#capacity) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
  }

  /** Forgets everything (after compaction). */
  clear(): void {
    this.#entries.clear();
  }
}
