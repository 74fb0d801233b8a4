import assert from "node:assert/strict";
import {
  gcBound,
  type GcEvent,
  parseGcLine,
  parseWrkTail,
  summarizeGc,
  WRK_TAIL_SCRIPT,
} from "./proxy_tail_report.ts";

Deno.test("parseGcLine: reads V8 15's --trace-gc lines of each kind and ignores everything else", () => {
  const table: [string, GcEvent | undefined][] = [
    [
      "[4477:0x55b4e214d000]       19 ms: Scavenge 3.3 (4.1) -> 3.1 (4.9) MB, pooled: 0.0 MB, 2.18 / 0.00 ms (average mu = 1.000, current mu = 1.000) allocation failure; ",
      { atMs: 19, kind: "Scavenge", pauseMs: 2.18 },
    ],
    [
      "[4565:0x564957f50000]       10 ms: Mark-Compact 2.3 (2.8) -> 2.2 (2.8) MB, pooled: 0.0 MB, 1.99 / 0.00 ms (average mu = 0.777, current mu = 0.777) testing; GC in old space requested",
      { atMs: 10, kind: "Mark-Compact", pauseMs: 1.99 },
    ],
    [
      "[9:0x1a]    12345 ms: Mark-Compact (reduce) 40.1 (52.0) -> 31.5 (45.0) MB, pooled: 0.0 MB, 12.50 / 3.10 ms (+ 4.0 ms in 12 steps since start of marking) finalize incremental marking",
      { atMs: 12345, kind: "Mark-Compact", pauseMs: 12.5 },
    ],
    [
      "[9:0x1a]      800 ms: Scavenge (interleaved) 5.0 (6.0) -> 4.0 (6.0) MB, pooled: 0.0 MB, 0.31 / 0.00 ms (average mu = 1.000) task;",
      { atMs: 800, kind: "Scavenge", pauseMs: 0.31 },
    ],
    ['{"level":"WARN","msg":"backend unreachable"}', undefined],
    ["[9:0x1a] Memory allocator,       used:  12345 KB, available: 1000 KB", undefined],
    ["", undefined],
  ];
  for (const [line, expected] of table) assert.deepEqual(parseGcLine(line), expected, line);
});

Deno.test("parseWrkTail: converts the script's microseconds to milliseconds; a missing line names the cause", () => {
  const output = "Running 4s test @ http://127.0.0.1:1/small\n  1 threads and 1 connections\n" +
    "tail requests=40000 p50=86 p99=797 p999=2960 max=4010\nRequests/sec: 10000.00\n";
  assert.deepEqual(parseWrkTail(output), {
    requests: 40_000,
    p50Ms: 0.086,
    p99Ms: 0.797,
    p999Ms: 2.96,
    maxMs: 4.01,
  });
  assert.throws(() => parseWrkTail("Requests/sec: 1.00\n"), /no "tail" line .*Lua script/);
  assert.match(WRK_TAIL_SCRIPT, /percentile\(99\.9\)/);
});

Deno.test("summarizeGc: counts by kind, sums and maxes the pauses", () => {
  const events: GcEvent[] = [
    { atMs: 1, kind: "Scavenge", pauseMs: 0.5 },
    { atMs: 2, kind: "Scavenge", pauseMs: 0.25 },
    { atMs: 3, kind: "Mark-Compact", pauseMs: 4 },
  ];
  assert.deepEqual(summarizeGc(events), {
    count: 3,
    totalPauseMs: 4.75,
    maxPauseMs: 4,
    byKind: { Scavenge: 2, "Mark-Compact": 1 },
  });
  assert.deepEqual(summarizeGc([]), { count: 0, totalPauseMs: 0, maxPauseMs: 0, byKind: {} });
});

Deno.test("gcBound: only pauses as long as the p50→p99 gap count, times the clients in flight", () => {
  const tail = { requests: 10_000, p50Ms: 0.2, p99Ms: 1.2, p999Ms: 3.2, maxMs: 9 };
  const short = Array.from({ length: 500 }, (_, i): GcEvent => ({ atMs: i, kind: "Scavenge", pauseMs: 0.4 }));
  // 500 short pauses delay up to 5% of the requests, but none is long enough to cross the p99.
  const onlyShort = gcBound(short, { tail, clients: 1 });
  assert.equal(onlyShort.delayedShareAtMost, 0.05);
  assert.equal(onlyShort.aboveP99ShareAtMost, 0);
  assert.equal(onlyShort.canSetP99, false);
  // 13 pauses of 1.5 ms with 8 clients: 104 requests ≥ 1% → they can set the p99, not the p99.9 (gap 3 ms).
  const long = Array.from({ length: 13 }, (_, i): GcEvent => ({ atMs: i, kind: "Scavenge", pauseMs: 1.5 }));
  const eight = gcBound([...short, ...long], { tail, clients: 8 });
  assert.equal(eight.canSetP99, true);
  assert.equal(eight.aboveP999ShareAtMost, 0);
  assert.equal(eight.canSetP999, false);
  // The same pauses with one client cannot reach 1%.
  assert.equal(gcBound(long, { tail, clients: 1 }).canSetP99, false);
  // A run with no requests explains nothing: every share is the whole.
  assert.equal(gcBound([], { tail: { ...tail, requests: 0 }, clients: 1 }).delayedShareAtMost, 1);
});
