/**
 * The cluster's two steps of the etc-hosts uninstall, around the per-node cleanup (the chart's
 * pre-delete hook, `controller --mode=etc-hosts --cleanup` with `--cleanup-stop-daemonset` or
 * `--cleanup-await-daemonset`):
 * - stop: delete the controller DaemonSet with foreground propagation and wait until it is gone,
 *   which is when none of its pods is left to write the block back;
 * - await: wait until the node-cleanup DaemonSet is ready on every node it targets (its init
 *   container cleaned the node's hosts file), then delete it.
 *
 * Decisions a reader could not guess:
 * - Done means the status describes the current spec (`observedGeneration >= generation`) and
 *   ready = updated = desired; a DaemonSet with no node to run on (desired 0, observed) is done.
 * - Both steps fail (exit 1, so the uninstall fails) at their deadline instead of going on: a node
 *   left with entries pointing at a deleted proxy is worse than an uninstall to run again. The
 *   node-cleanup DaemonSet is then kept, so its pods can be looked at.
 * - Reads that fail are retried until the deadline; the last reason goes into the failure.
 *
 * `nodeCleanupProgress` is pure; the steps use the API client and the injected clock.
 *
 * @module
 */

import type { KubeClient } from "../../../kube/client.ts";
import { isNotFound } from "../../../kube/errors.ts";
import { DAEMON_SET, type DaemonSet } from "../../../resources/daemon_set.ts";
import type { Clock } from "../../../util/clock.ts";
import { errorMessage } from "../../../util/error_message.ts";
import { pollUntil } from "../../../util/poll_until.ts";

/** How often the DaemonSet is read while waiting. */
const POLL_MS = 1_000;

/** Where a node-cleanup DaemonSet stands. */
export type NodeCleanupProgress =
  | { readonly kind: "done"; readonly nodes: number }
  | {
    readonly kind: "waiting";
    readonly desired: number;
    readonly updated: number;
    readonly ready: number;
    /** The status describes the current spec. */
    readonly current: boolean;
  };

/** Where `daemonSet`'s rollout stands. Pure. */
export function nodeCleanupProgress(daemonSet: DaemonSet): NodeCleanupProgress {
  const { observedGeneration, desiredNumberScheduled: desired, updatedNumberScheduled: updated } =
    daemonSet.status;
  const ready = daemonSet.status.numberReady;
  const current = observedGeneration !== undefined &&
    observedGeneration >= (daemonSet.metadata.generation ?? 0);
  if (current && ready === desired && updated === desired) return { kind: "done", nodes: desired };
  return { kind: "waiting", desired, updated, ready, current };
}

/** One line for a waiting rollout. Pure. */
export function progressText(progress: Extract<NodeCleanupProgress, { kind: "waiting" }>): string {
  return `desired ${progress.desired}, updated ${progress.updated}, cleaned (ready) ${progress.ready}, ` +
    `status current: ${progress.current ? "yes" : "no"}`;
}

/** What a step ended with; the caller logs it (exit 0 for `done`, 1 for `failed`). */
export type StepOutcome =
  | { readonly kind: "done"; readonly message: string }
  | { readonly kind: "failed"; readonly message: string };

/** The namespace and name of a DaemonSet. */
export interface DaemonSetRef {
  readonly namespace: string;
  readonly name: string;
}

/** The clock, the abort signal and the deadline of a step. */
export interface StepOptions {
  readonly clock: Clock;
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
}

/** Deletes the controller DaemonSet (foreground) and waits until it is gone. */
export async function stopDaemonSet(
  client: Pick<KubeClient, "delete" | "get">,
  ref: DaemonSetRef,
  options: StepOptions,
): Promise<StepOutcome> {
  const { signal } = options;
  const where = `daemonset ${ref.namespace}/${ref.name}`;
  try {
    await client.delete(DAEMON_SET, ref, { signal, propagationPolicy: "Foreground" });
  } catch (error) {
    signal.throwIfAborted();
    if (!isNotFound(error)) {
      return {
        kind: "failed",
        message: `could not delete ${where} (${errorMessage(error)}); its pods may write their block again ` +
          `after the cleanup. Delete it by hand (kubectl --namespace ${ref.namespace} delete daemonset ` +
          `${ref.name}) and uninstall again`,
      };
    }
  }
  const gone = await pollUntil({ ...options, intervalMs: POLL_MS }, async () => {
    try {
      await client.get(DAEMON_SET, ref, { signal });
      return { waiting: "" };
    } catch (error) {
      if (isNotFound(error)) return { value: true };
      throw error;
    }
  });
  if ("value" in gone) {
    return { kind: "done", message: `${where} is gone: no controller pod is left to write the hosts files` };
  }
  return {
    kind: "failed",
    message: `${where} is still there after ${options.timeoutMs / 1000}s (pods still terminating, or a ` +
      `finalizer holds it${
        gone.timedOut === "" ? "" : `; last read: ${gone.timedOut}`
      }). See why with: kubectl ` +
      `--namespace ${ref.namespace} get daemonset ${ref.name} --output yaml; kubectl --namespace ` +
      `${ref.namespace} get pods --output wide. Uninstall again once it is gone`,
  };
}

