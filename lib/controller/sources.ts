/**
 * What the controller watches: Ingresses in every namespace, Gateways and HTTPRoutes with
 * `--gateway-api`, and (optionally) the one ConfigMap the mode edits, each kept by its own
 * {@linkcode Reflector}.
 *
 * A Gateway API group the cluster does not serve never blocks Ingress: its reflector gets 404 on
 * its first list, warns once, and counts as synced with nothing in it (then retries slowly, so
 * installing the CRDs later is picked up).
 *
 * The target ConfigMap is watched with a `metadata.name` field selector, so only that object
 * crosses the wire. Its changes make the loop call the sink at once, which restores our block
 * when someone deletes it (T-1.28) without waiting for the resync. It is an accelerator, not a
 * precondition: it never holds back the first reconcile or readiness, and if RBAC does not allow
 * watching it, the reflector warns and the resync still repairs drift.
 *
 * The proxy Service (external-dns mode without `--external-dns-proxy-ip`) is watched the same
 * way, by name. Unlike the target, it is a prerequisite: the records point at its cluster IPs, so
 * nothing is reconciled (and readiness waits) until its first list has completed, and each change
 * makes the records follow it.
 *
 * @module
 */

import type { Scope } from "../kube/client.ts";
import type { ListWatcher } from "../kube/list_watch.ts";
import type { KubeObject } from "../kube/objects.ts";
import { Reflector, type ReflectorOptions, type ReflectorStatus } from "../reflector/reflector.ts";
import type { StoreView } from "../reflector/store.ts";
import { CONFIG_MAP, type ConfigMap } from "../resources/config_map.ts";
import { GATEWAY, type Gateway } from "../resources/gateway.ts";
import { HTTP_ROUTE, type HttpRoute } from "../resources/http_route.ts";
import { INGRESS, type Ingress } from "../resources/ingress.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import { SERVICE, type Service } from "../resources/service.ts";

/** Makes list-watchers; `KubeClient` is one. */
export interface ListWatcherFactory {
  listWatcher<T extends KubeObject>(type: ResourceType<T>, scope?: Scope): ListWatcher<T>;
}

/** The kinds the controller watches, as Kubernetes spells them (metric labels use these). */
export type WatchedKind = "Ingress" | "Gateway" | "HTTPRoute" | "ConfigMap" | "Service";

/**
 * What a watched kind is for: hostnames come from `source`s; the `target` is what the sink
 * edits; a `prerequisite` is something else the sink reads (the proxy Service). Sources and
 * prerequisites must have listed before anything is written.
 */
export type WatchedRole = "source" | "target" | "prerequisite";

/** One watched kind and its role. */
export interface Watched {
  readonly kind: WatchedKind;
  readonly role: WatchedRole;
  readonly store: StoreView<KubeObject>;
  status(): ReflectorStatus;
}

/** One object watched by name: the ConfigMap a mode edits, the proxy Service. */
export interface TargetRef {
  readonly namespace: string;
  readonly name: string;
}

/** Options for {@linkcode createSources}. */
export interface SourcesOptions {
  /** `--gateway-api`: also watch Gateways and HTTPRoutes. */
  readonly gatewayApi: boolean;
  /** Watch this ConfigMap too (see the module comment); absent: no target watch. */
  readonly target?: TargetRef;
  /** Watch this Service as a prerequisite (see the module comment); absent: not watched. */
  readonly proxyService?: TargetRef;
  /** Reflector tuning shared by every kind (tests pass a clock and short timeouts). */
  readonly reflector?: Omit<
    ReflectorOptions<KubeObject>,
    "observe" | "labelSelector" | "fieldSelector" | "resyncMs"
  >;
}

/** The running caches. */
export interface ControllerSources {
  readonly ingresses: StoreView<Ingress>;
  readonly gateways?: StoreView<Gateway>;
  readonly routes?: StoreView<HttpRoute>;
  readonly target?: StoreView<ConfigMap>;
  readonly proxyService?: StoreView<Service>;
  /** Every reflector with its kind and role, sources first. */
  readonly watched: readonly Watched[];
  /** Runs every reflector until `signal` aborts; resolves once all have stopped. */
  run(signal: AbortSignal): Promise<void>;
}

function watched<T extends KubeObject>(
  kind: WatchedKind,
  role: WatchedRole,
  reflector: Reflector<T>,
): Watched & { readonly reflector: Reflector<T> } {
  return { kind, role, store: reflector.store, status: () => reflector.status(), reflector };
}

/** The scope that lists and watches just the object `ref` names. */
function byName(ref: TargetRef): Scope {
  return { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` };
}

/**
 * Builds the reflectors (nothing runs until {@linkcode ControllerSources.run}).
 *
 * @example
 * ```ts
 * const sources = createSources(client, { gatewayApi: true, target: { namespace: "kube-system", name: "coredns" } });
 * const running = sources.run(signal);
 * ```
 */
export function createSources(api: ListWatcherFactory, options: SourcesOptions): ControllerSources {
  const tuning = options.reflector ?? {};
  const ingresses = watched("Ingress", "source", new Reflector(api.listWatcher(INGRESS), tuning));
  const gateways = options.gatewayApi
    ? watched("Gateway", "source", new Reflector(api.listWatcher(GATEWAY), tuning))
    : undefined;
  const routes = options.gatewayApi
    ? watched("HTTPRoute", "source", new Reflector(api.listWatcher(HTTP_ROUTE), tuning))
    : undefined;
  const target = options.target === undefined ? undefined : watched(
    "ConfigMap",
    "target",
    new Reflector(api.listWatcher(CONFIG_MAP, byName(options.target)), tuning),
  );
  const proxyService = options.proxyService === undefined ? undefined : watched(
    "Service",
    "prerequisite",
    new Reflector(api.listWatcher(SERVICE, byName(options.proxyService)), tuning),
  );
  const all = [ingresses, gateways, routes, target, proxyService].filter((entry) => entry !== undefined);
  return {
    ingresses: ingresses.reflector.store,
    ...(gateways === undefined ? {} : { gateways: gateways.reflector.store }),
    ...(routes === undefined ? {} : { routes: routes.reflector.store }),
    ...(target === undefined ? {} : { target: target.reflector.store }),
    ...(proxyService === undefined ? {} : { proxyService: proxyService.reflector.store }),
    watched: all.map(({ kind, role, store, status }) => ({ kind, role, store, status })),
    async run(signal: AbortSignal): Promise<void> {
      await Promise.all(all.map((entry) => entry.reflector.run(signal)));
    },
  };
}
