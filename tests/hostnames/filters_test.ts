import assert from "node:assert/strict";
import { filterGatewayApi, filterIngresses, parentGatewayKey } from "../../lib/hostnames/filters.ts";
import { objectKey } from "../../lib/resources/kube_object.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";
import { decodeHttpRoute } from "../../lib/resources/http_route.ts";
import { gateway, ingress, parentRef, route } from "./factories.ts";

const keys = (objects: readonly KubeObject[]) => objects.map((object) => objectKey(object.metadata));

Deno.test("filterIngresses keeps only the Ingresses of the class; no class is dropped when a filter is set (T-3.12)", () => {
  const all = [
    ingress("a/nginx", { className: "nginx" }),
    ingress("a/traefik", { className: "traefik" }),
    ingress("a/none"),
    ingress("b/nginx", { className: "nginx" }),
    ingress("a/upper", { className: "NGINX" }),
  ];
  assert.deepEqual(keys(filterIngresses(all, "nginx")), ["a/nginx", "b/nginx"]);
  assert.deepEqual(keys(filterIngresses(all, "traefik")), ["a/traefik"]);
  assert.deepEqual(keys(filterIngresses(all, "haproxy")), []);
});

Deno.test("filterIngresses with an empty filter keeps every Ingress, with or without a class", () => {
  const all = [ingress("a/nginx", { className: "nginx" }), ingress("a/none")];
  assert.deepEqual(keys(filterIngresses(all, "")), ["a/nginx", "a/none"]);
});

Deno.test("filterIngresses ignores the legacy kubernetes.io/ingress.class annotation", () => {
  const legacy = ingress("a/legacy");
  const annotated = {
    ...legacy,
    metadata: { ...legacy.metadata, annotations: { "kubernetes.io/ingress.class": "nginx" } },
  };
  assert.deepEqual(filterIngresses([annotated], "nginx"), []);
});

Deno.test("filterGatewayApi without a filter keeps every Gateway and every route, attached or not", () => {
  const gateways = [gateway("infra/a", "cilium"), gateway("infra/b", "istio")];
  const routes = [
    route("shop/attached", [], [parentRef("a", { namespace: "infra" })]),
    route("shop/loose", []),
  ];
  const selection = filterGatewayApi({ gateways, routes }, "");
  assert.deepEqual(keys(selection.gateways), ["infra/a", "infra/b"]);
  assert.deepEqual(keys(selection.routes), ["shop/attached", "shop/loose"]);
});

Deno.test("filterGatewayApi keeps Gateways of the class and routes attached to a kept Gateway", async (t) => {
  const gateways = [
    gateway("infra/public", "cilium"),
    gateway("infra/internal", "istio"),
    gateway("shop/own", "cilium"),
  ];
  const cases: readonly [string, ReturnType<typeof route>, boolean][] = [
    [
      "explicit namespace, default group and kind",
      route("shop/r", [], [parentRef("public", { namespace: "infra" })]),
      true,
    ],
    ["namespace defaults to the route's (empty)", route("shop/r", [], [parentRef("own")]), true],
    [
      "namespace defaults to the route's: same name elsewhere does not count",
      route("shop/r", [], [parentRef("public")]),
      false,
    ],
    [
      "cross-namespace ref to a Gateway of another class",
      route("shop/r", [], [parentRef("internal", { namespace: "infra" })]),
      false,
    ],
    [
      "cross-namespace ref to a Gateway that does not exist",
      route("shop/r", [], [parentRef("ghost", { namespace: "infra" })]),
      false,
    ],
    [
      "empty group and kind mean Gateway",
      route("shop/r", [], [parentRef("public", { group: "", kind: "", namespace: "infra" })]),
      true,
    ],
    [
      "explicit Gateway kind and group",
      route("shop/r", [], [
        parentRef("public", { group: "gateway.networking.k8s.io", kind: "Gateway", namespace: "infra" }),
      ]),
      true,
    ],
    [
      "a Service parent (GEP-1426) is skipped even with a Gateway's name",
      route("shop/r", [], [parentRef("own", { group: "", kind: "Service" })]),
      false,
    ],
    [
      "a parent of another group is skipped",
      route("shop/r", [], [parentRef("own", { group: "example.com", kind: "Gateway" })]),
      false,
    ],
    [
      "a ListenerSet-like kind is skipped",
      route("shop/r", [], [parentRef("own", { kind: "XListenerSet" })]),
      false,
    ],
    [
      "kept when any one of several parents matches",
      route("shop/r", [], [
        parentRef("mesh", { group: "", kind: "Service" }),
        parentRef("internal", { namespace: "infra" }),
        parentRef("public", { namespace: "infra" }),
      ]),
      true,
    ],
    ["a route without parents is dropped", route("shop/r", []), false],
  ];
  for (const [name, candidate, kept] of cases) {
    await t.step(name, () => {
      const selection = filterGatewayApi({ gateways, routes: [candidate] }, "cilium");
      assert.deepEqual(keys(selection.gateways), ["infra/public", "shop/own"]);
      assert.equal(selection.routes.length === 1, kept);
    });
  }
});

