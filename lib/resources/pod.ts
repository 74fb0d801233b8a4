/**
 * Core `v1` Pod: its metadata (a process finds its own Pod by name to walk its owner references,
 * Pod → ReplicaSet → Deployment) and what the DNS responder needs to map a query's source
 * address to a pod: its addresses, whether it shares the node's network, and its phase.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Pod } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A Pod as its readers see it: its metadata (owner references included), network and phase. */
export interface Pod extends KubeObject {
  readonly spec: {
    /**
     * `spec.hostNetwork`: the pod uses the node's addresses, so its source address names the
     * node, not the pod. `false` when absent.
     */
    readonly hostNetwork: boolean;
  };
  readonly status: {
    /** `Pending`, `Running`, `Succeeded`, `Failed`, `Unknown`; absent before the scheduler writes one. */
    readonly phase?: string;
    /** `status.podIP`, the primary address; absent until the pod has one. */
    readonly podIP?: string;
    /** `status.podIPs[].ip`: one per family on dual-stack clusters; `[]` when absent. */
    readonly podIPs: readonly string[];
  };
}

/** The Pod resource type. */
export const POD: ResourceType<Pod> = defineResourceType<V1Pod, Pod>(
  { group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true },
  (root, metadata) => {
    const status = root.object("status");
    const phase = status.optionalString("phase");
    const podIP = status.optionalString("podIP");
    return {
      metadata,
      spec: { hostNetwork: root.object("spec").optionalBoolean("hostNetwork") ?? false },
      status: {
        ...(phase === undefined || phase === "" ? {} : { phase }),
        ...(podIP === undefined || podIP === "" ? {} : { podIP }),
        podIPs: status.objects("podIPs").map((entry) => entry.optionalString("ip") ?? "").filter((ip) =>
          ip !== ""
        ),
      },
    };
  },
);

/** Decodes a raw Pod; never throws. */
export const decodePod: Decoder<Pod> = POD.decode;
