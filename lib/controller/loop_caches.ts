/**
 * The caches the controller's loop listens to, by what their changes mean: a source change (one
 * that can change the hostnames), a change of the sink's target, a prerequisite's change. Sources
 * and prerequisites hold back the first pass until they have listed.
 *
 * Effects: store subscriptions; no timers, no I/O.
 *
 * @module
 */

import type { StoreView } from "../reflector/store.ts";
import type { Gateway } from "../resources/gateway.ts";
import type { GrpcRoute } from "../resources/grpc_route.ts";
import type { HttpRoute } from "../resources/http_route.ts";
import type { Ingress } from "../resources/ingress.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { TlsRoute } from "../resources/tls_route.ts";
import { hostnamesMayChange } from "./desired_recompute.ts";
import type { HostnameSources } from "../hostnames/desired_set.ts";
import type { Trigger } from "./trigger.ts";

/** The caches hostnames come from; leave out the stores of kinds not watched. */
export interface LoopSources {
  readonly ingresses: StoreView<Ingress>;
  readonly gateways?: StoreView<Gateway>;
  /** HTTPRoutes. */
  readonly routes?: StoreView<HttpRoute>;
  readonly grpcRoutes?: StoreView<GrpcRoute>;
  readonly tlsRoutes?: StoreView<TlsRoute>;
}

/** What the caches hold now, as the desired set and the route plan read it. */
export function sourceLists(sources: LoopSources): HostnameSources {
  return {
    ingresses: sources.ingresses.list(),
    gateways: sources.gateways?.list() ?? [],
    routes: sources.routes?.list() ?? [],
    grpcRoutes: sources.grpcRoutes?.list() ?? [],
    tlsRoutes: sources.tlsRoutes?.list() ?? [],
  };
}

/** A cache the sink reads besides the sources (the proxy Service); `kind` names it in logs. */
export interface Prerequisite {
  readonly kind: string;
  readonly store: StoreView<KubeObject>;
}

/** The caches the loop listens to. */
export interface LoopCaches {
  /** Their changes set `sources`; they hold back the first pass until listed. */
  readonly sources: LoopSources;
  /** Their changes set `target`; they never hold anything back. */
  readonly targets: readonly StoreView<KubeObject>[];
  /** Their changes set `prerequisite`; they hold back the first pass until listed. */
  readonly prerequisites: readonly Prerequisite[];
  /** A source's status-only change sets `prerequisite` (the sink reads status). @default false */
  readonly statusMatters?: boolean;
}

/** Every cache the first pass waits for, with the kind logs name it by. */
function awaited(caches: LoopCaches): (readonly [string, StoreView<KubeObject>])[] {
  const { ingresses, gateways, routes, grpcRoutes, tlsRoutes } = caches.sources;
  return [
    ["Ingress", ingresses],
    ...(gateways === undefined ? [] : [["Gateway", gateways] as const]),
    ...(routes === undefined ? [] : [["HTTPRoute", routes] as const]),
    ...(grpcRoutes === undefined ? [] : [["GRPCRoute", grpcRoutes] as const]),
    ...(tlsRoutes === undefined ? [] : [["TLSRoute", tlsRoutes] as const]),
    ...caches.prerequisites.map(({ kind, store }) => [kind, store] as const),
  ];
}

/** The source and prerequisite kinds that have not listed yet, in a stable order. */
export function unsyncedCaches(caches: LoopCaches): string[] {
  return awaited(caches).filter(([, store]) => !store.synced).map(([kind]) => kind);
}

/** Listens to the caches, telling `add` the reason of each change; returns the unsubscribe. */
export function subscribeCaches(caches: LoopCaches, add: (reasons: Partial<Trigger>) => void): () => void {
  const { sources: { ingresses, gateways, routes, grpcRoutes, tlsRoutes }, targets, prerequisites } = caches;
  const sources: StoreView<KubeObject>[] = [ingresses];
  for (const store of [gateways, routes, grpcRoutes, tlsRoutes]) {
    if (store !== undefined) sources.push(store);
  }
  const unsubscribes = [
    // A status-only update cannot change the desired set: it wakes nothing, unless the sink reads
    // status (the route table reads the addresses owners report).
    ...sources.map((store) =>
      store.subscribe((change) => {
        if (hostnamesMayChange(change)) add({ sources: true });
        else if (caches.statusMatters === true) add({ prerequisite: true });
      })
    ),
    ...targets.map((store) => store.subscribe(() => add({ target: true }))),
    ...prerequisites.map(({ store }) => store.subscribe(() => add({ prerequisite: true }))),
  ];
  return () => {
    for (const unsubscribe of unsubscribes) unsubscribe();
  };
}
