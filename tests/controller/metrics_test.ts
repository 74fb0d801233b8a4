import assert from "node:assert/strict";
import { createControllerMetrics } from "../../lib/controller/metrics.ts";
import { RESTART_REASONS } from "../../lib/reflector/failure.ts";
import type { ReflectorStatus } from "../../lib/reflector/reflector.ts";
import { parseMetrics, type Sample } from "../support/scrape.ts";

function value(
  samples: readonly Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return samples.find((sample) =>
    sample.name === name && Object.keys(sample.labels).length === Object.keys(labels).length &&
    Object.entries(labels).every(([key, v]) => sample.labels[key] === v)
  )?.value;
}

Deno.test("metrics: every reconcile result and restart reason exists at zero before anything happens", () => {
  const metrics = createControllerMetrics({ rss: () => 1234, version: "9.9.9", now: () => 0 });
  metrics.collect([{ kind: "Ingress", status: () => status(false, {}) }]);
  const samples = parseMetrics(metrics.registry.render());
  for (const result of ["unchanged", "written", "refused", "error"]) {
    assert.equal(value(samples, "ouroboros_controller_reconciles_total", { result }), 0, result);
  }
  for (const reason of RESTART_REASONS) {
    assert.equal(value(samples, "ouroboros_controller_watch_restarts_total", { kind: "Ingress", reason }), 0);
  }
  assert.equal(value(samples, "ouroboros_controller_cache_synced", { kind: "Ingress" }), 0);
  assert.equal(value(samples, "ouroboros_controller_last_successful_reconcile_timestamp_seconds"), 0);
  assert.equal(value(samples, "process_resident_memory_bytes"), 1234);
  assert.equal(value(samples, "ouroboros_build_info", { version: "9.9.9", revision: "unknown" }), 1);
});

function status(synced: boolean, restarts: Partial<ReflectorStatus["restarts"]>): ReflectorStatus {
  const all = Object.fromEntries(RESTART_REASONS.map((reason) => [reason, 0])) as Record<string, number>;
  return {
    resource: "r",
    phase: "watching",
    synced,
    condition: "healthy",
    resourceVersion: "1",
    restarts: { ...all, ...restarts } as ReflectorStatus["restarts"],
  };
}

Deno.test("metrics: the loop's reports and the reflectors' counters show up as an operator reads them", () => {
  let now = 1_700_000_000_000;
  const metrics = createControllerMetrics({ rss: () => 1, version: "1", now: () => now });
  const { observer } = metrics;
  observer.desiredSet(12, 2, 3);
  observer.reconciled({ kind: "written", hosts: 12, added: 12, removed: 0 }, 40);
  now += 60_000;
  observer.reconciled({ kind: "unchanged", hosts: 12 }, 5);
  observer.reconciled({
    kind: "refused",
    problem: "end-before-begin",
    message: "…",
    scope: "nothing-written",
  }, 3);
  observer.reconciled({ kind: "error", message: "503" }, 1);
  observer.skipped();
  observer.skipped();
  metrics.collect([
    { kind: "Ingress", status: () => status(true, { "server-timeout": 4, expired: 1 }) },
    { kind: "Gateway", status: () => status(true, { "not-found": 1 }) },
  ]);
  const samples = parseMetrics(metrics.registry.render());
  assert.equal(value(samples, "ouroboros_controller_desired_hostnames"), 12);
  assert.equal(value(samples, "ouroboros_controller_rejected_hostnames"), 2);
  assert.equal(value(samples, "ouroboros_controller_skipped_wildcards"), 3);
  assert.equal(value(samples, "ouroboros_controller_reconciles_total", { result: "written" }), 1);
  assert.equal(value(samples, "ouroboros_controller_reconciles_total", { result: "unchanged" }), 1);
  assert.equal(value(samples, "ouroboros_controller_reconciles_total", { result: "refused" }), 1);
  assert.equal(value(samples, "ouroboros_controller_reconciles_total", { result: "error" }), 1);
  assert.equal(value(samples, "ouroboros_controller_refusals_total", { problem: "end-before-begin" }), 1);
  assert.equal(value(samples, "ouroboros_controller_writes_total"), 1);
  assert.equal(value(samples, "ouroboros_controller_reconciles_skipped_total"), 2);
  assert.equal(value(samples, "ouroboros_controller_reconcile_duration_seconds_count"), 4);
  assert.equal(
    value(samples, "ouroboros_controller_last_successful_reconcile_timestamp_seconds"),
    1_700_000_060,
    "the unchanged reconcile was the last success; the refusal and the error do not count",
  );
  assert.equal(
    value(samples, "ouroboros_controller_watch_restarts_total", { kind: "Ingress", reason: "expired" }),
    1,
  );
  assert.equal(
    value(samples, "ouroboros_controller_watch_restarts_total", {
      kind: "Ingress",
      reason: "server-timeout",
    }),
    4,
  );
  assert.equal(
    value(samples, "ouroboros_controller_watch_restarts_total", { kind: "Gateway", reason: "not-found" }),
    1,
  );
  assert.equal(value(samples, "ouroboros_controller_cache_synced", { kind: "Gateway" }), 1);
});

Deno.test("metrics: a dry run's previews are counted apart; they are neither writes nor a matching target", () => {
  const metrics = createControllerMetrics({ rss: () => 1, version: "1", now: () => 1_700_000_000_000 });
  metrics.observer.reconciled({ kind: "previewed", hosts: 3, added: 3, removed: 0 }, 7);
  metrics.observer.reconciled({ kind: "previewed", hosts: 3, added: 3, removed: 0 }, 7);
  const samples = parseMetrics(metrics.registry.render());
  assert.equal(value(samples, "ouroboros_controller_reconciles_total", { result: "previewed" }), 2);
  assert.equal(value(samples, "ouroboros_controller_writes_total"), 0);
  assert.equal(value(samples, "ouroboros_controller_last_successful_reconcile_timestamp_seconds"), 0);
});

Deno.test("metrics: the mode's refusal problems exist at zero, and a refusal counts under its problem", () => {
  const metrics = createControllerMetrics({
    rss: () => 1,
    version: "1",
    refusalProblems: ["too-large", "immutable"],
  });
  let samples = parseMetrics(metrics.registry.render());
  assert.equal(value(samples, "ouroboros_controller_refusals_total", { problem: "too-large" }), 0);
  assert.equal(value(samples, "ouroboros_controller_refusals_total", { problem: "immutable" }), 0);
  metrics.observer.reconciled({
    kind: "refused",
    problem: "immutable",
    message: "m",
    scope: "nothing-written",
  }, 3);
  samples = parseMetrics(metrics.registry.render());
  assert.equal(value(samples, "ouroboros_controller_refusals_total", { problem: "immutable" }), 1);
  assert.equal(value(samples, "ouroboros_controller_refusals_total", { problem: "too-large" }), 0);
});
