/**
 * The shape every Gateway API route kind shares, narrowed to what hostnames need: `spec.hostnames`
 * and `spec.parentRefs`. HTTPRoute, GRPCRoute and TLSRoute all embed the Gateway API's common
 * route spec (its `parentRefs`) next to their own `hostnames`, so one decoder serves the three
 * kinds; each kind's file only names its group, version and plural.
 *
 * Defaults of the Gateway API are filled in, so callers never re-implement them: a parentRef's
 * group is `gateway.networking.k8s.io`, its kind `Gateway`, its namespace the route's own. An
 * explicit empty group (the core group, used for a Service parent) is kept as `""`.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { GATEWAY_API_GROUP } from "./gateway.ts";
import { IDENTITY_ONLY, type KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** The fields of a route as the API server sends them (only those read here). */
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
  /** The listener name; absent means every listener of the Gateway. */
  readonly sectionName?: string;
}

/** A route of any kind (HTTPRoute, GRPCRoute, TLSRoute) as the controller sees it. */
export interface GatewayRoute extends KubeObject {
  readonly spec: {
    readonly hostnames: readonly string[];
    readonly parentRefs: readonly ParentReference[];
  };
}

/** What names one route kind at one version; the group is always the Gateway API's. */
export interface RouteTypeNames {
  /** `v1`, `v1alpha2`, … */
  readonly version: string;
  /** `HTTPRoute`, `GRPCRoute`, `TLSRoute`. */
  readonly kind: string;
  /** `httproutes`, `grpcroutes`, `tlsroutes`. */
  readonly plural: string;
}

/**
 * A namespaced route type of the Gateway API group whose decoder reads the shared route shape.
 *
 * @example
 * ```ts
 * import { defineRouteType } from "./gateway_route.ts";
 *
 * const GRPC = defineRouteType({ version: "v1", kind: "GRPCRoute", plural: "grpcroutes" });
 * const decoded = GRPC.decode({
 *   apiVersion: "gateway.networking.k8s.io/v1",
 *   kind: "GRPCRoute",
 *   metadata: { name: "api", namespace: "shop", resourceVersion: "1" },
 *   spec: { hostnames: ["grpc.example.com"], parentRefs: [{ name: "gw" }] },
 * });
 * // decoded.ok; decoded.value.spec.parentRefs[0]:
 * // { group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "shop", name: "gw" }
 * ```
 */
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
}
