import assert from "node:assert/strict";
import { nextFailures, restartDelay } from "../../../lib/proxy/workers/restart_delay.ts";

Deno.test("restart delay: 100 ms doubling per quick death, capped at 30 s", () => {
  const cases: [number, number][] = [[0, 100], [1, 100], [2, 200], [3, 400], [9, 25_600], [10, 30_000], [
    1_000,
    30_000,
  ]];
  for (const [failures, ms] of cases) assert.equal(restartDelay(failures), ms, `after ${failures}`);
});

Deno.test("restart delay: a worker that served 30 s starts the count again", () => {
  const cases: [number, number, number][] = [[0, 0, 1], [3, 29_999, 4], [3, 30_000, 1], [7, 3_600_000, 1]];
  for (const [failures, upForMs, next] of cases) assert.equal(nextFailures(failures, { upForMs }), next);
});
