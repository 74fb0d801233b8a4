/**
 * The option rows that choose where hostnames come from, shared by the controller and
 * `ouroboros dns` so one values file drives both.
 *
 * Pure: data.
 *
 * @module
 */

import { boolean, oneOf, someOf, text } from "../cli/kinds.ts";
import { GATEWAY_ROUTE_KINDS } from "./sources.ts";
import { WILDCARDS_MODES } from "./wildcard.ts";

/** `--gateway-api` and `--gateway-route-kinds`: spread into an option table. */
export const GATEWAY_API_OPTION = {
  gatewayApi: {
    flag: "gateway-api",
    kind: boolean(),
    default: "false",
    help: "Also watch Gateway API Gateways and the routes of --gateway-route-kinds.",
  },
  gatewayRouteKinds: {
    flag: "gateway-route-kinds",
    kind: someOf(GATEWAY_ROUTE_KINDS),
    default: GATEWAY_ROUTE_KINDS.join(","),
    help:
      "With --gateway-api, the route kinds whose spec.hostnames count. A kind whose CRD is not installed " +
      "is reported once and holds nothing until it appears (TLSRoute: v1, else v1alpha3, else v1alpha2).",
  },
} as const;

/** `--ingress-hosts`, `--ingress-class` and `--gateway-class`: spread into an option table. */
export const HOSTNAME_FILTER_OPTIONS = {
  ingressHosts: {
    flag: "ingress-hosts",
    kind: oneOf(["tls", "all"] as const),
    default: "tls",
    help:
      "Which Ingress hostnames count: tls reads only spec.tls[].hosts (the hairpin problem is TLS behind " +
      "PROXY protocol); all adds spec.rules[].host.",
  },
  ingressClass: {
    flag: "ingress-class",
    kind: text("CLASS", "an IngressClass name"),
    default: "",
    defaultText: "(empty: every class)",
    help: "Only Ingresses with this spec.ingressClassName; Ingresses without a class are then skipped.",
  },
  gatewayClass: {
    flag: "gateway-class",
    kind: text("CLASS", "a GatewayClass name"),
    default: "",
    defaultText: "(empty: every class)",
    help: "Only Gateways with this spec.gatewayClassName, and routes attached to them.",
  },
} as const;

/** `--wildcards`: spread into an option table, next to the hostname filters. */
export const WILDCARDS_OPTION = {
  wildcards: {
    flag: "wildcards",
    kind: oneOf(WILDCARDS_MODES),
    default: "rewrite",
    help: "*.example.com hostnames: rewrite also points each name one label under the domain at the proxy " +
      "(exact names win; etc-hosts mode warns and skips them); skip drops them, as the original did.",
  },
} as const;
