/**
 * Pure parts of the proxy's tail-latency benchmark (`deno task bench:proxy:tail`): reading V8's
 * `--trace-gc` lines and the benchmark's own wrk summary line, and bounding how many requests the
 * collector's pauses can have delayed — the figure that says whether garbage collection can be
 * what sets the p99 at all.
 *
 * The bound: while the proxy's thread is paused, every request in flight through it waits. With
 * `c` keep-alive clients at most `c` requests are in flight, so `n` pauses delay at most `n × c`
 * requests. If that is below 1% of the requests, the pauses cannot be what puts a request above
 * the p99 (and below 0.1% not above the p99.9 either): the tail comes from elsewhere.
 *
 * @module
 */

/** One collection V8 reported with `--trace-gc`. */
export interface GcEvent {
  /** Milliseconds since the isolate started, as V8 prints them. */
  readonly atMs: number;
  /** "Scavenge", "Mark-Compact", "Minor Mark-Sweep", … (V8's words, suffixes dropped). */
  readonly kind: string;
  /** The pause on the JavaScript thread, in milliseconds. */
  readonly pauseMs: number;
}

const TRACE_GC =
  /^\[\d+:0x[0-9a-f]+\]\s+([\d.]+) ms: ([A-Za-z][A-Za-z -]*?)(?: \([^)]*\))? [\d.]+ \([\d.]+\) -> [\d.]+ \([\d.]+\) MB,.*? ([\d.]+) \/ [\d.]+ ms/;

/**
 * The collection a `--trace-gc` line reports, or undefined for any other line (the proxy's own
 * log lines share the stream).
 *
 * @example
 * ```ts
 * parseGcLine("[7:0x5d] 19 ms: Scavenge 3.3 (4.1) -> 3.1 (4.9) MB, pooled: 0.0 MB, 2.18 / 0.00 ms (average mu = 1.000) allocation failure;");
 * // { atMs: 19, kind: "Scavenge", pauseMs: 2.18 }
 * ```
 */
export function parseGcLine(line: string): GcEvent | undefined {
  const match = TRACE_GC.exec(line);
  if (match === null || match[1] === undefined || match[2] === undefined || match[3] === undefined) {
    return undefined;
  }
  return { atMs: Number(match[1]), kind: match[2], pauseMs: Number(match[3]) };
}

/** What the benchmark's wrk script prints when a run is done (latencies in microseconds). */
export interface WrkTail {
  readonly requests: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

/** The wrk Lua script that prints the `tail …` line {@linkcode parseWrkTail} reads. */
export const WRK_TAIL_SCRIPT = `done = function(summary, latency, requests)
  io.write(string.format("tail requests=%d p50=%d p99=%d p999=%d max=%d\\n",
    summary.requests, latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
`;

/** Reads the `tail …` line out of wrk's output; throws when it is missing, naming the output. */
export function parseWrkTail(output: string): WrkTail {
  const match = /^tail requests=(\d+) p50=(\d+) p99=(\d+) p999=(\d+) max=(\d+)$/m.exec(output);
  if (match === null) throw new Error(`wrk printed no "tail" line (is the Lua script loaded?):\n${output}`);
  const [requests, p50, p99, p999, max] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return { requests, p50Ms: p50 / 1000, p99Ms: p99 / 1000, p999Ms: p999 / 1000, maxMs: max / 1000 };
}

/** The collector's share of one run. */
export interface GcSummary {
  readonly count: number;
  readonly totalPauseMs: number;
  readonly maxPauseMs: number;
  /** How many of the run's collections were of each kind. */
  readonly byKind: Readonly<Record<string, number>>;
}

/** Sums the pauses of `events`. */
export function summarizeGc(events: readonly GcEvent[]): GcSummary {
  const byKind: Record<string, number> = {};
  let total = 0;
  let max = 0;
  for (const event of events) {
    byKind[event.kind] = (byKind[event.kind] ?? 0) + 1;
    total += event.pauseMs;
    max = Math.max(max, event.pauseMs);
  }
  return { count: events.length, totalPauseMs: total, maxPauseMs: max, byKind };
}

/** What the pauses of one run can explain. */
export interface GcBound {
  /** The largest share of requests any pause can have delayed (0–1). */
  readonly delayedShareAtMost: number;
  /**
   * The largest share of requests a pause can have pushed above the p99: only a pause at least
   * as long as the gap from the p50 to the p99 can, so only those count.
   */
  readonly aboveP99ShareAtMost: number;
  /** The same for the p99.9. */
  readonly aboveP999ShareAtMost: number;
  /** Whether the pauses can be what sets the p99 (their share reaches 1%). */
  readonly canSetP99: boolean;
  /** Whether they can be what sets the p99.9 (share reaches 0.1%). */
  readonly canSetP999: boolean;
}

/**
 * Bounds the share of requests the pauses in `events` can have delayed, and pushed above the
 * p99 and p99.9, in the run `tail` describes with `clients` keep-alive clients (see the module
 * doc).
 *
 * @example
 * ```ts
 * const events = [{ atMs: 1, kind: "Scavenge", pauseMs: 0.4 }, { atMs: 9, kind: "Scavenge", pauseMs: 2 }];
 * gcBound(events, { tail: { requests: 10_000, p50Ms: 0.2, p99Ms: 1, p999Ms: 3, maxMs: 9 }, clients: 1 });
 * // delayedShareAtMost 0.0002, aboveP99ShareAtMost 0.0001, aboveP999ShareAtMost 0, canSetP99 false
 * ```
 */
export function gcBound(events: readonly GcEvent[], run: { tail: WrkTail; clients: number }): GcBound {
  const { tail, clients } = run;
  const share = (count: number) => tail.requests <= 0 ? 1 : Math.min(1, (count * clients) / tail.requests);
  const longerThan = (gapMs: number) => events.filter((event) => event.pauseMs >= gapMs).length;
  const aboveP99 = share(longerThan(tail.p99Ms - tail.p50Ms));
  const aboveP999 = share(longerThan(tail.p999Ms - tail.p50Ms));
  return {
    delayedShareAtMost: share(events.length),
    aboveP99ShareAtMost: aboveP99,
    aboveP999ShareAtMost: aboveP999,
    canSetP99: aboveP99 >= 0.01,
    canSetP999: aboveP999 >= 0.001,
  };
}
