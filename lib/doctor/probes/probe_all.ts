/**
 * Runs many probes a few at a time; once the check's signal fires, those not started yet are
 * reported `aborted`.
 *
 * Effects: whatever `probe` does.
 *
 * @module
 */

import type { ProbeFailure } from "./probe_failure.ts";

/** How many at once, and the check's deadline. */
export interface ProbeAllOptions {
  /** @default 8 */
  readonly concurrency?: number;
  readonly signal: AbortSignal;
}

/** `probe` applied to every item, at most `concurrency` at a time, results in the items' order. */
export async function probeAll<T, R>(
  items: readonly T[],
  options: ProbeAllOptions & { readonly probe: (item: T) => Promise<R> },
): Promise<(R | ProbeFailure)[]> {
  const results: (R | ProbeFailure)[] = items.map(() => ({ kind: "aborted" }));
  let next = 0;
  const worker = async () => {
    while (next < items.length && !options.signal.aborted) {
      const index = next++;
      results[index] = await options.probe(items[index] as T);
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 8, items.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
