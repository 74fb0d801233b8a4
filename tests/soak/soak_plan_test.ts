/**
 * The soak's plan: one seed gives one script, a long script reaches every churn and fault kind,
 * hand edits of the block stay below the revert guard, and the model follows the steps.
 *
 * @module
 */

import assert from "node:assert/strict";
import { CHURN_KINDS, FAULT_KINDS, isFault, SoakModel, SoakPlanner } from "./soak_plan.ts";

Deno.test("soak plan: the same seed gives the same steps, another seed others", () => {
  const steps = (seed: number) => {
    const planner = new SoakPlanner(seed);
    return Array.from({ length: 200 }, () => planner.next());
  };
  assert.deepEqual(steps(7), steps(7));
  assert.notDeepEqual(steps(7), steps(8));
});

Deno.test("soak plan: 2,000 steps reach every kind, and at most two block edits per half hour", () => {
  const planner = new SoakPlanner(42);
  const kinds = new Set<string>();
  let blockEdits = 0;
  let elapsed = 0;
  for (let i = 0; i < 2_000; i++) {
    const step = planner.next();
    elapsed += step.afterMs;
    kinds.add(step.kind);
    assert.equal(isFault(step), (FAULT_KINDS as readonly string[]).includes(step.kind), step.kind);
    assert.notEqual(isFault(step), (CHURN_KINDS as readonly string[]).includes(step.kind), step.kind);
    if (step.kind === "corefile-hand-edit" && step.where === "block") blockEdits++;
  }
  for (const kind of [...CHURN_KINDS, ...FAULT_KINDS]) assert.ok(kinds.has(kind), `no ${kind} step`);
  assert.ok(blockEdits >= 1 && blockEdits <= 2 * Math.ceil(elapsed / 1_800_000), `${blockEdits} block edits`);
});

Deno.test("soak model: refused and deleted names leave the block, the last ready set stays published", () => {
  const model = new SoakModel();
  model.apply({
    kind: "ingress-put",
    key: "shop/a",
    hosts: [{ raw: "A.example.com.", expected: "a.example.com" }, { raw: "bad host", expected: undefined }],
  });
  model.apply({
    kind: "route-put",
    key: "shop/r",
    hosts: [{ raw: "*.w.example.com", expected: "*.w.example.com" }],
  });
  assert.deepEqual(model.expectedHosts(), ["*.w.example.com", "a.example.com"]);
  model.apply({ kind: "ingress-delete", key: "shop/a" });
  assert.deepEqual(model.expectedHosts(), ["*.w.example.com"]);
  assert.deepEqual([...model.dropped], ["a.example.com"]);
  model.apply({
    kind: "slice-set",
    endpoints: [{ ip: "198.51.100.9", ready: true }, { ip: "198.51.100.10", ready: true }],
  });
  assert.deepEqual(model.publishable(), [["198.51.100.9", "198.51.100.10"]], "ready addresses: exactly them");
  model.apply({ kind: "slice-set", endpoints: [{ ip: "198.51.100.9", ready: false }] });
  assert.deepEqual(model.publishable(), [["198.51.100.1"], ["198.51.100.9", "198.51.100.10"]]);
});

Deno.test("soak model: with no address ready, kuberture may keep any ready set since it last settled, not older ones", () => {
  const model = new SoakModel();
  const set = (...ips: string[]) =>
    model.apply({ kind: "slice-set", endpoints: ips.map((ip) => ({ ip, ready: true })) });
  set("198.51.100.8");
  model.settle(["198.51.100.8"]);
  set("198.51.100.5", "198.51.100.29");
  set("198.51.100.4");
  model.apply({ kind: "slice-set", endpoints: [] });
  // A watch stalled through the last two sets leaves it at .8; one that saw them, at either.
  assert.deepEqual(model.publishable(), [["198.51.100.8"], ["198.51.100.5", "198.51.100.29"], [
    "198.51.100.4",
  ]]);
  model.settle(["198.51.100.4"]);
  assert.deepEqual(model.publishable(), [["198.51.100.4"]], "after settling, .8 is no longer a right answer");
  set("198.51.100.29", "198.51.100.5");
  assert.deepEqual(model.publishable(), [["198.51.100.5", "198.51.100.29"]]);
});
