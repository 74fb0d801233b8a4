/**
 * The class filters `--ingress-class` and `--gateway-class`; an empty filter keeps everything.
 * As the original: an Ingress without `spec.ingressClassName` is dropped by a filter (no legacy
 * annotation, no default class), and without a filter every route is kept, attached or not. With
 * one, a route is kept when a parentRef names a kept Gateway (`sectionName` and `port` ignored).
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

/** The Ingresses `--ingress-class` keeps. */
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

/** The Gateways of the class, and the routes with a parentRef to one of them. */
export interface GatewayApiSelection {
  readonly gateways: Gateway[];
  /** HTTPRoutes. */
  readonly routes: HttpRoute[];
  readonly grpcRoutes: GrpcRoute[];
  readonly tlsRoutes: TlsRoute[];
}

/** The Gateways of `gatewayClass` and the routes (of every kind) attached to one of them. */
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
 * The `namespace/name` of the Gateway a parentRef names, else `undefined`; empty group, kind or
 * namespace take the Gateway API defaults here too, not only in the decoder.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { parentGatewayKey } from "./filters.ts";
 *
 * assert.equal(parentGatewayKey({ group: "", kind: "", namespace: "", name: "gw" }, "shop"), "shop/gw");
 * assert.equal(parentGatewayKey({ group: "", kind: "Service", namespace: "", name: "db" }, "shop"), undefined);
 * ```
 */
export function parentGatewayKey(ref: ParentReference, routeNamespace: string): string | undefined {
  if (ref.group !== "" && ref.group !== GATEWAY_API_GROUP) return undefined;
  if (ref.kind !== "" && ref.kind !== "Gateway") return undefined;
  return objectKey({ namespace: ref.namespace === "" ? routeNamespace : ref.namespace, name: ref.name });
}
