import assert from "node:assert/strict";
import { parseWrk } from "./bench_report.ts";
import {
  addedLatency,
  feasibleConnections,
  figureRows,
  type GoalInputs,
  goalLine,
  helpOffersWorkers,
  judgeGoals,
  judgeWorkersDefault,
  medianRow,
  type PathInfo,
  processTree,
  ratioRows,
  ROUTED_PATH,
  routingCost,
  Samples,
} from "./proxy_bench_report.ts";
import { FULL, parseBenchArgs, QUICK, workerCounts } from "./proxy_bench_settings.ts";

/** wrk 4.1.0 output with --latency (keep-alive run), as this machine prints it. */
const WRK_LATENCY = `Running 3s test @ http://127.0.0.1:41234/small
  1 threads and 8 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   120.51us  210.33us   9.87ms   98.12%
    Req/Sec    52.10k     3.20k   56.00k    80.00%
  Latency Distribution
     50%  101.00us
     75%  118.00us
     90%  140.00us
     99%    1.25ms
  155432 requests in 3.00s, 29.50MB read
Requests/sec:  51810.67
Transfer/sec:      9.83MB
`;

/** wrk output of a Connection: close run with socket errors and non-2xx answers. */
const WRK_ERRORS = `Running 2s test @ http://127.0.0.1:41234/small
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.10ms  300.00us   5.00ms   90.00%
    Req/Sec     9.50k   400.00     10.10k    75.00%
  19000 requests in 2.00s, 3.60MB read
  Socket errors: connect 0, read 12, write 0, timeout 0
  Non-2xx or 3xx responses: 3
Requests/sec:   9499.50
Transfer/sec:      1.80MB
`;

Deno.test("parseWrk reads requests/s, HdrHistogram percentiles in any unit, and errors", async (t) => {
  const cases: { name: string; output: string; want: ReturnType<typeof parseWrk> }[] = [
    {
      name: "keep-alive with --latency: us and ms percentiles become ms",
      output: WRK_LATENCY,
      want: { requestsPerSecond: 51810.67, p50Ms: 0.101, p99Ms: 1.25, problems: [] },
    },
    {
      name: "Connection: close without --latency: no percentiles, problems listed",
      output: WRK_ERRORS,
      want: {
        requestsPerSecond: 9499.5,
        problems: ["Socket errors: connect 0, read 12, write 0, timeout 0", "Non-2xx or 3xx responses: 3"],
      },
    },
    {
      name: "a p99 in seconds",
      output: WRK_LATENCY.replace("99%    1.25ms", "99%    1.50s"),
      want: { requestsPerSecond: 51810.67, p50Ms: 0.101, p99Ms: 1500, problems: [] },
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const got = parseWrk(c.output);
      assert.equal(got.requestsPerSecond, c.want.requestsPerSecond);
      assert.equal(got.p50Ms === undefined ? undefined : Number(got.p50Ms.toFixed(6)), c.want.p50Ms);
      assert.equal(got.p99Ms === undefined ? undefined : Number(got.p99Ms.toFixed(6)), c.want.p99Ms);
      assert.deepEqual(got.problems, c.want.problems);
    });
  }
  await t.step("no Requests/sec line stops the benchmark instead of recording 0", () => {
    assert.throws(() => parseWrk("unable to connect to 127.0.0.1:1 Connection refused\n"), /Requests\/sec/);
  });
});

const OURS: PathInfo = { id: "ours-2", label: "ours w=2", kind: "ours", threads: 2 };
const HAP: PathInfo = { id: "haproxy-2", label: "hap t=2", kind: "haproxy", threads: 2 };
const GO: PathInfo = { id: "go", label: "go io.Copy", kind: "go" };
const DIRECT: PathInfo = { id: "direct", label: "direct", kind: "direct" };
const PATHS = [OURS, HAP, GO, DIRECT];

function samplesOf(table: Record<string, Record<string, readonly number[]>>): Samples {
  const samples = new Samples();
  for (const [metric, perPath] of Object.entries(table)) {
    for (const [path, values] of Object.entries(perPath)) {
      for (const value of values) samples.add(metric, path, value);
    }
  }
  return samples;
}

Deno.test("Samples: medians over rounds, NaN for a metric never measured", () => {
  const samples = samplesOf({ rate: { "ours-2": [30, 10, 20, 1000, 25] } });
  assert.equal(samples.median("rate", "ours-2"), 25, "one outlier round does not move the median");
  assert.deepEqual(samples.values("rate", "ours-2"), [30, 10, 20, 1000, 25], "run order is kept");
  assert.ok(Number.isNaN(samples.median("rate", "go")));
});

