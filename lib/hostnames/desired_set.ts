/**
 * The desired set: every hostname the sinks should point at the proxy, computed from the full
 * current contents of the caches (level-based, so a missed or reordered event can never leave a
 * stale name behind), the kinds each one came from (external-dns mode records them on its
 * records), plus the values that were refused and why.
 *
 * Wildcards (`*.<domain>`, see `wildcard.ts`) are handled as {@linkcode DesiredSetOptions.wildcards}
 * says: left out silently (the original's behaviour, and the default), put in `hosts` next to the
 * exact names (they sort first: `*` comes before every name character), or left out and listed in
 * `skippedWildcards` per object, for a mode that cannot express them to say so once per object
 * change.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { objectKey } from "../resources/kube_object.ts";
import type { Gateway } from "../resources/gateway.ts";
import type { GatewayRoute } from "../resources/gateway_route.ts";
import type { GrpcRoute } from "../resources/grpc_route.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { TlsRoute } from "../resources/tls_route.ts";
import type { Ingress } from "../resources/ingress.ts";
import { filterGatewayApi, filterIngresses } from "./filters.ts";
import { checkHostname, type HostnameCheckOptions, type RejectionReason } from "./hostname.ts";
import {
  gatewayHostnames,
  HOST_SOURCE_OF_KIND,
  HOST_SOURCES,
  type HostnameSourceKind,
  type HostSource,
  httpRouteHostnames,
  ingressHostnames,
  type IngressHostsMode,
  routeHostnames,
} from "./sources.ts";

/** Everything currently in the caches. Leave Gateway API lists empty when `--gateway-api` is off. */
export interface HostnameSources {
  /** Every Ingress in the cache, before the class filter. */
  readonly ingresses: readonly Ingress[];
  /** Every Gateway in the cache, before the class filter. */
  readonly gateways: readonly Gateway[];
  /** Every HTTPRoute in the cache, before the class filter. */
  readonly routes: readonly HttpRoute[];
  /** Every GRPCRoute in the cache, before the class filter; absent: none. */
  readonly grpcRoutes?: readonly GrpcRoute[];
  /** Every TLSRoute in the cache, before the class filter; absent: none. */
  readonly tlsRoutes?: readonly TlsRoute[];
}

/**
 * What becomes of wildcards: `include` puts them in `hosts`; `exclude` keeps them out and lists
 * them in `skippedWildcards`; absent: dropped silently (`--wildcards=skip`).
 */
export type WildcardHandling = "include" | "exclude";

