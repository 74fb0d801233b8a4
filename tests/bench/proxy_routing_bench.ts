/**
 * `deno task bench:proxy:routing`: what routing (`--routes-file`) costs the new-connection rate,
 * measured as a pair. The full `bench:proxy` interleaves seven paths per round, so the drift of
 * this shared machine between two paths' turns is larger than the cost looked for; here the same
 * proxy with and without a table (and HAProxy at one thread, the real peer, for scale) take turns
 * back to back, the order alternating, and the verdict is the median of the per-round ratios.
 *
 * The table has 200 routes (100 exact names, 100 wildcards) whose backends are the default's, and
 * wrk's `Host` is one of them (`BENCH_HOST`), so both proxies relay to the same nginx.
 *
 * @module
 */

import { figure, median, renderTable } from "./bench_report.ts";
import { print } from "./proxy_bench_io.ts";
import { CONNECTION_CLOSE, wrk } from "./proxy_bench_measure.ts";
import { type ProxyInstance, startHaproxyPath, startOurs } from "./proxy_bench_paths.ts";
import { startBenchNginx, startSink } from "./proxy_bench_peers.ts";
import { RATE_CLIENTS } from "./proxy_bench_settings.ts";
import { environment } from "./proxy_bench_summary.ts";

const quick = Deno.args.includes("--quick");
const unknown = Deno.args.filter((arg) => arg !== "--quick");
if (unknown.length > 0) {
  print(`usage: deno task bench:proxy:routing [--quick]   (unknown: ${unknown.join(" ")})`);
  Deno.exit(2);
}
const rounds = quick ? 2 : 20;
const seconds = quick ? 1 : 3;
/** The goal of issue 30: routing keeps the connection rate within 10% of routing off. */
const GOAL = 0.9;

const cpus = navigator.hardwareConcurrency;
print(`ouroboros proxy routing benchmark${quick ? " (--quick smoke run: figures are indicative only)" : ""}`);
for (const line of await environment(cpus)) print(line);
print(`rounds:      ${rounds} of ${seconds} s per path and client count, the order alternating each round`);

const dir = await Deno.makeTempDir({ prefix: "ouroboros-routing-bench-" });
const stops: (() => Promise<void>)[] = [];
try {
  const nginx = await startBenchNginx(dir);
  stops.push(() => nginx.stop());
  const sink = await startSink();
  stops.push(() => sink.stop());
  const backends = { nginxPP: nginx.pp, sinkPP: sink.pp };
  const paths: [string, ProxyInstance][] = [
    [
      "without",
      await startOurs({ id: "ours-1", label: "ours w=1", kind: "ours", threads: 1 }, backends, {
        workers: 1,
      }),
    ],
    [
      "routed",
      await startOurs({ id: "routed", label: "ours w=1 routed", kind: "ours", threads: 1 }, backends, {
        workers: 1,
        routesDir: dir,
      }),
    ],
    [
      "haproxy",
      await startHaproxyPath({ id: "hap", label: "hap t=1", kind: "haproxy", threads: 1 }, backends, 4096),
    ],
  ];
  for (const [, instance] of paths) stops.push(() => instance.stop());

  const rows: string[][] = [];
  const verdicts: number[] = [];
  for (const clients of RATE_CLIENTS) {
    const samples = new Map<string, number[]>(paths.map(([name]) => [name, []]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? paths : [...paths].reverse();
      for (const [name, instance] of order) {
        const result = await wrk(instance.httpPort, {
          connections: clients,
          seconds,
          extra: CONNECTION_CLOSE,
        });
        if (result.problems.length > 0) print(`  ${name} -c${clients}: ${result.problems.join("; ")}`);
        samples.get(name)!.push(result.requestsPerSecond);
      }
    }
    const of = (name: string) => samples.get(name)!;
    const pairRatio = median(of("routed").map((routed, i) => routed / of("without")[i]!));
    verdicts.push(pairRatio);
    print(
      `  ${clients} client(s): ${
        [...samples].map(([name, values]) => `${name} ${values.map(figure).join(" ")}`).join(" | ")
      }`,
    );
    rows.push([
      `new connections/s, ${clients} client(s)`,
      figure(median(of("without"))),
      figure(median(of("routed"))),
      figure(median(of("haproxy"))),
      pairRatio.toFixed(2),
    ]);
  }
  print();
  print(`RESULTS (medians of ${rounds} rounds; routed/without is the median of the per-round ratios)`);
  print(renderTable(["metric", "without", "routed", "hap t=1", "routed/without"], rows));
  const worst = Math.min(...verdicts);
  print();
  print(
    `  ${worst >= GOAL ? "PASS" : "MISS"}  connection rate with routing within 10% of without: worst ${
      worst.toFixed(2)
    }`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await Deno.remove(dir, { recursive: true }).catch(() => {});
}
