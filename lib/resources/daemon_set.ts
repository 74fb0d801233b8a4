/**
 * `apps/v1` DaemonSet as the etc-hosts uninstall steps read it: metadata, the pod selector's labels
 * (named in a message) and the rollout counts of its status, absent counts read as 0.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1DaemonSet } from "@kubernetes/client-node";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A DaemonSet's rollout, as its status reports it. */
export interface DaemonSetStatus {
  /** The generation the status describes; absent until the DaemonSet controller has looked. */
  readonly observedGeneration?: number;
  readonly desiredNumberScheduled: number;
  readonly updatedNumberScheduled: number;
  readonly numberReady: number;
}

/** A DaemonSet as the etc-hosts uninstall steps see it. */
export interface DaemonSet extends KubeObject {
  readonly selector: Readonly<Record<string, string>>;
  readonly status: DaemonSetStatus;
}

/** The DaemonSet resource type. */
export const DAEMON_SET: ResourceType<DaemonSet> = defineResourceType<V1DaemonSet, DaemonSet>(
  { group: "apps", version: "v1", kind: "DaemonSet", plural: "daemonsets", namespaced: true },
  (root, metadata) => {
    const status = root.object("status");
    const observedGeneration = status.optionalInteger("observedGeneration");
    return {
      metadata,
      selector: root.object("spec").object("selector").stringMap("matchLabels"),
      status: {
        ...(observedGeneration === undefined ? {} : { observedGeneration }),
        desiredNumberScheduled: status.optionalInteger("desiredNumberScheduled") ?? 0,
        updatedNumberScheduled: status.optionalInteger("updatedNumberScheduled") ?? 0,
        numberReady: status.optionalInteger("numberReady") ?? 0,
      },
    };
  },
);
