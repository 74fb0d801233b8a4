/**
 * The controller's Prometheus metrics, declared in one place. The reflectors' counters are copied
 * from their status at scrape time, so the reflector needs no metrics dependency.
 *
 * Pure: in-memory series; the caller renders them.
 *
 * @module
 */

import { RESTART_REASONS } from "../reflector/failure.ts";
import type { ReflectorStatus } from "../reflector/reflector.ts";
import { MetricsRegistry, type NumberFamily } from "../util/metrics.ts";
import { registerBuildInfo } from "../util/process_metrics.ts";
import { REVISION } from "../util/revision.ts";
import type { ReconcileObserver, ReconcileResult } from "./loop_status.ts";

/** The results a reconcile is counted under. */
export const RECONCILE_RESULTS = ["unchanged", "written", "previewed", "refused", "error"] as const;

/** Reconcile duration buckets, in seconds. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Options for {@linkcode createControllerMetrics}. */
export interface ControllerMetricsOptions {
  /** Resident set size in bytes, sampled at scrape time. */
  readonly rss: () => number;
  /** Version string for `ouroboros_build_info`. */
  readonly version: string;
  /** Source revision for `ouroboros_build_info`. @default the build's (`unknown` from source) */
  readonly revision?: string;
  /** Adds the families the command owns (process metrics, API requests) after the standard ones. */
  readonly more?: (registry: MetricsRegistry) => void;
  /** Wall-clock time in Unix milliseconds, for the last-success timestamp. @default Date.now */
  readonly now?: () => number;
  /** The mode's refusal codes, each counted from zero (`Mode.refusalProblems`). @default none */
  readonly refusalProblems?: readonly string[];
  /** Whether this replica may write now (leader election). @default always */
  readonly leading?: () => boolean;
}

/** The registry plus the hooks that feed it. */
export interface ControllerMetrics {
  readonly registry: MetricsRegistry;
  /** Give this to the reconcile loop. */
  readonly observer: ReconcileObserver;
  /** Give this to the leader elector. */
  readonly election: { transition(change: "acquired" | "lost"): void };
  /** Copies the reflectors' counters in; call right before rendering. */
  collect(watched: readonly { readonly kind: string; status(): ReflectorStatus }[]): void;
}

/**
 * Registers the controller's metrics. Every reconcile result, refusal problem of the mode and
 * restart reason starts at zero, so alerts see the series before the first event.
 */
export function createControllerMetrics(options: ControllerMetricsOptions): ControllerMetrics {
  const now = options.now ?? Date.now;
  const registry = new MetricsRegistry();
  registerBuildInfo(registry, { version: options.version, revision: options.revision ?? REVISION });
  registry.sampledGauge(
    "process_resident_memory_bytes",
    "Resident memory size in bytes.",
    options.rss,
  );
  options.more?.(registry);
  const reconciles = registry.counter(
    "ouroboros_controller_reconciles_total",
    "Calls to the mode's writer, by result: unchanged (the target already matched), written, previewed " +
      "(--dry-run: it would have written), refused (writing would be unsafe; see the logs) or error " +
      "(retried with backoff).",
    ["result"],
  );
  for (const result of RECONCILE_RESULTS) reconciles.labels({ result });
  const skipped = registry.counter(
    "ouroboros_controller_reconciles_skipped_total",
    "Recomputes of the desired set that changed nothing, so the writer was not called " +
      "(such as a spec change that leaves every hostname as it was; status-only updates " +
      "do not recompute at all).",
  ).labels({});
  const writes = registry.counter(
    "ouroboros_controller_writes_total",
    "Writes to the target (ConfigMap) that changed it.",
  ).labels({});
  const refusals = registry.counter(
    "ouroboros_controller_refusals_total",
    "Reconciles refused by the writer, by problem (such as damaged markers or the 1 MiB limit).",
    ["problem"],
  );
  for (const problem of options.refusalProblems ?? []) refusals.labels({ problem });
  const duration = registry.histogram(
    "ouroboros_controller_reconcile_duration_seconds",
    "Time spent in the writer per reconcile.",
    [],
    DURATION_BUCKETS,
  ).labels({});
  const desired = registry.gauge(
    "ouroboros_controller_desired_hostnames",
    "Hostnames in the desired set at the last recompute.",
  ).labels({});
  const rejected = registry.gauge(
    "ouroboros_controller_rejected_hostnames",
    "Hostname values refused at the last recompute (invalid, hostile or under the cluster domain).",
  ).labels({});
  const skippedWildcards = registry.gauge(
    "ouroboros_controller_skipped_wildcards",
    "Wildcard hostnames (*.domain) at the last recompute that the mode cannot write (etc-hosts), so only " +
      "the exact hostnames are written; each is logged once per object change.",
  ).labels({});
  const lastSuccess = registry.gauge(
    "ouroboros_controller_last_successful_reconcile_timestamp_seconds",
    "Unix time of the last reconcile that left the target matching the desired set; 0 before the first.",
  ).labels({});
  const synced: NumberFamily<"kind"> = registry.gauge(
    "ouroboros_controller_cache_synced",
    "1 once the kind's cache has completed its first list.",
    ["kind"],
  );
  const leading = options.leading ?? (() => true);
  registry.sampledGauge(
    "ouroboros_leader",
    "1 while this replica may write (it holds the leader-election Lease, or election is off); 0 while it " +
      "stands by.",
    () => leading() ? 1 : 0,
  );
  const transitions = registry.counter(
    "ouroboros_leader_transitions_total",
    "Leadership changes of this replica: acquired, or lost (renewals failed, another replica took over, or " +
      "released at shutdown).",
    ["change"],
  );
  for (const change of ["acquired", "lost"] as const) transitions.labels({ change });
  const restarts: NumberFamily<"kind" | "reason"> = registry.counter(
    "ouroboros_controller_watch_restarts_total",
    "Restarts of a kind's list or watch, by reason (server-timeout is the normal end of a watch).",
    ["kind", "reason"],
  );

  const observer: ReconcileObserver = {
    desiredSet(hosts: number, rejectedCount: number, skippedCount: number): void {
      desired.value = hosts;
      rejected.value = rejectedCount;
      skippedWildcards.value = skippedCount;
    },
    skipped(): void {
      skipped.value += 1;
    },
    reconciled(result: ReconcileResult, durationMs: number): void {
      reconciles.labels({ result: result.kind }).value += 1;
      duration.observe(durationMs / 1000);
      if (result.kind === "written") writes.value += 1;
      if (result.kind === "refused") refusals.labels({ problem: result.problem }).value += 1;
      if (result.kind === "written" || result.kind === "unchanged") lastSuccess.value = now() / 1000;
    },
  };

  return {
    registry,
    observer,
    election: {
      transition(change): void {
        transitions.labels({ change }).value += 1;
      },
    },
    collect(watched): void {
      for (const entry of watched) {
        const status = entry.status();
        synced.labels({ kind: entry.kind }).value = status.synced ? 1 : 0;
        for (const reason of RESTART_REASONS) {
          restarts.labels({ kind: entry.kind, reason }).value = status.restarts[reason];
        }
      }
    },
  };
}
