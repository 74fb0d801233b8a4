/**
 * `coordination.k8s.io/v1` Lease, leader election's record. Timestamps stay strings: an elector
 * only compares records for change and never trusts another process's clock.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Lease } from "@kubernetes/client-node";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** The spec of a Lease, every field optional as in the API. */
export interface LeaseSpec {
  /** Absent or `""` when released. */
  readonly holderIdentity?: string;
  readonly leaseDurationSeconds?: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions?: number;
}

/** A Lease as an elector sees it. */
export interface Lease extends KubeObject {
  readonly spec: LeaseSpec;
}

/** The Lease resource type. */
export const LEASE: ResourceType<Lease> = defineResourceType<V1Lease, Lease>(
  { group: "coordination.k8s.io", version: "v1", kind: "Lease", plural: "leases", namespaced: true },
  (root, metadata) => {
    const spec = root.object("spec");
    const holderIdentity = spec.optionalString("holderIdentity");
    const leaseDurationSeconds = spec.optionalInteger("leaseDurationSeconds");
    const acquireTime = spec.optionalString("acquireTime");
    const renewTime = spec.optionalString("renewTime");
    const leaseTransitions = spec.optionalInteger("leaseTransitions");
    return {
      metadata,
      spec: {
        ...(holderIdentity === undefined ? {} : { holderIdentity }),
        ...(leaseDurationSeconds === undefined ? {} : { leaseDurationSeconds }),
        ...(acquireTime === undefined ? {} : { acquireTime }),
        ...(renewTime === undefined ? {} : { renewTime }),
        ...(leaseTransitions === undefined ? {} : { leaseTransitions }),
      },
    };
  },
);