Deno.test("figure and ratio rows: one column per path; ratios to a reference skip it", () => {
  const samples = samplesOf({
    "rate@16": { "ours-2": [10_000], "haproxy-2": [20_000], go: [15_000], direct: [40_000] },
    "p99@8": { "ours-2": [0.5], "haproxy-2": [0.3], go: [0.4], direct: [0.1] },
    idleLarge: { "ours-2": [6], "haproxy-2": [3], go: [12] },
  });
  const rows = [
    medianRow("conn/s", "rate@16", { samples }),
    { label: "added p99", value: addedLatency(samples, "p99@8", "direct") },
    medianRow("KiB/conn", "idleLarge", { samples, direct: false }),
  ];
  assert.deepEqual(figureRows(rows, PATHS), [
    ["conn/s", "10,000", "20,000", "15,000", "40,000"],
    ["added p99", "0.400", "0.200", "0.300", "-"],
    ["KiB/conn", "6.00", "3.00", "12.00", "-"],
  ]);
  assert.deepEqual(ratioRows(rows, PATHS, HAP), [
    ["conn/s", "0.50x", "0.75x", "2.00x"],
    ["added p99", "2.00x", "1.50x", "-"],
    ["KiB/conn", "2.00x", "4.00x", "-"],
  ]);
  assert.deepEqual(ratioRows(rows, PATHS, DIRECT)[0], ["conn/s", "0.25x", "0.50x", "0.38x"]);
});

function goalInputs(table: Record<string, Record<string, readonly number[]>>): GoalInputs {
  return {
    samples: samplesOf(table),
    ours: OURS,
    haproxy: HAP,
    direct: DIRECT,
    rateClients: [1],
    latencyClients: [8],
    idle: [["idleLarge", "9,900"]],
    bulkBaseline: { download: 1000, upload: 900, date: "2026-12-02" },
  };
}

Deno.test("judgeGoals: each goal passes at its bound and misses just beyond it", async (t) => {
  const atBounds = {
    "rate@1": { "ours-2": [5000], "haproxy-2": [5000] },
    "p99@8": { "ours-2": [0.3], "haproxy-2": [0.3], direct: [0.1] },
    idleLarge: { "ours-2": [6], "haproxy-2": [3] },
    download: { "ours-2": [1000] },
    upload: { "ours-2": [900] },
  };
  const cases: {
    name: string;
    change: Record<string, Record<string, readonly number[]>>;
    misses: string[];
  }[] = [
    { name: "everything exactly at its bound", change: {}, misses: [] },
    {
      name: "connection rate one below HAProxy's",
      change: { "rate@1": { "haproxy-2": [5001] } },
      misses: ["rate"],
    },
    {
      name: "added p99 above HAProxy's although the raw p99s are close",
      change: { "p99@8": { "ours-2": [0.31] } },
      misses: ["p99"],
    },
    {
      name: "idle memory just over twice HAProxy's",
      change: { idleLarge: { "ours-2": [6.01] } },
      misses: ["idle"],
    },
    {
      name: "download below the recorded figure",
      change: { download: { "ours-2": [999] } },
      misses: ["download"],
    },
    { name: "a missing measurement is a miss", change: { upload: { "ours-2": [] } }, misses: ["upload"] },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      const table: Record<string, Record<string, readonly number[]>> = {};
      for (const [metric, perPath] of Object.entries(atBounds)) {
        table[metric] = { ...perPath, ...c.change[metric] };
      }
      const goals = judgeGoals(goalInputs(table));
      assert.equal(goals.length, 5);
      const missed = goals.filter((goal) => !goal.pass).map((goal) => goal.text);
      assert.equal(missed.length, c.misses.length, missed.join("\n"));
      for (const [index, word] of c.misses.entries()) assert.match(missed[index] ?? "", new RegExp(word));
    });
  }
});

Deno.test("goalLine prints PASS or MISS first", () => {
  assert.equal(goalLine({ pass: true, text: "x" }), "PASS  x");
  assert.equal(goalLine({ pass: false, text: "y" }), "MISS  y");
});

Deno.test("feasibleConnections: the descriptor budget, rounded down to 100", async (t) => {
  const cases: { name: string; limit: number; base: number; perConnection: number; want: number }[] = [
    {
      name: "a relay at the 20,000 limit reaches 9,900",
      limit: 20_000,
      base: 20,
      perConnection: 2,
      want: 9900,
    },
    { name: "Go's splice pipes: 6 per connection", limit: 20_000, base: 9, perConnection: 6, want: 3300 },
    {
      name: "a raised limit is not the binding one",
      limit: 1_048_576,
      base: 20,
      perConnection: 2,
      want: 524_200,
    },
    { name: "a limit below the reserve", limit: 50, base: 10, perConnection: 2, want: 0 },
    { name: "no descriptors seen per connection", limit: 20_000, base: 10, perConnection: 0, want: 0 },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.equal(
        feasibleConnections(c.limit, { base: c.base, reserve: 64, perConnection: c.perConnection }),
        c.want,
      );
    });
  }
});

