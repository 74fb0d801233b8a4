/**
 * Core `v1` Node, narrowed to the addresses its kubelet reports.
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
  readonly type: string;
  /** An IP for the `*IP` types, else a name. */
  readonly address: string;
}

/** A Node as its readers see it. */
export interface Node extends KubeObject {
  readonly status: {
    /** Order matters: readers take the first address of a kind. */
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
