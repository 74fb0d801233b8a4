/**
 * The desired set: every hostname the sinks should point at the proxy, computed from the full
 * current contents of the caches (level-based, so a missed or reordered event can never leave a
 * stale name behind), the kinds each one came from (external-dns mode records them on its
 * records), plus the values that were refused and why.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { objectKey } from "../kube/objects.ts";
import type { Gateway } from "../resources/gateway.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { Ingress } from "../resources/ingress.ts";
import { filterGatewayApi, filterIngresses } from "./filters.ts";
import { checkHostname, type RejectionReason } from "./hostname.ts";
import { gatewayHostnames, httpRouteHostnames, ingressHostnames, type IngressHostsMode } from "./sources.ts";

/** The kinds hostnames come from, spelled as Kubernetes spells them. */
export type HostnameSourceKind = "Ingress" | "Gateway" | "HTTPRoute";

/**
 * Where an accepted hostname came from, spelled as external-dns mode's source annotation spells
 * it (the sinks' `HostSource`): an Ingress, a Gateway listener, an HTTPRoute.
 */
export type HostOrigin = "ingress" | "gateway-listener" | "httproute";

/** Every {@linkcode HostOrigin}, in the order a hostname's origins are listed. */
export const HOST_ORIGINS: readonly HostOrigin[] = ["ingress", "gateway-listener", "httproute"];

const ORIGIN_OF: Readonly<Record<HostnameSourceKind, HostOrigin>> = {
  Ingress: "ingress",
  Gateway: "gateway-listener",
  HTTPRoute: "httproute",
};

/** Everything currently in the caches. Leave Gateway API lists empty when `--gateway-api` is off. */
export interface HostnameSources {
  /** Every Ingress in the cache, before the class filter. */
  readonly ingresses: readonly Ingress[];
  /** Every Gateway in the cache, before the class filter. */
  readonly gateways: readonly Gateway[];
  /** Every HTTPRoute in the cache, before the class filter. */
  readonly routes: readonly HttpRoute[];
}

/** The settings that shape the desired set. */
export interface DesiredSetOptions {
  /** The cluster domain (`cluster.local`); names equal to or under it are refused. */
  readonly clusterDomain: string;
  /** The proxy's own FQDN; refused as a hostname. Optional: usually under the cluster domain anyway. */
  readonly proxyFqdn?: string;
  /** `--ingress-hosts`; default `tls`. */
  readonly ingressHosts?: IngressHostsMode;
  /** `--ingress-class`; default empty (every Ingress). */
  readonly ingressClass?: string;
  /** `--gateway-class`; default empty (every Gateway and HTTPRoute). */
  readonly gatewayClass?: string;
}

/** One refused value of one object. */
export interface RejectedHostname {
  /** The kind of the object holding the value. */
  readonly source: HostnameSourceKind;
  /** `namespace/name` of the object. */
  readonly key: string;
  /** The object's resourceVersion: a new one means the object changed. */
  readonly resourceVersion: string;
  /** The value exactly as the object holds it: log it escaped, never raw. */
  readonly value: string;
  /** Why it was refused, as a stable code. */
  readonly reason: RejectionReason;
  /** A short explanation, free of the raw value. */
  readonly text: string;
}

/** The outcome of {@linkcode desiredHostnames}. */
export interface DesiredSet {
  /** Accepted hostnames, sorted, each once. */
  readonly hosts: string[];
  /**
   * For every accepted hostname, the kinds of object it came from, each once, in
   * {@linkcode HOST_ORIGINS} order (a name two Ingresses and an HTTPRoute share:
   * `["ingress", "httproute"]`).
   */
  readonly sources: Map<string, HostOrigin[]>;
  /** Refused values, sorted by kind, object key and value; each once per object. */
  readonly rejected: RejectedHostname[];
}

const KIND_ORDER: Readonly<Record<HostnameSourceKind, number>> = { Ingress: 0, Gateway: 1, HTTPRoute: 2 };

/**
 * Computes the desired set from the full current sources: class filters first, then each kept
 * object's hostnames are checked; accepted names are de-duplicated across every source and sorted.
 *
 * @example
 * ```ts
 * const { hosts, rejected } = desiredHostnames(
 *   { ingresses, gateways: [], routes: [] },
 *   { clusterDomain: "cluster.local", ingressHosts: "tls" },
 * );
 * // hosts: ["api.example.com", "shop.example.com"]
 * // sources: Map { "api.example.com" => ["ingress"], "shop.example.com" => ["ingress"] }
 * ```
 */
export function desiredHostnames(sources: HostnameSources, options: DesiredSetOptions): DesiredSet {
  /** Accepted hostname → the origins seen, as a set for cheap de-duplication. */
  const hosts = new Map<string, Set<HostOrigin>>();
  const rejected = new Map<string, RejectedHostname>();

  const collect = (
    source: HostnameSourceKind,
    object: Ingress | Gateway | HttpRoute,
    values: readonly string[],
  ): void => {
    for (const value of values) {
      const check = checkHostname(value, options.clusterDomain, options.proxyFqdn);
      if (check.kind === "accepted") {
        const origins = hosts.get(check.host);
        if (origins === undefined) hosts.set(check.host, new Set([ORIGIN_OF[source]]));
        else origins.add(ORIGIN_OF[source]);
      } else if (check.kind === "rejected") {
        const key = objectKey(object.metadata);
        rejected.set(JSON.stringify([source, key, value]), {
          source,
          key,
          resourceVersion: object.metadata.resourceVersion,
          value,
          reason: check.reason,
          text: check.text,
        });
      }
    }
  };

  const mode = options.ingressHosts ?? "tls";
  for (const ingress of filterIngresses(sources.ingresses, options.ingressClass ?? "")) {
    collect("Ingress", ingress, ingressHostnames(ingress, mode));
  }
  const { gateways, routes } = filterGatewayApi(sources.gateways, sources.routes, options.gatewayClass ?? "");
  for (const gateway of gateways) collect("Gateway", gateway, gatewayHostnames(gateway));
  for (const route of routes) collect("HTTPRoute", route, httpRouteHostnames(route));

  const sorted = [...hosts.keys()].sort(compareText);
  return {
    hosts: sorted,
    sources: new Map(
      sorted.map((host) => {
        const seen = hosts.get(host);
        return [host, HOST_ORIGINS.filter((origin) => seen?.has(origin) === true)];
      }),
    ),
    rejected: [...rejected.values()].sort((a, b) =>
      KIND_ORDER[a.source] - KIND_ORDER[b.source] || compareText(a.key, b.key) ||
      compareText(a.value, b.value)
    ),
  };
}

/** Code-unit order, the same on every machine (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
