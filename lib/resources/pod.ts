/**
 * Core `v1` Pod, metadata only: a process finds its own Pod by name to walk its owner
 * references (Pod → ReplicaSet → Deployment).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Pod } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A Pod as its readers see it: its metadata, owner references included. */
export type Pod = KubeObject;

/** The Pod resource type. */
export const POD: ResourceType<Pod> = defineResourceType<V1Pod, Pod>(
  { group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true },
  (_root, metadata) => ({ metadata }),
);

/** Decodes a raw Pod; never throws. */
export const decodePod: Decoder<Pod> = POD.decode;
