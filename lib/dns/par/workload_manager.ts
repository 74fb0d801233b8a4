/**
 * The workload opt-in, carried out: each pass plans (`planWorkloads`) and writes the steps. Records
 * problems are not reported here: `buildAnswerer` already does.
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
  readonly deployments: readonly Deployment[];
  readonly records: readonly Records[];
  /** This server's Service ClusterIP; `""` while unknown (nothing is opted in then). */
  readonly nameserver: string;
  /** This server's own pods, once known; wins over the constructor's. */
  readonly self?: SelfSelector;
}

/** What stays the same from pass to pass. */
export interface WorkloadManagerOptions {
  readonly clusterDomain: string;
  /** This server's own pods, never opted in. */
  readonly self?: SelfSelector;
}

/** Opts Deployments in and out as the Records say. */
export class WorkloadManager {
  readonly #api: ParWriteApi;
  readonly #options: WorkloadManagerOptions;
  readonly #pending = new PendingWrites();

  constructor(api: ParWriteApi, options: WorkloadManagerOptions) {
    this.#api = api;
    this.#options = options;
  }

  /** One pass, writes one after the other; an abort stops it and is rethrown. */
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
