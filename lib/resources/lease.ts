/**
 * `coordination.k8s.io/v1` Lease: the record leader election keeps. Timestamps stay the strings
 * the server stores (`MicroTime`, `2026-12-03T13:37:03.123456Z`): an elector compares records for
 * change and never trusts another process's clock, so it has no reason to parse them.
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
  /** Who holds it; absent or `""` when nobody does (released). */
  readonly holderIdentity?: string;
  /** How long the holder may go without renewing before others may take over. */
  readonly leaseDurationSeconds?: number;
  /** When the current holder acquired it (the holder's clock). */
  readonly acquireTime?: string;
  /** When the current holder last renewed it (the holder's clock). */
  readonly renewTime?: string;
  /** How many times the holder changed. */
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
