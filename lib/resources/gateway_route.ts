/**
 * What every Gateway API route kind shares (`hostnames`, `parentRefs`), so one decoder serves
 * HTTPRoute, GRPCRoute and TLSRoute. The Gateway API's parentRef defaults are filled in here.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { GATEWAY_API_GROUP } from "./gateway.ts";
import { IDENTITY_ONLY, type KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A route on the wire (the fields read here). */
export interface GatewayRouteWire {
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
  /** The listener; absent: every listener. */
  readonly sectionName?: string;
}

/** A route of any kind (HTTPRoute, GRPCRoute, TLSRoute) as the controller sees it. */
export interface GatewayRoute extends KubeObject {
  readonly spec: {
    readonly hostnames: readonly string[];
    readonly parentRefs: readonly ParentReference[];
  };
}

/** One route kind at one version; the group is always the Gateway API's. */
export interface RouteTypeNames {
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
}

/** A namespaced Gateway API route type that reads the shared route shape. */
export function defineRouteType(names: RouteTypeNames): ResourceType<GatewayRoute> {
  return defineResourceType<GatewayRouteWire, GatewayRoute>(
    { group: GATEWAY_API_GROUP, ...names, namespaced: true, metadata: IDENTITY_ONLY },
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
              // The core group is written as ""; an absent group defaults to the Gateway API's.
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
}
