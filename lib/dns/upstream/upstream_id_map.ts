/**
 * The queries waiting on one upstream socket, by DNS ID: random (RFC 5452 §4.3) and never reused
 * while still waiting, so a reply maps back to exactly one query.
 *
 * Pure: randomness is injected.
 *
 * @module
 */

/** Draws before giving up (the map is then nearly full). */
const DRAWS = 32;

/**
 * Waiting queries by ID.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { UpstreamIdMap } from "./upstream_id_map.ts";
 *
 * const waiting = new UpstreamIdMap<string>(Math.random);
 * const id = waiting.allocate("query for shop.example.com");
 * assert.ok(id !== undefined);
 * assert.equal(waiting.take(id), "query for shop.example.com");
 * ```
 */
export class UpstreamIdMap<T> {
  readonly #random: () => number;
  readonly #waiting = new Map<number, T>();

  /** `random` is like `Math.random`. */
  constructor(random: () => number) {
    this.#random = random;
  }

  /** Files `value` under a random free ID and returns it; `undefined` when none was found. */
  allocate(value: T): number | undefined {
    for (let i = 0; i < DRAWS; i++) {
      const id = Math.floor(this.#random() * 0x10000) & 0xffff;
      if (!this.#waiting.has(id)) {
        this.#waiting.set(id, value);
        return id;
      }
    }
    return undefined;
  }

  /** The value under `id`, left in place (unlike `take`). */
  get(id: number): T | undefined {
    return this.#waiting.get(id);
  }

  /** Removes and returns the value filed under `id`. */
  take(id: number): T | undefined {
    const value = this.#waiting.get(id);
    if (value !== undefined) this.#waiting.delete(id);
    return value;
  }

  get size(): number {
    return this.#waiting.size;
  }

  /** Removes and returns every waiting value. */
  drain(): T[] {
    const values = [...this.#waiting.values()];
    this.#waiting.clear();
    return values;
  }
}
