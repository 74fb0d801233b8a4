/**
 * Stops a controller Deployment before its output is cleaned up on uninstall, so it cannot write
 * again what the cleanup removes: scale it to 0, then wait until none of its pods is left.
 *
 * Decisions a reader could not guess:
 * - The pods are what counts, listed by the Deployment's selector labels: `status.replicas` never
 *   counts pods that are shutting down, and `status.terminatingReplicas` exists only from
 *   Kubernetes 1.33 on.
 * - The scale goes through the `scale` subresource, which RBAC grants apart from the Deployment.
 * - A Deployment that is not there still has its pods waited for: Helm deletes it before a
 *   post-delete hook runs, and deleting it does not wait for them (nor is a DaemonSet controller,
 *   named here, a Deployment: its pods are waited for alike).
 * - Trouble is an outcome, never a throw: the caller goes on with the cleanup either way (a block
 *   left behind is worse than one a lingering controller may write again) and says so.
 *
 * Effects: the API client, the injected clock.
 *
 * @module
 */

import type { KubeClient } from "../kube/client.ts";
import { isNotFound } from "../kube/errors.ts";
import { DEPLOYMENT } from "../resources/deployment.ts";
import type { ListPage } from "../kube/list_watch.ts";
import { POD, type Pod } from "../resources/pod.ts";
import type { Clock } from "../util/clock.ts";
import { errorMessage } from "../util/error_message.ts";
import { pollUntil } from "../util/poll_until.ts";

/** The Deployment to stop and how to find its pods. */
export interface QuiesceTarget {
  readonly namespace: string;
  readonly name: string;
  /** Its pods' label selector (`a=b,c=d`). */
  readonly selector: string;
  /** How long to wait for the pods to go. */
  readonly timeoutMs: number;
}

/** What {@linkcode quiesceDeployment} found. */
export type QuiesceOutcome =
  | { readonly kind: "quiesced" }
  /** No Deployment of that name to scale, and none of its pods is left. */
  | { readonly kind: "absent" }
  /** Pods were still there at the deadline (`left` names them, or says why they could not be listed). */
  | { readonly kind: "timed-out"; readonly left: string }
  | { readonly kind: "not-scaled"; readonly error: string };

/** How often the pods are listed while waiting. */
const POLL_MS = 1_000;

/** Scales `target` to 0 and waits for its pods to go; never rejects but on `signal`. */
export async function quiesceDeployment(
  client: Pick<KubeClient, "scale" | "list">,
  target: QuiesceTarget,
  options: { readonly clock: Clock; readonly signal: AbortSignal },
): Promise<QuiesceOutcome> {
  const { clock, signal } = options;
  let gone: QuiesceOutcome = { kind: "quiesced" };
  try {
    await client.scale(DEPLOYMENT, { namespace: target.namespace, name: target.name }, 0, { signal });
  } catch (error) {
    signal.throwIfAborted();
    if (!isNotFound(error)) return { kind: "not-scaled", error: errorMessage(error) };
    gone = { kind: "absent" };
  }
  const waited = await pollUntil(
    { clock, signal, timeoutMs: target.timeoutMs, intervalMs: POLL_MS },
    async () => {
      let pods: ListPage<Pod>;
      try {
        pods = await client.list(POD, {
          namespace: target.namespace,
          labelSelector: target.selector,
          signal,
        });
      } catch (error) {
        signal.throwIfAborted();
        return { waiting: `pods unreadable: ${errorMessage(error)}` };
      }
      if (pods.items.length === 0) return { value: gone };
      return {
        waiting: `${pods.items.length} pod(s) left: ${pods.items.map((pod) => pod.metadata.name).join(" ")}`,
      };
    },
  );
  return "value" in waited ? waited.value : { kind: "timed-out", left: waited.timedOut };
}