Deno.test("processTree: the root and every descendant, not siblings", () => {
  const ps = `    1     0
  100     1
  101   100
  102   101
  200     1
  103   100
`;
  assert.deepEqual(processTree(ps, 100), [100, 101, 103, 102]);
  assert.deepEqual(processTree(ps, 999), [999], "a process without children is itself");
});

Deno.test("helpOffersWorkers: detects the flag line, not a mention in prose", async (t) => {
  const cases: { name: string; help: string; want: boolean }[] = [
    { name: "flag line", help: "  --listen-http=ADDR\n  --workers=N\n        Workers.", want: true },
    { name: "absent", help: "  --listen-http=ADDR\n        Address.", want: false },
    { name: "mentioned in a description", help: "  --x=Y\n        unlike --workers=N this ...", want: false },
  ];
  for (const c of cases) await t.step(c.name, () => assert.equal(helpOffersWorkers(c.help), c.want));
});

Deno.test("parseBenchArgs: full by default, --quick is one round, anything else is a usage error", () => {
  assert.equal(parseBenchArgs([]), FULL);
  assert.equal(parseBenchArgs(["--quick"]), QUICK);
  assert.equal(QUICK.rounds, 1);
  assert.equal(FULL.rounds, 5);
  const error = parseBenchArgs(["--rounds=3"]);
  assert.ok("error" in error && error.error.includes("--rounds=3"));
});

Deno.test("parseBenchArgs: --cpus=N puts the proxies under a quota of N CPUs; anything but a whole number from 1 is refused", () => {
  assert.deepEqual(parseBenchArgs(["--cpus=1"]), { ...FULL, cpus: 1 });
  assert.deepEqual(parseBenchArgs(["--quick", "--cpus=2"]), { ...QUICK, cpus: 2 });
  for (const bad of ["0", "1.5", "-1", "", "two"]) {
    const refused = parseBenchArgs([`--cpus=${bad}`]);
    assert.ok("error" in refused && refused.error.includes(`got "${bad}"`), bad);
  }
});

Deno.test("routingCost: routed medians over the same proxy's without a table, per metric; nothing without both", () => {
  const samples = new Samples();
  for (const value of [900, 1000, 1100]) samples.add("rate@1", "ours-1", value);
  for (const value of [880, 950, 990]) samples.add("rate@1", ROUTED_PATH, value);
  samples.add("download", "ours-1", 1000);
  assert.deepEqual(routingCost(samples, [["rate@1", "rate"], ["download", "download"]]), [
    { label: "rate", unrouted: 1000, routed: 950, ratio: 0.95 },
  ]);
  const single = new Samples();
  single.add("rate@1", "ours", 500);
  single.add("rate@1", ROUTED_PATH, 400);
  assert.deepEqual(routingCost(single, [["rate@1", "rate"]]).map((row) => row.ratio), [0.8]);
});

Deno.test("judgeWorkersDefault: one worker by default is --workers=1 itself; more must match its rate and idle memory", () => {
  const samples = new Samples();
  const inputs = { samples, cpus: 4, rateClients: [1], idle: [["idleLarge", "9,900"]] as const };
  const one = judgeWorkersDefault({ ...inputs, cpus: 1, defaultWorkers: 1 });
  assert.equal(one.length, 1);
  assert.ok(one[0]?.pass && one[0].text.includes("it is --workers=1"));
  samples.add("rate@1", "ours-1", 1000);
  samples.add("idleLarge", "ours-1", 20);
  samples.add("rate@1", "ours-2", 1000);
  samples.add("idleLarge", "ours-2", 20);
  assert.deepEqual(judgeWorkersDefault({ ...inputs, defaultWorkers: 2 }).map((goal) => goal.pass), [
    true,
    true,
  ]);
  const worse = new Samples();
  worse.add("rate@1", "ours-1", 1000);
  worse.add("idleLarge", "ours-1", 20);
  worse.add("rate@1", "ours-2", 999);
  worse.add("idleLarge", "ours-2", 20.5);
  const verdicts = judgeWorkersDefault({ ...inputs, samples: worse, defaultWorkers: 2 });
  assert.deepEqual(verdicts.map((goal) => goal.pass), [false, false]);
  assert.match(verdicts[0]?.text ?? "", /999\.0 vs 1,000 conn\/s/);
  const missing = judgeWorkersDefault({ ...inputs, samples: new Samples(), defaultWorkers: 2 });
  assert.deepEqual(missing.map((goal) => goal.pass), [false, false]);
});

Deno.test("workerCounts: ours runs at one worker, at the default and at the CPUs (at least 2)", () => {
  assert.deepEqual(workerCounts(1), [1, 2]);
  assert.deepEqual(workerCounts(2), [1, 2]);
  assert.deepEqual(workerCounts(4), [1, 2, 4]);
  assert.deepEqual(workerCounts(8), [1, 4, 8]);
});
