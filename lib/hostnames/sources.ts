/**
 * Where each watched kind keeps its hostnames. The values come back raw, in the object's order;
 * {@linkcode checkHostname} in `hostname.ts` normalises and checks them.
 *
 * - Ingress: `spec.tls[].hosts` by default. The hairpin problem this tool solves is TLS passing
 *   through a PROXY-protocol load balancer, and an Ingress serves TLS only for its `tls` hosts.
 *   With `--ingress-hosts=all`, `spec.rules[].host` counts too (rules without a host match every
 *   name and contribute nothing).
 * - Gateway: every `spec.listeners[].hostname`, whatever the listener's protocol (a plain HTTP
 *   listener is still reached through the proxy). Listeners without a hostname contribute nothing.
 * - HTTPRoute, GRPCRoute, TLSRoute: every `spec.hostnames[]` (a TLSRoute's are the SNI names it
 *   matches). A route without hostnames takes its Gateway listener's, which the Gateway already
 *   contributes.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Gateway } from "../resources/gateway.ts";
import type { GatewayRoute } from "../resources/gateway_route.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { Ingress } from "../resources/ingress.ts";

/**
 * The kind of object a hostname came from, spelled as external-dns mode's source annotation
 * spells it: an Ingress, a Gateway listener, an HTTPRoute, a GRPCRoute, a TLSRoute.
 */
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
 * import type { Ingress } from "../resources/ingress.ts";
 * import { ingressHostnames } from "./sources.ts";
 *
 * declare const ingress: Ingress; // TLS host shop.example.com; a rule for plain.example.com
 * ingressHostnames(ingress, "tls"); // ["shop.example.com"]
 * ingressHostnames(ingress, "all"); // ["shop.example.com", "plain.example.com"]
 * ```
 */
export function ingressHostnames(ingress: Ingress, mode: IngressHostsMode): string[] {
  const hosts = ingress.spec.tls.flatMap((tls) => tls.hosts);
  if (mode === "all") {
    for (const rule of ingress.spec.rules) if (rule.host !== undefined) hosts.push(rule.host);
  }
  return hosts;
}

/**
 * The raw hostnames of a Gateway's listeners, any protocol.
 *
 * @example
 * ```ts
 * import type { Gateway } from "../resources/gateway.ts";
 * import { gatewayHostnames } from "./sources.ts";
 *
 * declare const gateway: Gateway; // listeners with hostnames shop.example.com and *.apps.example.com
 * gatewayHostnames(gateway); // ["shop.example.com", "*.apps.example.com"]
 * ```
 */
export function gatewayHostnames(gateway: Gateway): string[] {
  const hosts: string[] = [];
  for (const listener of gateway.spec.listeners) {
    if (listener.hostname !== undefined) hosts.push(listener.hostname);
  }
  return hosts;
}

/**
 * The raw hostnames of an HTTPRoute.
 *
 * @example
 * ```ts
 * import type { HttpRoute } from "../resources/http_route.ts";
 * import { httpRouteHostnames } from "./sources.ts";
 *
 * declare const route: HttpRoute; // spec.hostnames: ["shop.example.com"]
 * httpRouteHostnames(route); // ["shop.example.com"]
 * ```
 */
export function httpRouteHostnames(route: HttpRoute): string[] {
  return [...route.spec.hostnames];
}

/**
 * The raw hostnames of a route of any kind (HTTPRoute, GRPCRoute, TLSRoute).
 *
 * @example
 * ```ts
 * import type { TlsRoute } from "../resources/tls_route.ts";
 * import { routeHostnames } from "./sources.ts";
 *
 * declare const route: TlsRoute; // spec.hostnames: ["db.example.com"]
 * routeHostnames(route); // ["db.example.com"]
 * ```
 */
export function routeHostnames(route: GatewayRoute): string[] {
  return [...route.spec.hostnames];
}
