/**
 * `apps/v1` ReplicaSet, metadata only: the step from a Pod's owner to its Deployment.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1ReplicaSet } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A ReplicaSet as its readers see it. */
export type ReplicaSet = KubeObject;

/** The ReplicaSet resource type. */
export const REPLICA_SET: ResourceType<ReplicaSet> = defineResourceType<V1ReplicaSet, ReplicaSet>(
  { group: "apps", version: "v1", kind: "ReplicaSet", plural: "replicasets", namespaced: true },
  (_root, metadata) => ({ metadata }),
);

/** Decodes a raw ReplicaSet; never throws. */
export const decodeReplicaSet: Decoder<ReplicaSet> = REPLICA_SET.decode;
