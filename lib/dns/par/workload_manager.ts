/**
 * The workload opt-in, carried out: each pass plans from the current Deployments and Records
 * (`planWorkloads`) and writes the steps, one conditional merge patch per Deployment, returning
 * one outcome per Deployment concerned. The caller (the DNS runtime) passes what its caches hold
 * and logs the outcomes. Problems with the Records themselves are not repeated here: the answer
 * planning (`buildAnswerer`) returns them, from the same `acceptRecordsEntries`.
 *
 * Effects: writes Deployments through the API client.
 *
 * @module
 */

import { DEPLOYMENT, type Deployment } from "../../resources/deployment.ts";
import type { Records } from "../../resources/records.ts";
import { acceptRecordsEntries } from "../answer/records_entries.ts";
import { type ParOutcome, type ParWriteApi, patchObject, PendingWrites, targetName } from "./par_outcome.ts";
import { planWorkloads, type SelfSelector } from "./plan_workloads.ts";

/** What one pass works from. */
export interface WorkloadState {
  /** Every Deployment the opt-in may touch (all namespaces with Records, or the whole cluster). */
  readonly deployments: readonly Deployment[];
  readonly records: readonly Records[];
  /** This server's Service ClusterIP; `""` while unknown (nothing is opted in then). */
  readonly nameserver: string;
  /** This server's own pods (its Service's selector), once known; wins over the constructor's. */
  readonly self?: SelfSelector;
}

/** What stays the same from pass to pass. */
export interface WorkloadManagerOptions {
  /** `cluster.local` or the cluster's own. */
  readonly clusterDomain: string;
  /** This server's own pods, never opted in. */
  readonly self?: SelfSelector;
}

/**
 * Opts Deployments in and out as the Records say.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../kube/client.ts";
 * import { WorkloadManager } from "./workload_manager.ts";
 *
 * declare const client: KubeClient;
 * const manager = new WorkloadManager(client, { clusterDomain: "cluster.local" });
 * const outcomes = await manager.sync(
 *   { deployments: [], records: [], nameserver: "10.96.0.53" },
 *   new AbortController().signal,
 * );
 * ```
 */
export class WorkloadManager {
  readonly #api: ParWriteApi;
  readonly #options: WorkloadManagerOptions;
  readonly #pending = new PendingWrites();

  /** Writes with `api` (only `mergePatch` is used). */
  constructor(api: ParWriteApi, options: WorkloadManagerOptions) {
    this.#api = api;
    this.#options = options;
  }

  /**
   * One pass: an outcome for every Deployment that an entry selects or that carries the
   * annotation. Writes run one after the other; an abort stops the pass and is rethrown.
   */
  async sync(state: WorkloadState, signal: AbortSignal): Promise<readonly ParOutcome[]> {
    const { entries } = acceptRecordsEntries(state.records);
    const steps = planWorkloads(state.deployments, {
      entries,
      nameserver: state.nameserver,
      clusterDomain: this.#options.clusterDomain,
      ...((state.self ?? this.#options.self) === undefined ? {} : { self: state.self ?? this.#options.self }),
    });
    const outcomes: ParOutcome[] = [];
    const seen = new Set<string>();
    for (const step of steps) {
      signal.throwIfAborted();
      const target = targetName("Deployment", step.deployment);
      seen.add(target);
      if (step.kind === "unchanged") outcomes.push({ kind: "unchanged", target });
      else if (step.kind === "skipped") outcomes.push({ kind: "skipped", target, reason: step.reason });
      else if (this.#pending.waiting(target, step.deployment)) outcomes.push({ kind: "unchanged", target });
      else {
        const outcome = await patchObject(this.#api, {
          type: DEPLOYMENT,
          object: step.deployment,
          patch: step.patch,
          action: step.kind,
          detail: step.detail,
          signal,
        });
        this.#pending.record(outcome, step.deployment);
        outcomes.push(outcome);
      }
    }
    this.#pending.retain(seen);
    return outcomes;
  }
}
