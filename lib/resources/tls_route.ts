/**
 * `gateway.networking.k8s.io` TLSRoute, narrowed to its SNI hostnames and the Gateways it
 * attaches to; the shape and its defaults are the shared route's (`gateway_route.ts`).
 *
 * TLSRoute has lived at three versions, all with the same `hostnames` and `parentRefs`:
 * `v1alpha2` (the experimental channel up to Gateway API v1.3), `v1alpha3` (added to the
 * experimental channel next to it) and `v1` (the standard channel, which keeps the two alpha
 * versions defined but no longer served). Which one a cluster serves depends on the CRD bundle
 * installed, so {@linkcode TLS_ROUTE_VERSIONS} lists them newest first and the watcher takes the
 * first one the API server serves (a 404 moves on to the next).
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

/** Every TLSRoute version, in the order they are tried: newest first. */
export const TLS_ROUTE_VERSIONS: readonly ResourceType<TlsRoute>[] = [
  TLS_ROUTE_V1,
  TLS_ROUTE_V1ALPHA3,
  TLS_ROUTE_V1ALPHA2,
];

/**
 * Decodes a raw TLSRoute of any served version (its `apiVersion` picks the decoder); never
 * throws.
 *
 * @example
 * ```ts
 * import { decodeTlsRoute } from "./tls_route.ts";
 *
 * const decoded = decodeTlsRoute({
 *   apiVersion: "gateway.networking.k8s.io/v1alpha2",
 *   kind: "TLSRoute",
 *   metadata: { name: "db", namespace: "shop", resourceVersion: "1" },
 *   spec: { hostnames: ["db.example.com"] },
 * });
 * // decoded.ok; decoded.value.spec.hostnames: ["db.example.com"]
 * ```
 */
export function decodeTlsRoute(raw: unknown): Decoded<TlsRoute> {
  const apiVersion = typeof raw === "object" && raw !== null && "apiVersion" in raw
    ? raw.apiVersion
    : undefined;
  const type = TLS_ROUTE_VERSIONS.find((candidate) => apiVersionOf(candidate) === apiVersion);
  return (type ?? TLS_ROUTE_V1).decode(raw);
}
