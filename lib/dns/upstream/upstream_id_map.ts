/**
 * The queries waiting on one upstream socket, by the DNS ID they were sent with. IDs are drawn
 * at random (RFC 5452 §4.3: a predictable ID lets an off-path attacker forge answers) and never
 * reused while a query with that ID still waits on the socket, so a reply maps back to exactly
 * one query.
 *
 * Pure: randomness is injected.
 *
 * @module
 */

/** Draws from the ID space before giving up (the map is then nearly full). */
const DRAWS = 32;

/**
 * Waiting queries by ID.
 *
 * @example
 * ```ts
 * import { UpstreamIdMap } from "./upstream_id_map.ts";
 *
 * const waiting = new UpstreamIdMap<string>(Math.random);
 * const id = waiting.allocate("query for shop.example.com");
 * if (id !== undefined) waiting.take(id); // "query for shop.example.com"
 * ```
 */
export class UpstreamIdMap<T> {
  readonly #random: () => number;
  readonly #waiting = new Map<number, T>();

  /** `random` returns numbers in [0, 1), like `Math.random`. */
  constructor(random: () => number) {
    this.#random = random;
  }

  /**
   * Files `value` under a random ID not in use and returns the ID; `undefined` when no free ID
   * was found in a few draws (tens of thousands of queries waiting on one socket).
   */
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

  /** The value filed under `id`, left in place. */
  get(id: number): T | undefined {
    return this.#waiting.get(id);
  }

  /** Removes and returns the value filed under `id`. */
  take(id: number): T | undefined {
    const value = this.#waiting.get(id);
    if (value !== undefined) this.#waiting.delete(id);
    return value;
  }

  /** How many queries wait. */
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
