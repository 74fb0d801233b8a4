/**
 * Core `v1` Pod: metadata (for walking owners to the Deployment) and what the DNS responder needs
 * to map a query's source address to a pod.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Pod } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A Pod as its readers see it. */
export interface Pod extends KubeObject {
  readonly spec: {
    /** Its source address then names the node, not the pod. */
    readonly hostNetwork: boolean;
  };
  readonly status: {
    readonly phase?: string;
    readonly podIP?: string;
    /** One per IP family. */
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
