import assert from "node:assert/strict";
import { probeAll } from "../../../lib/doctor/probes/probe_all.ts";

Deno.test("probeAll: results in the items' order, never more than `concurrency` at once", async () => {
  let running = 0;
  let most = 0;
  const results = await probeAll([30, 10, 20, 0, 5], {
    concurrency: 2,
    signal: new AbortController().signal,
    probe: async (n) => {
      running++;
      most = Math.max(most, running);
      for (let i = 0; i < n; i++) await Promise.resolve();
      running--;
      return { kind: "done", n };
    },
  });
  assert.deepEqual(results.map((result) => "n" in result ? result.n : -1), [30, 10, 20, 0, 5]);
  assert.equal(most, 2);
});

Deno.test("probeAll: once the check's signal fired, the probes not started are aborted, not started", async () => {
  const check = new AbortController();
  const started: number[] = [];
  const results = await probeAll([1, 2, 3, 4], {
    concurrency: 1,
    signal: check.signal,
    probe: (n) => {
      started.push(n);
      if (n === 2) check.abort();
      return Promise.resolve({ kind: "done" });
    },
  });
  assert.deepEqual(started, [1, 2]);
  assert.deepEqual(results.map((result) => result.kind), ["done", "done", "aborted", "aborted"]);
});
