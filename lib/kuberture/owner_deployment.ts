/**
 * Finds the Deployment running this kuberture (pod `HOSTNAME` → ReplicaSet → Deployment) for the
 * owner reference on every object it writes. Best effort, as kuberture: without one (no Deployment,
 * no `get` on pods or replicasets) the chart's uninstall hook cleans up instead.
 *
 * Effects: two GETs.
 *
 * @module
 */

import type { KubeClient } from "../kube/client.ts";
import { errorMessage } from "../util/error_message.ts";
import { POD } from "../resources/pod.ts";
import { REPLICA_SET } from "../resources/replica_set.ts";
import type { ObjectMeta } from "../resources/kube_object.ts";
import type { Owner } from "./output_object.ts";

/** The owner, or why there is none (for one DEBUG/INFO line). */
export type OwnerLookup = { readonly kind: "found"; readonly owner: Owner } | {
  readonly kind: "none";
  readonly reason: string;
};

function controllerOf(metadata: ObjectMeta, kind: string) {
  return metadata.ownerReferences.find((ref) => ref.controller === true && ref.kind === kind);
}

/** Finds the Deployment of pod `podName`; any failure is `none` with its reason. */
export async function findOwnerDeployment(
  api: Pick<KubeClient, "get">,
  options: { readonly namespace: string; readonly podName: string; readonly signal?: AbortSignal },
): Promise<OwnerLookup> {
  const { namespace, podName } = options;
  if (podName === "") return { kind: "none", reason: "the pod's name (HOSTNAME) is unknown" };
  const call = options.signal === undefined ? {} : { signal: options.signal };
  try {
    const pod = await api.get(POD, { namespace, name: podName }, call);
    const replicaSet = controllerOf(pod.metadata, "ReplicaSet");
    if (replicaSet === undefined) {
      return { kind: "none", reason: `pod ${podName} is not run by a ReplicaSet` };
    }
    const rs = await api.get(REPLICA_SET, { namespace, name: replicaSet.name }, call);
    const deployment = controllerOf(rs.metadata, "Deployment");
    if (deployment === undefined) {
      return { kind: "none", reason: `ReplicaSet ${replicaSet.name} is not run by a Deployment` };
    }
    return {
      kind: "found",
      owner: {
        apiVersion: deployment.apiVersion,
        kind: "Deployment",
        name: deployment.name,
        uid: deployment.uid,
      },
    };
  } catch (error) {
    return { kind: "none", reason: errorMessage(error) };
  }
}
