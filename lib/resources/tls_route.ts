/**
 * Gateway API TLSRoute, with the shared route shape (`gateway_route.ts`). It exists at `v1`,
 * `v1alpha3` and `v1alpha2` with the same fields; which is served depends on the CRD bundle, so
 * {@linkcode TLS_ROUTE_VERSIONS} lists them newest first for `first_served_list_watcher.ts`.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoded } from "./json.ts";
import { defineRouteType, type GatewayRoute } from "./gateway_route.ts";
import { apiVersion as apiVersionOf, type ResourceType } from "./resource_type.ts";

/** A TLSRoute as the controller sees it (any version). */
export type TlsRoute = GatewayRoute;

/** TLSRoute at `v1`. */
export const TLS_ROUTE_V1: ResourceType<TlsRoute> = defineRouteType({
  version: "v1",
  kind: "TLSRoute",
  plural: "tlsroutes",
});

/** TLSRoute at `v1alpha3`. */
export const TLS_ROUTE_V1ALPHA3: ResourceType<TlsRoute> = defineRouteType({
  version: "v1alpha3",
  kind: "TLSRoute",
  plural: "tlsroutes",
});

/** TLSRoute at `v1alpha2`. */
export const TLS_ROUTE_V1ALPHA2: ResourceType<TlsRoute> = defineRouteType({
  version: "v1alpha2",
  kind: "TLSRoute",
  plural: "tlsroutes",
});

/** Every TLSRoute version, newest first (the order they are tried). */
export const TLS_ROUTE_VERSIONS: readonly ResourceType<TlsRoute>[] = [
  TLS_ROUTE_V1,
  TLS_ROUTE_V1ALPHA3,
  TLS_ROUTE_V1ALPHA2,
];

/** Decodes a raw TLSRoute of any version (its `apiVersion` picks the decoder); never throws. */
export function decodeTlsRoute(raw: unknown): Decoded<TlsRoute> {
  const apiVersion = typeof raw === "object" && raw !== null && "apiVersion" in raw
    ? raw.apiVersion
    : undefined;
  const type = TLS_ROUTE_VERSIONS.find((candidate) => apiVersionOf(candidate) === apiVersion);
  return (type ?? TLS_ROUTE_V1).decode(raw);
}
