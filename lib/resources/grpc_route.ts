/**
 * `gateway.networking.k8s.io/v1` GRPCRoute (standard channel since Gateway API v1.1), narrowed to
 * its hostnames and the Gateways it attaches to; the shape and its defaults are the shared
 * route's (`gateway_route.ts`). Only `v1` is watched: the older `v1alpha2` is no longer served
 * by current CRD bundles.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoder } from "./json.ts";
import { defineRouteType, type GatewayRoute } from "./gateway_route.ts";
import type { ResourceType } from "./resource_type.ts";

/** A GRPCRoute as the controller sees it. */
export type GrpcRoute = GatewayRoute;

/** The GRPCRoute resource type (Gateway API CRDs; may be missing from a cluster). */
export const GRPC_ROUTE: ResourceType<GrpcRoute> = defineRouteType({
  version: "v1",
  kind: "GRPCRoute",
  plural: "grpcroutes",
});

/** Decodes a raw GRPCRoute; never throws. */
export const decodeGrpcRoute: Decoder<GrpcRoute> = GRPC_ROUTE.decode;
