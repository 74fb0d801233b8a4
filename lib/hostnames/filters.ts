/**
 * The class filters: `--ingress-class` and `--gateway-class`. An empty filter keeps everything.
 *
 * - Ingress: kept when `spec.ingressClassName` equals the filter. An Ingress without a class is
 *   dropped when a filter is set; neither the legacy `kubernetes.io/ingress.class` annotation nor
 *   the cluster's default IngressClass is consulted (as in the original).
 * - Gateway: kept when `spec.gatewayClassName` equals the filter.
 * - HTTPRoute, GRPCRoute, TLSRoute (one rule for every route kind): with a filter set, kept when at least one parentRef names a kept Gateway. A
 *   parentRef's namespace defaults to the route's own, its group may be empty or
 *   `gateway.networking.k8s.io`, its kind empty or `Gateway`; parents of other kinds (a Service,
 *   GEP-1426) are skipped, and `sectionName` and `port` are ignored. Without a filter every route
 *   is kept, attached or not (as in the original).
 *
 * Pure: no I/O.
 *
 * @module
 */

import { objectKey } from "../resources/kube_object.ts";
import { type Gateway, GATEWAY_API_GROUP } from "../resources/gateway.ts";
import type { GatewayRoute, ParentReference } from "../resources/gateway_route.ts";
import type { GrpcRoute } from "../resources/grpc_route.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { TlsRoute } from "../resources/tls_route.ts";
import type { Ingress } from "../resources/ingress.ts";

/**
 * The Ingresses `--ingress-class` keeps.
 *
 * @example
 * ```ts
 * import type { Ingress } from "../resources/ingress.ts";
 * import { filterIngresses } from "./filters.ts";
 *
 * declare const all: readonly Ingress[];
 * filterIngresses(all, "nginx"); // only those with spec.ingressClassName "nginx"
 * filterIngresses(all, ""); // all of them
 * ```
 */
export function filterIngresses(ingresses: readonly Ingress[], ingressClass: string): Ingress[] {
  if (ingressClass === "") return [...ingresses];
  return ingresses.filter((ingress) => ingress.spec.ingressClassName === ingressClass);
}

/** Gateways and routes, before the class filter; an absent route list holds nothing. */
export interface GatewayApiObjects {
  readonly gateways: readonly Gateway[];
  /** HTTPRoutes. */
  readonly routes: readonly HttpRoute[];
  readonly grpcRoutes?: readonly GrpcRoute[];
  readonly tlsRoutes?: readonly TlsRoute[];
}

/** Gateways and routes after `--gateway-class`. */
export interface GatewayApiSelection {
  /** The Gateways of the class. */
  readonly gateways: Gateway[];
  /** The HTTPRoutes with a parentRef to one of those Gateways. */
  readonly routes: HttpRoute[];
  /** The GRPCRoutes with a parentRef to one of those Gateways. */
  readonly grpcRoutes: GrpcRoute[];
  /** The TLSRoutes with a parentRef to one of those Gateways. */
  readonly tlsRoutes: TlsRoute[];
}

/**
 * The Gateways of `gatewayClass` and the routes (of every kind) attached to at least one of them.
 *
 * @example
 * ```ts
 * import type { Gateway } from "../resources/gateway.ts";
 * import type { HttpRoute } from "../resources/http_route.ts";
 * import { filterGatewayApi } from "./filters.ts";
 *
 * declare const all: readonly Gateway[];
 * declare const allRoutes: readonly HttpRoute[];
 * const { gateways, routes } = filterGatewayApi({ gateways: all, routes: allRoutes }, "cilium");
 * // gateways: those of class "cilium"; routes: those with a parentRef to one of them
 * ```
 */
export function filterGatewayApi(objects: GatewayApiObjects, gatewayClass: string): GatewayApiSelection {
  const { gateways, routes, grpcRoutes = [], tlsRoutes = [] } = objects;
  if (gatewayClass === "") {
    return {
      gateways: [...gateways],
      routes: [...routes],
      grpcRoutes: [...grpcRoutes],
      tlsRoutes: [...tlsRoutes],
    };
  }
  const kept = gateways.filter((gateway) => gateway.spec.gatewayClassName === gatewayClass);
  const keys = new Set(kept.map((gateway) => objectKey(gateway.metadata)));
  const attached = <R extends GatewayRoute>(list: readonly R[]): R[] =>
    list.filter((route) =>
      route.spec.parentRefs.some((ref) => {
        const key = parentGatewayKey(ref, route.metadata.namespace);
        return key !== undefined && keys.has(key);
      })
    );
  return {
    gateways: kept,
    routes: attached(routes),
    grpcRoutes: attached(grpcRoutes),
    tlsRoutes: attached(tlsRoutes),
  };
}

/**
 * The `namespace/name` of the Gateway a parentRef names, or `undefined` when it names something
 * else. Defaults are applied here as well as in the decoder, so an empty group, kind or namespace
 * means the Gateway API default.
 *
 * @example
 * ```ts
 * import { parentGatewayKey } from "./filters.ts";
 *
 * parentGatewayKey({ group: "", kind: "", namespace: "", name: "gw" }, "shop"); // "shop/gw"
 * parentGatewayKey({ group: "", kind: "Service", namespace: "", name: "db" }, "shop"); // undefined
 * ```
 */
export function parentGatewayKey(ref: ParentReference, routeNamespace: string): string | undefined {
  if (ref.group !== "" && ref.group !== GATEWAY_API_GROUP) return undefined;
  if (ref.kind !== "" && ref.kind !== "Gateway") return undefined;
  return objectKey({ namespace: ref.namespace === "" ? routeNamespace : ref.namespace, name: ref.name });
}
