import assert from "node:assert/strict";
import { defineRouteType } from "../../lib/resources/gateway_route.ts";
import { GRPC_ROUTE } from "../../lib/resources/grpc_route.ts";
import { HTTP_ROUTE } from "../../lib/resources/http_route.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";
import { TLS_ROUTE_VERSIONS } from "../../lib/resources/tls_route.ts";

const meta = { name: "api", namespace: "shop", resourceVersion: "7" };

/** Every route type the controller watches, with the apiVersion its objects carry. */
const TYPES = [HTTP_ROUTE, GRPC_ROUTE, ...TLS_ROUTE_VERSIONS].map((type) => ({
  type,
  apiVersion: `gateway.networking.k8s.io/${type.version}`,
}));

Deno.test("every route kind and version decodes the shared shape with the Gateway API defaults", async (t) => {
  for (const { type, apiVersion } of TYPES) {
    await t.step(`${type.kind} ${type.version}`, () => {
      const decoded = type.decode({
        apiVersion,
        kind: type.kind,
        metadata: meta,
        spec: {
          hostnames: ["api.example.com", "*.api.example.com"],
          parentRefs: [
            { name: "gw" },
            { name: "edge", namespace: "infra", sectionName: "tls", port: 443 },
            { group: "", kind: "Service", name: "mesh", sectionName: "" },
          ],
          rules: [{ backendRefs: [{ name: "api", port: 50051 }] }],
        },
      });
      assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
      assert.deepEqual(decoded.value.spec, {
        hostnames: ["api.example.com", "*.api.example.com"],
        parentRefs: [
          { group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "shop", name: "gw" },
          {
            group: "gateway.networking.k8s.io",
            kind: "Gateway",
            namespace: "infra",
            name: "edge",
            sectionName: "tls",
          },
          { group: "", kind: "Service", namespace: "shop", name: "mesh" },
        ],
      });
    });
  }
});

Deno.test("a route type refuses another kind or version, and malformed fields, naming the field", async (t) => {
  const cases: readonly [string, Record<string, unknown>, string][] = [
    ["another kind", { kind: "HTTPRoute" }, 'kind is "HTTPRoute", expected "GRPCRoute"'],
    [
      "another version",
      { apiVersion: "gateway.networking.k8s.io/v1alpha2" },
      'apiVersion is "gateway.networking.k8s.io/v1alpha2", expected "gateway.networking.k8s.io/v1"',
    ],
    ["hostnames a string", { spec: { hostnames: "a.example" } }, "spec.hostnames is a string, not a list"],
    ["parentRef without name", { spec: { parentRefs: [{}] } }, "spec.parentRefs[0].name is missing"],
  ];
  for (const [name, override, reason] of cases) {
    await t.step(name, () => {
      const raw = {
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "GRPCRoute",
        metadata: meta,
        ...override,
      };
      assert.deepEqual(GRPC_ROUTE.decode(raw), { ok: false, reason });
    });
  }
});

Deno.test("route types live in the Gateway API group, namespaced, at their plural", () => {
  assert.deepEqual(
    TYPES.map(({ type }) => resourcePath(type, { namespace: "shop" })),
    [
      "/apis/gateway.networking.k8s.io/v1/namespaces/shop/httproutes",
      "/apis/gateway.networking.k8s.io/v1/namespaces/shop/grpcroutes",
      "/apis/gateway.networking.k8s.io/v1/namespaces/shop/tlsroutes",
      "/apis/gateway.networking.k8s.io/v1alpha3/namespaces/shop/tlsroutes",
      "/apis/gateway.networking.k8s.io/v1alpha2/namespaces/shop/tlsroutes",
    ],
  );
  const custom = defineRouteType({ version: "v1", kind: "UDPRoute", plural: "udproutes" });
  assert.equal(custom.group, "gateway.networking.k8s.io");
  assert.equal(custom.namespaced, true);
});
