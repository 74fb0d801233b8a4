/**
 * What `ouroboros dns` watches, one {@linkcode Reflector} per kind, as its flags ask. A missing
 * CRD (Records, a route kind) counts as synced and empty. Every cache must have listed once before
 * the server is ready: a half-filled cache would send clients to the wrong place.
 *
 * Effects: builds reflectors; nothing runs until {@linkcode DnsCaches.run}.
 *
 * @module
 */

import type { Scope } from "../kube/client_options.ts";
import { firstServedListWatcher } from "../kube/first_served_list_watcher.ts";
import type { ListWatcher } from "../kube/list_watch.ts";
import { GATEWAY_ROUTE_KINDS, type GatewayRouteKind } from "../hostnames/sources.ts";
import { Reflector, type ReflectorOptions, type ReflectorStatus } from "../reflector/reflector.ts";
import { BookmarkPace } from "../reflector/watch_handle.ts";
import type { StoreView } from "../reflector/store.ts";
import { CONFIG_MAP, type ConfigMap } from "../resources/config_map.ts";
import { DEPLOYMENT, type Deployment } from "../resources/deployment.ts";
import { GATEWAY, type Gateway } from "../resources/gateway.ts";
import { GRPC_ROUTE, type GrpcRoute } from "../resources/grpc_route.ts";
import { HTTP_ROUTE, type HttpRoute } from "../resources/http_route.ts";
import { INGRESS, type Ingress } from "../resources/ingress.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { POD, type Pod } from "../resources/pod.ts";
import { RECORDS, type Records } from "../resources/records.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import { SERVICE, type Service } from "../resources/service.ts";
import { TLS_ROUTE_VERSIONS, type TlsRoute } from "../resources/tls_route.ts";
import { PAR_PROXY_LABEL } from "./answer/build_answerer.ts";
import { PAR_PROXY_CONFIG_LABEL } from "./par/render_proxy_config.ts";

/** Makes list-watchers; `KubeClient` is one. */
export interface ListWatcherFactory {
  listWatcher<T extends KubeObject>(type: ResourceType<T>, scope?: Scope): ListWatcher<T>;
}

/** A Service or namespace by name. */
export interface ObjectName {
  readonly namespace: string;
  readonly name: string;
}

/** What decides which caches exist. */
export interface DnsCachesOptions {
  readonly clientSelector: string;
  readonly hairpin: boolean;
  readonly gatewayApi: boolean;
  /** `--gateway-route-kinds`; default every kind. Ignored without `gatewayApi`. */
  readonly routeKinds?: readonly GatewayRouteKind[];
  readonly proxyService: ObjectName;
  readonly parNamespace: string;
  readonly dnsService: ObjectName | undefined;
  readonly manageWorkloads: boolean;
  readonly manageProxyConfig: boolean;
  /** Shared by every cache (tests pass a clock and short timeouts). */
  readonly reflector?: Omit<ReflectorOptions<KubeObject>, "observe" | "labelSelector" | "fieldSelector">;
}

/** One running cache, for readiness, metrics and logs. */
export interface DnsCache {
  /** For messages: `Pods`, `proxy Service ouroboros/ouroboros-proxy`. */
  readonly name: string;
  readonly store: StoreView<KubeObject>;
  status(): ReflectorStatus;
}

/** The caches; a store is absent when its flag is off. */
export interface DnsCaches {
  readonly pods: StoreView<Pod>;
  readonly records: StoreView<Records>;
  readonly ingresses?: StoreView<Ingress>;
  readonly gateways?: StoreView<Gateway>;
  /** HTTPRoutes. */
  readonly routes?: StoreView<HttpRoute>;
  readonly grpcRoutes?: StoreView<GrpcRoute>;
  readonly tlsRoutes?: StoreView<TlsRoute>;
  readonly proxyService?: StoreView<Service>;
  readonly parProxyServices: StoreView<Service>;
  readonly dnsService?: StoreView<Service>;
  readonly deployments?: StoreView<Deployment>;
  readonly parConfigMaps?: StoreView<ConfigMap>;
  readonly parDeployments?: StoreView<Deployment>;
  /** Every cache that exists. */
  readonly all: readonly DnsCache[];
  /** Runs every reflector until `signal` aborts; resolves once all have stopped. */
  run(signal: AbortSignal): Promise<void>;
}

