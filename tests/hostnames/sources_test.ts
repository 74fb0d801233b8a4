import assert from "node:assert/strict";
import {
  GATEWAY_ROUTE_KINDS,
  gatewayHostnames,
  HOST_SOURCE_OF_KIND,
  HOST_SOURCES,
  httpRouteHostnames,
  ingressHostnames,
  routeHostnames,
} from "../../lib/hostnames/sources.ts";
import { decodeIngress } from "../../lib/resources/ingress.ts";
import { gateway, ingress, route } from "./factories.ts";

Deno.test("ingressHostnames reads only spec.tls[].hosts in mode tls", () => {
  const web = ingress("shop/web", { tls: ["secure.example.com"], rules: ["plain.example.com"] });
  assert.deepEqual(ingressHostnames(web, "tls"), ["secure.example.com"]);
});

Deno.test("ingressHostnames adds spec.rules[].host in mode all, skipping rules without a host", () => {
  const web = ingress("shop/web", {
    tls: ["secure.example.com"],
    rules: ["plain.example.com", undefined, "secure.example.com"],
  });
  assert.deepEqual(ingressHostnames(web, "all"), [
    "secure.example.com",
    "plain.example.com",
    "secure.example.com",
  ]);
});

Deno.test("ingressHostnames: an Ingress without TLS contributes nothing in mode tls", () => {
  assert.deepEqual(ingressHostnames(ingress("shop/web", { rules: ["plain.example.com"] }), "tls"), []);
});

Deno.test("ingressHostnames reads every TLS section of a decoded Ingress", () => {
  const decoded = decodeIngress({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name: "web", namespace: "shop", resourceVersion: "3" },
    spec: {
      tls: [{ hosts: ["a.example.com", "b.example.com"], secretName: "ab" }, { secretName: "none" }, {
        hosts: ["c.example.com"],
      }],
      rules: [{ host: "d.example.com" }, { http: { paths: [] } }],
    },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(ingressHostnames(decoded.value, "tls"), [
    "a.example.com",
    "b.example.com",
    "c.example.com",
  ]);
  assert.deepEqual(ingressHostnames(decoded.value, "all"), [
    "a.example.com",
    "b.example.com",
    "c.example.com",
    "d.example.com",
  ]);
});

Deno.test("gatewayHostnames reads every listener hostname whatever the protocol", () => {
  assert.deepEqual(gatewayHostnames(gateway("infra/gw", "cilium", ["plain.example.com"], "HTTP")), [
    "plain.example.com",
  ]);
  assert.deepEqual(gatewayHostnames(gateway("infra/gw", "cilium", ["tcp.example.com"], "TCP")), [
    "tcp.example.com",
  ]);
  assert.deepEqual(
    gatewayHostnames(gateway("infra/gw", "cilium", ["a.example.com", undefined, "*.example.com"])),
    ["a.example.com", "*.example.com"],
  );
});

Deno.test("httpRouteHostnames reads spec.hostnames", () => {
  assert.deepEqual(httpRouteHostnames(route("shop/r", ["a.example.com", "b.example.com"])), [
    "a.example.com",
    "b.example.com",
  ]);
  assert.deepEqual(httpRouteHostnames(route("shop/r", [])), []);
});

Deno.test("routeHostnames reads spec.hostnames of any route kind, a copy the caller may change", () => {
  const tls = route("shop/db", ["db.example.com"]);
  const hosts = routeHostnames(tls);
  assert.deepEqual(hosts, ["db.example.com"]);
  hosts.push("x.example.com");
  assert.deepEqual(tls.spec.hostnames, ["db.example.com"]);
});

Deno.test("every route kind is a hostname source of its own, in a fixed order", () => {
  assert.deepEqual(GATEWAY_ROUTE_KINDS, ["HTTPRoute", "GRPCRoute", "TLSRoute"]);
  assert.deepEqual(GATEWAY_ROUTE_KINDS.map((kind) => HOST_SOURCE_OF_KIND[kind]), [
    "httproute",
    "grpcroute",
    "tlsroute",
  ]);
  assert.deepEqual(HOST_SOURCES, ["ingress", "gateway-listener", "httproute", "grpcroute", "tlsroute"]);
});
