import assert from "node:assert/strict";
import { blockHostsOf, goalLine, goalsFor, percentile } from "./controller_stats.ts";

Deno.test("goalLine prints PASS, MISS with what bounds it, and ???? when not measured", () => {
  assert.equal(
    goalLine({ goal: "peak RSS within 80 MiB", met: true, measured: "70.0 MiB", bound: "unused" }),
    `  PASS  ${"peak RSS within 80 MiB".padEnd(52)} measured: 70.0 MiB`,
  );
  assert.equal(
    goalLine({ goal: "first write within 0.50 s", met: false, measured: "0.70 s", bound: "start-up 0.30 s" }),
    `  MISS  ${"first write within 0.50 s".padEnd(52)} measured: 0.70 s\n          bound: start-up 0.30 s`,
  );
  assert.equal(
    goalLine({ goal: "g", met: undefined, measured: "-" }),
    `  ????  ${"g".padEnd(52)} measured: -`,
  );
});

Deno.test("goalsFor holds each size to its own issue's goals and other sizes to none", () => {
  assert.deepEqual(goalsFor(3_000), { peakRssMib: 80, firstWriteMs: 500 });
  assert.deepEqual(goalsFor(10_000), {
    peakRssMib: 150,
    firstWriteMs: 500,
    changeP99Ms: 200,
    churnCpuPercent: 24,
  });
  assert.deepEqual(goalsFor(5_000), {});
});

Deno.test("percentile is the nearest rank, NaN without samples", () => {
  assert.equal(percentile([5, 1, 3, 2, 4], 50), 3);
  assert.equal(percentile([5, 1, 3, 2, 4], 99), 5);
  assert.ok(Number.isNaN(percentile([], 50)));
});

Deno.test("blockHostsOf reads the rewrite lines between the markers only", () => {
  const corefile = [
    "rewrite name outside.io o.o.svc.cluster.local.",
    "# === BEGIN ouroboros (do not edit by hand) ===",
    "    rewrite name a1.io o.o.svc.cluster.local.",
    "    rewrite name b1.io o.o.svc.cluster.local.",
    "# === END ouroboros ===",
  ].join("\n");
  assert.deepEqual(blockHostsOf(corefile), ["a1.io", "b1.io"]);
  assert.deepEqual(blockHostsOf("no block"), []);
});
