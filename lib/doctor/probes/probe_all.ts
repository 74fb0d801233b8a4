/**
 * Runs many probes a few at a time, so twenty hosts times two ports finish within one check's
 * time without opening forty connections at once. Once the check's signal fires, the probes not
 * started yet are not started: they get `aborted` (the running ones end by their own deadline,
 * which follows the same signal).
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

/**
 * `probe` applied to every item, at most `concurrency` at a time, results in the items' order.
 *
 * @example
 * ```ts
 * import { httpProbe } from "./http_probe.ts";
 * import { probeAll } from "./probe_all.ts";
 *
 * const signal = AbortSignal.timeout(20_000);
 * await probeAll(["a.example.com", "b.example.com"], {
 *   signal,
 *   probe: (host) => httpProbe({ hostname: "10.96.0.50", port: 80 }, { host, timeoutMs: 5_000, signal }),
 * });
 * ```
 */
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
