/**
 * "Did you mean …?" for a mistyped flag or subcommand: the nearest known name, offered only when
 * close enough that a typo is the likely story.
 *
 * Distance is optimal string alignment (a neighbour swap is one edit), case ignored; close enough
 * is one edit per three letters typed, 1 to 3; a tie goes to the earlier candidate.
 *
 * Pure: strings in, strings out.
 *
 * @module
 */

/** The optimal string alignment distance from `a` to `b` (case-sensitive). */
export function editDistance(a: string, b: string): number {
  // Three rows of the dynamic-programming table: two back (for swaps), one back, current.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, before[j - 2]! + 1);
      }
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** The most edits a typo of `typed` may be from what was meant: one per three letters, 1 to 3. */
export function tolerance(typed: string): number {
  return Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
}

/**
 * The candidate nearest to `typed` within {@linkcode tolerance}; `undefined` if none, or if
 * `typed` is itself one.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { closestName } from "./suggest.ts";
 *
 * assert.equal(closestName("dial-timout", ["listen-http", "dial-timeout"]), "dial-timeout");
 * assert.equal(closestName("bogus", ["listen-http", "dial-timeout"]), undefined);
 * ```
 */
export function closestName(typed: string, candidates: readonly string[]): string | undefined {
  if (candidates.includes(typed)) return undefined;
  const limit = tolerance(typed);
  let best: { name: string; distance: number } | undefined;
  for (const name of candidates) {
    const distance = editDistance(typed.toLowerCase(), name.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
