/**
 * kuberture's metrics under kuberture's own names, so dashboards and alerts written for it keep
 * working, next to ours (build info, leadership, outputs held back, memory).
 *
 * Pure: builds the metric families in a registry; no I/O.
 *
 * @module
 */

import { MetricsRegistry, type NumberFamily } from "../util/metrics.ts";
import { registerBuildInfo } from "../util/process_metrics.ts";
import { REVISION } from "../util/revision.ts";

/** Options for {@linkcode createKubertureMetrics}. */
export interface KubertureMetricsOptions {
  readonly version: string;
  /** Source revision for `ouroboros_build_info`. @default the build's (`unknown` from source) */
  readonly revision?: string;
  /** Adds the families the command owns (process metrics, API requests) after the standard ones. */
  readonly more?: (registry: MetricsRegistry) => void;
  /** Resident set size in bytes, sampled at scrape time. */
  readonly rss: () => number;
  /** Whether this replica may write now. */
  readonly leading: () => boolean;
  /** Unix milliseconds. @default Date.now */
  readonly now?: () => number;
}

/** The registry and the calls that feed it. */
export interface KubertureMetrics {
  readonly registry: MetricsRegistry;
  /** A pass ended: `success` (every output and the prune went through) or `error`. */
  reconciled(status: "success" | "error"): void;
  /** Addresses resolved for an output at the last pass (0 while the guard holds it back). */
  resolved(output: string, addresses: number): void;
  /** Whether an output is held back by the zero-address guard now. */
  heldBack(output: string, held: boolean): void;
  /** Whether an output's name is held by an object that is not this instance's. */
  refused(output: string, refused: boolean): void;
  /** Forgets the series of outputs no longer configured. */
  retain(outputs: readonly string[]): void;
  /** A leadership change of this replica. */
  transition(change: "acquired" | "lost"): void;
}

/** Registers kuberture's metrics. */
export function createKubertureMetrics(options: KubertureMetricsOptions): KubertureMetrics {
  const now = options.now ?? Date.now;
  const registry = new MetricsRegistry();
  registerBuildInfo(registry, { version: options.version, revision: options.revision ?? REVISION });
  registry.sampledGauge("process_resident_memory_bytes", "Resident memory size in bytes.", options.rss);
  options.more?.(registry);
  const reconciles = registry.counter(
    "kuberture_reconcile_total",
    "Reconcile passes by status: success (every output written or kept, stale objects deleted) or error.",
    ["status"],
  );
  for (const status of ["success", "error"]) reconciles.labels({ status });
  const resolved: NumberFamily<"output"> = registry.gauge(
    "kuberture_endpoints_resolved",
    "Addresses resolved for each output at the last pass.",
    ["output"],
  );
  const last = registry.gauge(
    "kuberture_last_reconcile_timestamp",
    "Unix time of the last successful pass; 0 before the first.",
  ).labels({});
  const held: NumberFamily<"output"> = registry.gauge(
    "ouroboros_kuberture_output_held_back",
    "1 while an output resolves no address and its published object is kept as it was (the split-brain guard).",
    ["output"],
  );
  const refusedOutputs: NumberFamily<"output"> = registry.gauge(
    "ouroboros_kuberture_output_refused",
    "1 while an output's name is held by an object this instance did not write (left alone; the output is not published).",
    ["output"],
  );
  registry.sampledGauge(
    "ouroboros_leader",
    "1 while this replica may write (it holds the leader-election Lease, or election is off); 0 while it stands by.",
    () => options.leading() ? 1 : 0,
  );
  const transitions = registry.counter(
    "ouroboros_leader_transitions_total",
    "Leadership changes of this replica: acquired, or lost.",
    ["change"],
  );
  for (const change of ["acquired", "lost"] as const) transitions.labels({ change });
  const known = new Set<string>();
  return {
    registry,
    reconciled(status): void {
      reconciles.labels({ status }).value += 1;
      if (status === "success") last.value = Math.floor(now() / 1000);
    },
    resolved(output, addresses): void {
      known.add(output);
      resolved.labels({ output }).value = addresses;
    },
    heldBack(output, isHeld): void {
      known.add(output);
      held.labels({ output }).value = isHeld ? 1 : 0;
    },
    refused(output, isRefused): void {
      known.add(output);
      refusedOutputs.labels({ output }).value = isRefused ? 1 : 0;
    },
    retain(outputs): void {
      for (const output of known) {
        if (outputs.includes(output)) continue;
        resolved.labels({ output }).value = 0;
        held.labels({ output }).value = 0;
        refusedOutputs.labels({ output }).value = 0;
      }
    },
    transition(change): void {
      transitions.labels({ change }).value += 1;
    },
  };
}
