/**
 * `gateway.networking.k8s.io/v1` HTTPRoute, narrowed to its hostnames and the Gateways
 * (listeners) it attaches to. Defaults of the Gateway API are filled in, so callers never
 * re-implement them: a parentRef's group is `gateway.networking.k8s.io`, its kind `Gateway`, its
 * namespace the route's own.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { GATEWAY_API_GROUP } from "./gateway.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** The fields of an HTTPRoute as the API server sends them (only those read here). */
export interface HttpRouteWire {
  metadata?: unknown;
  spec?: {
    hostnames?: string[];
    parentRefs?: {
      group?: string;
      kind?: string;
      namespace?: string;
      name?: string;
      sectionName?: string;
    }[];
  };
}

/** A reference from a route to the Gateway (or one of its listeners) it attaches to. */
export interface ParentReference {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  /** The listener name; absent means every listener of the Gateway. */
  readonly sectionName?: string;
}

/** An HTTPRoute as the controller sees it. */
export interface HttpRoute extends KubeObject {
  readonly spec: {
    readonly hostnames: readonly string[];
    readonly parentRefs: readonly ParentReference[];
  };
}

/** The HTTPRoute resource type (Gateway API CRDs; may be missing from a cluster). */
export const HTTP_ROUTE: ResourceType<HttpRoute> = defineResourceType<HttpRouteWire, HttpRoute>(
  { group: GATEWAY_API_GROUP, version: "v1", kind: "HTTPRoute", plural: "httproutes", namespaced: true },
  (root, metadata) => {
    const spec = root.object("spec");
    return {
      metadata,
      spec: {
        hostnames: spec.strings("hostnames"),
        parentRefs: spec.objects("parentRefs").map((ref) => {
          const sectionName = ref.optionalString("sectionName");
          const group = ref.optionalString("group");
          const namespace = ref.optionalString("namespace");
          return {
            // The Gateway API writes the core group as "" and defaults an absent group to its own.
            group: group === undefined ? GATEWAY_API_GROUP : group,
            kind: ref.optionalString("kind") || "Gateway",
            namespace: namespace || metadata.namespace,
            name: ref.string("name"),
            ...(sectionName === undefined || sectionName === "" ? {} : { sectionName }),
          };
        }),
      },
    };
  },
);

/** Decodes a raw HTTPRoute; never throws. */
export const decodeHttpRoute: Decoder<HttpRoute> = HTTP_ROUTE.decode;
