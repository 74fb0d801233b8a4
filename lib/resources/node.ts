/**
 * Core `v1` Node (cluster-scoped), narrowed to the addresses its kubelet reports: the list a
 * Service endpoint is mapped back to when the Node's own address is to be published.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Node } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One entry of `status.addresses`. */
export interface NodeAddress {
  /** `InternalIP`, `ExternalIP`, `Hostname`, `InternalDNS` or `ExternalDNS`, as written. */
  readonly type: string;
  /** An IP for the `*IP` types, a name for the others. */
  readonly address: string;
}

/** A Node as its readers see it. */
export interface Node extends KubeObject {
  readonly status: {
    /** In the kubelet's order, which matters: readers take the first address of a kind. */
    readonly addresses: readonly NodeAddress[];
  };
}

/** The Node resource type. */
export const NODE: ResourceType<Node> = defineResourceType<V1Node, Node>(
  { group: "", version: "v1", kind: "Node", plural: "nodes", namespaced: false },
  (root, metadata) => ({
    metadata,
    status: {
      addresses: root.object("status").objects("addresses").map((address) => ({
        type: address.string("type"),
        address: address.string("address"),
      })),
    },
  }),
);

/** Decodes a raw Node; never throws. */
export const decodeNode: Decoder<Node> = NODE.decode;
