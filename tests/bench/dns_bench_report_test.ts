import assert from "node:assert/strict";
import { parseDnsmasqCounters, parseDnsperf, parseStatusKib, percentile, rotate } from "./bench_report.ts";

/** dnsperf 2.10 output with -v, shortened: two answers, one timeout, the statistics block. */
const VERBOSE = `DNS Performance Testing Tool
Version 2.10.0

[Status] Command line: dnsperf -s 127.0.0.1 -p 5300 -d q.txt -l 1 -v
[Status] Sending queries (to 127.0.0.1:5300)
> NOERROR fwd-1.example.net A 0.000900
> T fwd-2.example.net A
> SERVFAIL fwd-3.example.net A 0.000100
[Status] Testing complete (time limit)

Statistics:

  Queries sent:         3
  Queries completed:    2 (66.67%)
  Queries lost:         1 (33.33%)

  Response codes:       NOERROR 1 (50.00%), SERVFAIL 1 (50.00%)
  Average packet size:  request 35, response 51
  Run time (s):         1.000686
  Queries per second:   1.998629

  Average Latency (s):  0.000500 (min 0.000100, max 0.000900)
`;

Deno.test("parseDnsperf: counts, rate, response codes, and sorted latencies with timeouts last", () => {
  const result = parseDnsperf(VERBOSE);
  assert.deepEqual(
    { sent: result.sent, completed: result.completed, lost: result.lost, qps: result.queriesPerSecond },
    { sent: 3, completed: 2, lost: 1, qps: 1.998629 },
  );
  assert.deepEqual(result.responseCodes, { NOERROR: 1, SERVFAIL: 1 });
  assert.deepEqual([...result.latenciesMs].map((ms) => Math.round(ms * 1000) / 1000), [0.1, 0.9, Infinity]);
  assert.equal(percentile(result.latenciesMs, 50), result.latenciesMs[1]);
  assert.equal(percentile(result.latenciesMs, 99), Infinity, "p99 falls on the lost query");
});

Deno.test("parseDnsperf: a run without statistics is an error, not a zero", () => {
  assert.throws(() => parseDnsperf("[Status] Sending queries\n"), /Queries sent/);
});

Deno.test("percentile: nearest rank", () => {
  const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
  const cases: [number, number][] = [[50, 50], [99, 99], [100, 100], [0.1, 1]];
  for (const [p, want] of cases) assert.equal(percentile(sorted, p), want, `p${p}`);
  assert.ok(Number.isNaN(percentile([], 50)));
});

Deno.test("parseDnsmasqCounters: the last SIGUSR1 report wins; none before the first", () => {
  assert.equal(parseDnsmasqCounters("dnsmasq[1]: started, version 2.90 cache disabled\n"), undefined);
  const log = "dnsmasq[1]: queries forwarded 0, queries answered locally 10\n" +
    "dnsmasq[1]: queries forwarded 2, queries answered locally 4711\n";
  assert.deepEqual(parseDnsmasqCounters(log), { forwarded: 2, local: 4711 });
});

Deno.test("parseStatusKib and rotate", () => {
  assert.equal(parseStatusKib("VmRSS:\t  1200 kB\nVmHWM:\t  2048 kB\n", "VmHWM"), 2048);
  assert.throws(() => parseStatusKib("VmRSS:\t 1 kB\n", "VmHWM"), /VmHWM/);
  assert.deepEqual([0, 1, 2, 3].map((round) => rotate(["a", "b", "c"], round).join("")), [
    "abc",
    "bca",
    "cab",
    "abc",
  ]);
});