/** Builds the caches the options ask for; single objects are watched by a name field selector. */
export function createDnsCaches(api: ListWatcherFactory, options: DnsCachesOptions): DnsCaches {
  // One bookmark pace for every watch on this API server (see WatchHandle).
  const tuning = { pace: new BookmarkPace(), ...options.reflector };
  const reflectors: { name: string; reflector: Reflector<KubeObject> }[] = [];
  const keep = <T extends KubeObject>(name: string, listWatcher: ListWatcher<T>): StoreView<T> => {
    const reflector = new Reflector(listWatcher, tuning);
    reflectors.push({ name, reflector: reflector as unknown as Reflector<KubeObject> });
    return reflector.store;
  };
  const make = <T extends KubeObject>(name: string, type: ResourceType<T>, scope: Scope = {}): StoreView<T> =>
    keep(name, api.listWatcher(type, scope));
  const kinds = new Set(options.gatewayApi ? options.routeKinds ?? GATEWAY_ROUTE_KINDS : []);
  const byName = (ref: ObjectName): Scope => ({
    namespace: ref.namespace,
    fieldSelector: `metadata.name=${ref.name}`,
  });
  const labelled = (label: string): Scope => ({
    namespace: options.parNamespace,
    labelSelector: `${label}=true`,
  });
  const { proxyService, dnsService } = options;
  const caches: Omit<DnsCaches, "all" | "run"> = {
    pods: make("Pods", POD, options.clientSelector === "" ? {} : { labelSelector: options.clientSelector }),
    records: make("Records", RECORDS),
    ...(options.hairpin
      ? {
        ingresses: make("Ingresses", INGRESS),
        ...(options.gatewayApi ? { gateways: make("Gateways", GATEWAY) } : {}),
        ...(kinds.has("HTTPRoute") ? { routes: make("HTTPRoutes", HTTP_ROUTE) } : {}),
        ...(kinds.has("GRPCRoute") ? { grpcRoutes: make("GRPCRoutes", GRPC_ROUTE) } : {}),
        ...(kinds.has("TLSRoute")
          ? {
            tlsRoutes: keep(
              "TLSRoutes",
              firstServedListWatcher(TLS_ROUTE_VERSIONS.map((type) => api.listWatcher(type))),
            ),
          }
          : {}),
        proxyService: make(
          `proxy Service ${proxyService.namespace}/${proxyService.name}`,
          SERVICE,
          byName(proxyService),
        ),
      }
      : {}),
    parProxyServices: make(
      `par proxy Services in ${options.parNamespace}`,
      SERVICE,
      labelled(PAR_PROXY_LABEL),
    ),
    ...(dnsService === undefined ? {} : {
      dnsService: make(
        `own Service ${dnsService.namespace}/${dnsService.name}`,
        SERVICE,
        byName(dnsService),
      ),
    }),
    ...(options.manageWorkloads ? { deployments: make("Deployments", DEPLOYMENT) } : {}),
    ...(options.manageProxyConfig
      ? {
        parConfigMaps: make(
          `par proxy ConfigMaps in ${options.parNamespace}`,
          CONFIG_MAP,
          labelled(PAR_PROXY_CONFIG_LABEL),
        ),
        parDeployments: make(
          `par proxy Deployments in ${options.parNamespace}`,
          DEPLOYMENT,
          labelled(PAR_PROXY_LABEL),
        ),
      }
      : {}),
  };
  return {
    ...caches,
    all: reflectors.map(({ name, reflector }) => ({
      name,
      store: reflector.store,
      status: () => reflector.status(),
    })),
    async run(signal: AbortSignal): Promise<void> {
      await Promise.all(reflectors.map(({ reflector }) => reflector.run(signal)));
    },
  };
}
