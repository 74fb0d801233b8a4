/**
 * The desired set: every hostname the sinks should point at the proxy, with the kinds each came
 * from and the refused values, computed from the whole caches (level-based, so a missed event
 * cannot leave a stale name).
 *
 * Wildcards per {@linkcode DesiredSetOptions.wildcards}: dropped silently (default), included in
 * `hosts` (they sort first), or excluded and listed so a mode that cannot express them says so.
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

/** Everything currently in the caches, before the class filters; an absent list holds nothing. */
export interface HostnameSources {
  readonly ingresses: readonly Ingress[];
  readonly gateways: readonly Gateway[];
  /** HTTPRoutes. */
  readonly routes: readonly HttpRoute[];
  readonly grpcRoutes?: readonly GrpcRoute[];
  readonly tlsRoutes?: readonly TlsRoute[];
}

/** `include`: wildcards go in `hosts`; `exclude`: listed in `skippedWildcards` instead. */
export type WildcardHandling = "include" | "exclude";

/** The settings that shape the desired set: which names are refused, and the class filters. */
export interface DesiredSetOptions extends Omit<HostnameCheckOptions, "wildcards"> {
  /** Absent: wildcards are dropped silently (`--wildcards=skip`). */
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
  readonly source: HostnameSourceKind;
  readonly key: string;
  /** The object's resourceVersion: a new one means the object changed. */
  readonly resourceVersion: string;
  /** The value exactly as the object holds it: log it escaped, never raw. */
  readonly value: string;
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
  /** The kinds each accepted hostname came from, each once, in {@linkcode HOST_SOURCES} order. */
  readonly sources: Map<string, readonly HostSource[]>;
  /** Refused values, sorted by kind, object key and value; each once per object. */
  readonly rejected: RejectedHostname[];
  /** With `wildcards: "exclude"`: the wildcards left out (normalised), sorted like `rejected`. */
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
 * Per-object results keyed by the object: caches replace objects, never mutate them, so a
 * recompute re-checks only changed objects. Valid for one set of options; one per caller.
 */
export type DesiredSetMemo = WeakMap<object, ObjectHostnames>;

/** Options for {@linkcode desiredHostnames}: the settings, and the memo kept for them. */
export interface DesiredHostnamesOptions extends DesiredSetOptions {
  /** Absent: every object is checked. */
  readonly memo?: DesiredSetMemo;
}

/** An empty {@linkcode DesiredSetMemo}. */
export function createDesiredSetMemo(): DesiredSetMemo {
  return new WeakMap();
}

/**
 * Computes the desired set from the full current sources: class filters, then each kept object's
 * hostnames checked; accepted names de-duplicated and sorted.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { decodeIngress } from "../resources/ingress.ts";
 * import { desiredHostnames } from "./desired_set.ts";
 *
 * const ingress = decodeIngress({
 *   metadata: { name: "web", namespace: "shop", resourceVersion: "1" },
 *   spec: { tls: [{ hosts: ["shop.example.com", "api.example.com"] }] },
 * });
 * assert.ok(ingress.ok);
 * const { hosts, sources } = desiredHostnames(
 *   { ingresses: [ingress.value], gateways: [], routes: [] },
 *   { clusterDomain: "cluster.local", ingressHosts: "tls" },
 * );
 * assert.deepEqual(hosts, ["api.example.com", "shop.example.com"]);
 * assert.deepEqual(sources, new Map([["api.example.com", ["ingress"]], ["shop.example.com", ["ingress"]]]));
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
