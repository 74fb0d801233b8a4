/**
 * "Did you mean …?" for a mistyped flag or subcommand: the known name nearest by edit distance,
 * offered only when it is close enough that the typo is the likely story.
 *
 * Decisions: the distance is optimal string alignment (Levenshtein plus swapping two neighbouring
 * letters, so `--dail-timeout` is one edit from `--dial-timeout`), compared without regard to case;
 * "close enough" is at most one edit per three letters of what was typed, at least one and at
 * most three, so short words only forgive one slip and a word with nothing in common is never "fixed"
 * into an unrelated name. On a tie the earlier candidate wins, so tables keep their own order.
 *
 * Pure: strings in, strings out.
 *
 * @module
 */

/**
 * The number of single-letter insertions, deletions, substitutions and swaps of two neighbouring
 * letters that turn `a` into `b` (optimal string alignment distance; case-sensitive).
 *
 * @example
 * ```ts
 * import { editDistance } from "./suggest.ts";
 *
 * editDistance("dial-timout", "dial-timeout"); // 1: one letter left out
 * editDistance("prxoy", "proxy"); // 1: two letters swapped
 * ```
 */
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
 * The candidate nearest to `typed`, when one is within {@linkcode tolerance} edits (case
 * ignored); `undefined` when none is, or when `typed` is itself a candidate.
 *
 * @example
 * ```ts
 * import { closestName } from "./suggest.ts";
 *
 * closestName("dial-timout", ["listen-http", "dial-timeout"]); // "dial-timeout"
 * closestName("bogus", ["listen-http", "dial-timeout"]); // undefined
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
