/**
 * `gateway.networking.k8s.io/v1` HTTPRoute, with the shared route shape (`gateway_route.ts`).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoder } from "./json.ts";
import { defineRouteType, type GatewayRoute } from "./gateway_route.ts";
import type { ResourceType } from "./resource_type.ts";

/** An HTTPRoute as the controller sees it. */
export type HttpRoute = GatewayRoute;

/** The HTTPRoute resource type (Gateway API CRDs; may be missing from a cluster). */
export const HTTP_ROUTE: ResourceType<HttpRoute> = defineRouteType({
  version: "v1",
  kind: "HTTPRoute",
  plural: "httproutes",
});

/** Decodes a raw HTTPRoute; never throws. */
export const decodeHttpRoute: Decoder<HttpRoute> = HTTP_ROUTE.decode;
