import assert from "node:assert/strict";
import { availableCpus, defaultWorkers } from "../../lib/util/available_cpus.ts";

Deno.test("available CPUs: the runtime's count as a whole number, never below 1", () => {
  const cases: [string, number, number][] = [
    ["a 64-core node", 64, 64],
    ["a pod whose quota the runtime applied", 2, 2],
    ["zero is 1", 0, 1],
    ["NaN is 1", Number.NaN, 1],
    ["Infinity is 1", Number.POSITIVE_INFINITY, 1],
    ["a fraction rounds down", 2.7, 2],
  ];
  for (const [name, online, expected] of cases) assert.equal(availableCpus(online), expected, name);
});

Deno.test("--workers default: one worker up to 2 CPUs, then one per 2 CPUs", () => {
  const cases: [number, number][] = [[1, 1], [2, 1], [3, 1], [4, 2], [5, 2], [8, 4], [64, 32]];
  for (const [cpus, workers] of cases) assert.equal(defaultWorkers(cpus), workers, `${cpus} CPUs`);
});
