/**
 * Where each watched kind keeps its hostnames, returned raw in the object's order
 * ({@linkcode checkHostname} checks them).
 *
 * - Ingress: `spec.tls[].hosts`, since the hairpin problem is TLS through a PROXY-protocol load
 *   balancer; with `--ingress-hosts=all`, `spec.rules[].host` too.
 * - Gateway: every listener's hostname, any protocol (plain HTTP also goes through the proxy).
 * - Routes: `spec.hostnames[]`; a route without any takes its listener's, already counted.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Gateway } from "../resources/gateway.ts";
import type { GatewayRoute } from "../resources/gateway_route.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { Ingress } from "../resources/ingress.ts";

/** The kind of object a hostname came from, spelled as external-dns mode's annotation spells it. */
export type HostSource = "ingress" | "gateway-listener" | "httproute" | "grpcroute" | "tlsroute";

/** Every {@linkcode HostSource}, in the order a hostname's sources are listed. */
export const HOST_SOURCES: readonly HostSource[] = [
  "ingress",
  "gateway-listener",
  "httproute",
  "grpcroute",
  "tlsroute",
];

/** The Gateway API route kinds hostnames are read from, as Kubernetes spells them. */
export type GatewayRouteKind = "HTTPRoute" | "GRPCRoute" | "TLSRoute";

/** Every {@linkcode GatewayRouteKind}, in the order they are listed and watched. */
export const GATEWAY_ROUTE_KINDS: readonly GatewayRouteKind[] = ["HTTPRoute", "GRPCRoute", "TLSRoute"];

/** The kinds hostnames come from, spelled as Kubernetes spells them. */
export type HostnameSourceKind = "Ingress" | "Gateway" | GatewayRouteKind;

/** The {@linkcode HostSource} each kind's hostnames are recorded as. */
export const HOST_SOURCE_OF_KIND: Readonly<Record<HostnameSourceKind, HostSource>> = {
  Ingress: "ingress",
  Gateway: "gateway-listener",
  HTTPRoute: "httproute",
  GRPCRoute: "grpcroute",
  TLSRoute: "tlsroute",
};

/** Which Ingress fields count (`--ingress-hosts`). */
export type IngressHostsMode = "tls" | "all";

/**
 * The raw hostnames of an Ingress: its TLS hosts, then (mode `all`) its rule hosts.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeIngress } from "../resources/ingress.ts";
 * import { ingressHostnames } from "./sources.ts";
 *
 * const ingress = decodeIngress({
 *   metadata: { name: "web", namespace: "shop", resourceVersion: "1" },
 *   spec: { tls: [{ hosts: ["shop.example.com"] }], rules: [{ host: "plain.example.com" }] },
 * });
 * assert.ok(ingress.ok);
 * assert.deepEqual(ingressHostnames(ingress.value, "tls"), ["shop.example.com"]);
 * assert.deepEqual(ingressHostnames(ingress.value, "all"), ["shop.example.com", "plain.example.com"]);
 * ```
 */
export function ingressHostnames(ingress: Ingress, mode: IngressHostsMode): string[] {
  const hosts = ingress.spec.tls.flatMap((tls) => tls.hosts);
  if (mode === "all") {
    for (const rule of ingress.spec.rules) if (rule.host !== undefined) hosts.push(rule.host);
  }
  return hosts;
}

/** The raw hostnames of a Gateway's listeners, any protocol. */
export function gatewayHostnames(gateway: Gateway): string[] {
  const hosts: string[] = [];
  for (const listener of gateway.spec.listeners) {
    if (listener.hostname !== undefined) hosts.push(listener.hostname);
  }
  return hosts;
}

/** The raw hostnames of an HTTPRoute. */
export function httpRouteHostnames(route: HttpRoute): string[] {
  return [...route.spec.hostnames];
}

/** The raw hostnames of a route of any kind (HTTPRoute, GRPCRoute, TLSRoute). */
export function routeHostnames(route: GatewayRoute): string[] {
  return [...route.spec.hostnames];
}
