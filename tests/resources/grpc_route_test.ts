import assert from "node:assert/strict";
import { decodeGrpcRoute, GRPC_ROUTE } from "../../lib/resources/grpc_route.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

Deno.test("decodeGrpcRoute reads a GRPCRoute's hostnames and parentRefs", () => {
  const decoded = decodeGrpcRoute({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "GRPCRoute",
    metadata: { name: "orders", namespace: "shop", resourceVersion: "3" },
    spec: {
      hostnames: ["grpc.shop.example.com"],
      parentRefs: [{ name: "gw", sectionName: "grpc" }],
      rules: [{
        matches: [{ method: { service: "shop.Orders" } }],
        backendRefs: [{ name: "orders", port: 9000 }],
      }],
    },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec, {
    hostnames: ["grpc.shop.example.com"],
    parentRefs: [
      {
        group: "gateway.networking.k8s.io",
        kind: "Gateway",
        namespace: "shop",
        name: "gw",
        sectionName: "grpc",
      },
    ],
  });
});

Deno.test("decodeGrpcRoute accepts a GRPCRoute without hostnames (it takes its listener's)", () => {
  const decoded = decodeGrpcRoute({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "GRPCRoute",
    metadata: { name: "orders", namespace: "shop", resourceVersion: "3" },
    spec: { parentRefs: [{ name: "gw" }] },
  });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec.hostnames, []);
});

Deno.test("GRPC_ROUTE is the Gateway API v1 grpcroutes resource", () => {
  assert.equal(resourcePath(GRPC_ROUTE), "/apis/gateway.networking.k8s.io/v1/grpcroutes");
  assert.equal(GRPC_ROUTE.decode, decodeGrpcRoute);
});