/** The settings that shape the desired set: which names are refused, and the class filters. */
export interface DesiredSetOptions extends Omit<HostnameCheckOptions, "wildcards"> {
  /** Wildcard hostnames (see {@linkcode WildcardHandling}); absent: dropped, as the original. */
  readonly wildcards?: WildcardHandling;
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

/** A wildcard one object holds that the desired set left out (`wildcards: "exclude"`). */
export type SkippedWildcard = Omit<RejectedHostname, "reason" | "text">;

/** The outcome of {@linkcode desiredHostnames}. */
export interface DesiredSet {
  /** Accepted hostnames, sorted, each once. */
  readonly hosts: string[];
  /**
   * For every accepted hostname, the kinds of object it came from, each once, in
   * {@linkcode HOST_SOURCES} order (a name two Ingresses and an HTTPRoute share:
   * `["ingress", "httproute"]`).
   */
  readonly sources: Map<string, readonly HostSource[]>;
  /** Refused values, sorted by kind, object key and value; each once per object. */
  readonly rejected: RejectedHostname[];
  /**
   * With `wildcards: "exclude"`: the wildcards left out (`value` normalised: `*.example.com`),
   * sorted like `rejected`; each once per object. Empty otherwise.
   */
  readonly skippedWildcards: SkippedWildcard[];
}

/** A kind's place in {@linkcode HOST_SOURCES}: its bit in a set of origins, and its sort rank. */
function rankOf(kind: HostnameSourceKind): number {
  return HOST_SOURCES.indexOf(HOST_SOURCE_OF_KIND[kind]);
}

/** The origin list for every bit combination, shared so no list is allocated per hostname. */
const ORIGIN_LISTS: readonly (readonly HostSource[])[] = Array.from(
  { length: 1 << HOST_SOURCES.length },
  (_, bits) => Object.freeze(HOST_SOURCES.filter((_, rank) => (bits & (1 << rank)) !== 0)),
);

/** What one object contributes: its accepted names and its refused values. */
export interface ObjectHostnames {
  readonly accepted: readonly string[];
  readonly rejected: readonly RejectedHostname[];
  readonly skipped: readonly SkippedWildcard[];
}

/**
 * Per-object results of {@linkcode desiredHostnames}, keyed by the object itself. The caches
 * replace an object on every change and never mutate one, so an object seen before gives the
 * same answer: with a memo a recompute after one Ingress changed checks that Ingress's
 * hostnames only, instead of all of them (5,000 status updates a second otherwise meant
 * re-checking every hostname of the cluster ten times a second). A memo is valid for one set
 * of {@linkcode DesiredSetOptions}: make one per caller with {@linkcode createDesiredSetMemo}.
 */
export type DesiredSetMemo = WeakMap<object, ObjectHostnames>;

/** Options for {@linkcode desiredHostnames}: the settings, and the memo kept for them. */
export interface DesiredHostnamesOptions extends DesiredSetOptions {
  /** Results of objects seen before under these same settings; absent: every object is checked. */
  readonly memo?: DesiredSetMemo;
}

/** An empty {@linkcode DesiredSetMemo}. */
export function createDesiredSetMemo(): DesiredSetMemo {
  return new WeakMap();
}

/**
 * Computes the desired set from the full current sources: class filters first, then each kept
 * object's hostnames are checked; accepted names are de-duplicated across every source and sorted.
 * With a `memo` (one per set of options), objects seen before are not checked again.
 *
 * @example
 * ```ts
 * import type { Ingress } from "../resources/ingress.ts";
 * import { desiredHostnames } from "./desired_set.ts";
 *
 * declare const ingresses: readonly Ingress[]; // TLS hosts shop.example.com and api.example.com
 * const { hosts, sources } = desiredHostnames(
 *   { ingresses, gateways: [], routes: [] },
 *   { clusterDomain: "cluster.local", ingressHosts: "tls" },
 * );
 * // hosts: ["api.example.com", "shop.example.com"]
 * // sources: Map { "api.example.com" => ["ingress"], "shop.example.com" => ["ingress"] }
 * ```
 */
export function desiredHostnames(sources: HostnameSources, options: DesiredHostnamesOptions): DesiredSet {
  const { memo } = options;
  const wildcards = options.wildcards;
  const checkOptions = { ...options, wildcards: wildcards !== undefined };
  /** Accepted hostname → bits of the origins seen. */
  const hosts = new Map<string, number>();
  const rejected = new Map<string, RejectedHostname>();
  const skippedWildcards = new Map<string, SkippedWildcard>();

  const examine = (
    source: HostnameSourceKind,
    object: Ingress | Gateway | GatewayRoute,
    values: readonly string[],
  ): ObjectHostnames => {
    const accepted: string[] = [];
    const refused: RejectedHostname[] = [];
    const skipped: SkippedWildcard[] = [];
    for (const value of values) {
      const check = checkHostname(value, checkOptions);
      if (check.kind === "accepted" || (check.kind === "wildcard" && wildcards === "include")) {
        accepted.push(check.host);
      } else if (check.kind === "wildcard") {
        const { metadata } = object;
        skipped.push({
          source,
          key: objectKey(metadata),
          resourceVersion: metadata.resourceVersion,
          value: check.host,
        });
      } else if (check.kind === "rejected") {
        refused.push({
          source,
          key: objectKey(object.metadata),
          resourceVersion: object.metadata.resourceVersion,
          value,
          reason: check.reason,
          text: check.text,
        });
      }
    }
    return { accepted, rejected: refused, skipped };
  };

  const collect = (
    source: HostnameSourceKind,
    object: Ingress | Gateway | GatewayRoute,
    values: () => readonly string[],
  ): void => {
    let result = memo?.get(object);
    if (result === undefined) {
      result = examine(source, object, values());
      memo?.set(object, result);
    }
    const bit = 1 << rankOf(source);
    for (const host of result.accepted) hosts.set(host, (hosts.get(host) ?? 0) | bit);
    for (const entry of result.rejected) {
      rejected.set(JSON.stringify([entry.source, entry.key, entry.value]), entry);
    }
    for (const entry of result.skipped) {
      skippedWildcards.set(JSON.stringify([entry.source, entry.key, entry.value]), entry);
    }
  };

  const mode = options.ingressHosts ?? "tls";
  for (const ingress of filterIngresses(sources.ingresses, options.ingressClass ?? "")) {
    collect("Ingress", ingress, () => ingressHostnames(ingress, mode));
  }
  const { gateways, routes, grpcRoutes, tlsRoutes } = filterGatewayApi(sources, options.gatewayClass ?? "");
  for (const gateway of gateways) collect("Gateway", gateway, () => gatewayHostnames(gateway));
  for (const route of routes) collect("HTTPRoute", route, () => httpRouteHostnames(route));
  for (const route of grpcRoutes) collect("GRPCRoute", route, () => routeHostnames(route));
  for (const route of tlsRoutes) collect("TLSRoute", route, () => routeHostnames(route));

  const sorted = [...hosts.keys()].sort(compareText);
  return {
    hosts: sorted,
    sources: new Map(sorted.map((host) => [host, ORIGIN_LISTS[hosts.get(host) ?? 0] ?? []])),
    rejected: [...rejected.values()].sort(byObjectThenValue),
    skippedWildcards: [...skippedWildcards.values()].sort(byObjectThenValue),
  };
}

function byObjectThenValue(a: SkippedWildcard, b: SkippedWildcard): number {
  return rankOf(a.source) - rankOf(b.source) || compareText(a.key, b.key) || compareText(a.value, b.value);
}

/** Code-unit order, the same on every machine (no locale). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