Deno.test("filterGatewayApi drops every route when no Gateway survives the filter", () => {
  const gateways = [gateway("infra/a", "istio")];
  const routes = [
    route("infra/r", [], [parentRef("a")]),
    route("shop/r", [], [parentRef("a", { namespace: "infra" })]),
  ];
  const selection = filterGatewayApi({ gateways, routes }, "cilium");
  assert.deepEqual(selection.gateways, []);
  assert.deepEqual(selection.routes, []);
  assert.deepEqual(filterGatewayApi({ gateways: [], routes }, "cilium").routes, []);
});

Deno.test("filterGatewayApi applies the decoder's parentRef defaults to a route from the wire", () => {
  const decoded = decodeHttpRoute({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    metadata: { name: "r", namespace: "shop", resourceVersion: "1" },
    spec: { hostnames: ["shop.example.com"], parentRefs: [{ name: "own", sectionName: "https", port: 443 }] },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  const selection = filterGatewayApi(
    { gateways: [gateway("shop/own", "cilium")], routes: [decoded.value] },
    "cilium",
  );
  assert.deepEqual(keys(selection.routes), ["shop/r"]);
});

Deno.test("parentGatewayKey names the Gateway a parentRef points at, or nothing", () => {
  assert.equal(parentGatewayKey(parentRef("gw", { group: "", kind: "", namespace: "" }), "shop"), "shop/gw");
  assert.equal(parentGatewayKey(parentRef("gw", { namespace: "infra" }), "shop"), "infra/gw");
  assert.equal(parentGatewayKey(parentRef("svc", { group: "", kind: "Service" }), "shop"), undefined);
});

Deno.test("filterGatewayApi applies one parentRef rule to HTTPRoutes, GRPCRoutes and TLSRoutes alike", () => {
  const gateways = [gateway("infra/public", "cilium"), gateway("infra/internal", "istio")];
  const toPublic = [parentRef("public", { namespace: "infra" })];
  const toInternal = [parentRef("internal", { namespace: "infra" })];
  const toService = [parentRef("public", { group: "", kind: "Service", namespace: "infra" })];
  const objects = {
    gateways,
    routes: [route("shop/http", [], toPublic), route("shop/http-internal", [], toInternal)],
    grpcRoutes: [route("shop/grpc", [], toPublic), route("shop/grpc-mesh", [], toService)],
    tlsRoutes: [route("shop/tls", [], toPublic), route("shop/tls-loose", [])],
  };
  const selection = filterGatewayApi(objects, "cilium");
  assert.deepEqual(keys(selection.gateways), ["infra/public"]);
  assert.deepEqual(keys(selection.routes), ["shop/http"]);
  assert.deepEqual(keys(selection.grpcRoutes), ["shop/grpc"]);
  assert.deepEqual(keys(selection.tlsRoutes), ["shop/tls"]);

  const everything = filterGatewayApi(objects, "");
  assert.deepEqual(keys(everything.grpcRoutes), ["shop/grpc", "shop/grpc-mesh"]);
  assert.deepEqual(keys(everything.tlsRoutes), ["shop/tls", "shop/tls-loose"]);
  // Absent route lists hold nothing.
  assert.deepEqual(filterGatewayApi({ gateways, routes: [] }, "cilium").grpcRoutes, []);
  assert.deepEqual(filterGatewayApi({ gateways, routes: [] }, "").tlsRoutes, []);
});