/**
 * Waits until the node-cleanup DaemonSet has cleaned every node, then deletes it; `report` is told
 * each change of a waiting rollout.
 */
export async function awaitNodeCleanup(
  client: Pick<KubeClient, "delete" | "get">,
  ref: DaemonSetRef,
  options: StepOptions & { readonly report?: (text: string) => void },
): Promise<StepOutcome> {
  const { signal } = options;
  const where = `daemonset ${ref.namespace}/${ref.name}`;
  const byHand = `kubectl --namespace ${ref.namespace} delete daemonset ${ref.name}`;
  // The last waiting rollout seen (an object: the poll's callback sets it).
  const seen: { last?: { progress: Extract<NodeCleanupProgress, { kind: "waiting" }>; selector: string } } =
    {};
  type Found = "missing" | Extract<NodeCleanupProgress, { kind: "done" }>;
  const waited = await pollUntil<Found>({ ...options, intervalMs: POLL_MS }, async () => {
    let daemonSet: DaemonSet;
    try {
      daemonSet = await client.get(DAEMON_SET, ref, { signal });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return { value: "missing" as const };
    }
    const progress = nodeCleanupProgress(daemonSet);
    if (progress.kind === "done") return { value: progress };
    const selector = Object.entries(daemonSet.selector).map(([key, value]) => `${key}=${value}`).join(",");
    if (seen.last === undefined || progressText(seen.last.progress) !== progressText(progress)) {
      options.report?.(progressText(progress));
    }
    seen.last = { progress, selector };
    return { waiting: progressText(progress) };
  });
  if (!("value" in waited)) {
    const seconds = options.timeoutMs / 1000;
    const last = seen.last;
    let summary = `the state of ${where} could not be read (${waited.timedOut})`;
    let selector = "";
    if (last !== undefined) {
      const { desired, updated, ready } = last.progress;
      const left = Math.max(0, desired - Math.min(ready, updated));
      summary = `${left} of ${desired} nodes have not cleaned their hosts file (${
        progressText(last.progress)
      })`;
      selector = last.selector;
    }
    return {
      kind: "failed",
      message: `${summary} after ${seconds}s. The daemonset is kept so its pods can be inspected: kubectl ` +
        `--namespace ${ref.namespace} get pods --selector '${selector}' --output wide (the not Ready ones, ` +
        `and nodes with none), then kubectl --namespace ${ref.namespace} logs <pod> --all-containers. Fix ` +
        `the cause (or clean those nodes' hosts files by hand), delete the daemonset (${byHand}) and ` +
        "uninstall again",
    };
  }
  const done = waited.value;
  if (done === "missing") {
    return {
      kind: "failed",
      message: `${where} not found, so no node's hosts file was cleaned by it. Check the uninstall's hook ` +
        "resources, or remove the block between the ouroboros markers from each node's hosts file by hand",
    };
  }
  try {
    await client.delete(DAEMON_SET, ref, { signal });
  } catch (error) {
    signal.throwIfAborted();
    if (!isNotFound(error)) {
      return {
        kind: "failed",
        message: `every node is clean, but deleting ${where} failed (${errorMessage(error)}); delete it by ` +
          `hand: ${byHand}`,
      };
    }
  }
  return {
    kind: "done",
    message: done.nodes === 0
      ? `${where} runs on no node: no hosts file to clean; deleted it`
      : `all ${done.nodes} nodes have cleaned their hosts file; deleted ${where}`,
  };
}
