/**
 * Seeded randomness for property tests: every run checks the same cases, and a failing case can
 * be reproduced from its seed.
 *
 * @module
 */

/**
 * A deterministic pseudo-random generator (mulberry32) returning numbers in [0, 1).
 *
 * @example
 * ```ts
 * const random = prng(42);
 * const byte = Math.floor(random() * 256);
 * ```
 */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
