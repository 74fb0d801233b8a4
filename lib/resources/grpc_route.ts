/**
 * `gateway.networking.k8s.io/v1` GRPCRoute, with the shared route shape (`gateway_route.ts`).
 * Only `v1` is watched: current CRD bundles no longer serve `v1alpha2`.
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
