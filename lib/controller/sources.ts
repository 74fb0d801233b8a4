/**
 * What the controller watches: Ingresses in every namespace, with `--gateway-api` Gateways and the
 * route kinds of `--gateway-route-kinds`, with `--routes` every Service, and the single objects the
 * mode asked for (by name, with a field selector), each kept by its own {@linkcode Reflector}. A Gateway API kind the cluster
 * does not serve counts as synced and empty, so it never blocks the others.
 *
 * Effects: none until `run`, which runs the reflectors.
 *
 * @module
 */

import type { ObjectRef, Scope } from "../kube/client.ts";
import { firstServedListWatcher } from "../kube/first_served_list_watcher.ts";
import type { ListWatcher } from "../kube/list_watch.ts";
import { GATEWAY_ROUTE_KINDS, type GatewayRouteKind } from "../hostnames/sources.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { Reflector, type ReflectorOptions, type ReflectorStatus } from "../reflector/reflector.ts";
import { BookmarkPace } from "../reflector/watch_handle.ts";
import type { StoreView } from "../reflector/store.ts";
import { GATEWAY } from "../resources/gateway.ts";
import { GRPC_ROUTE } from "../resources/grpc_route.ts";
import { HTTP_ROUTE } from "../resources/http_route.ts";
import { INGRESS } from "../resources/ingress.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import type { Service } from "../resources/service.ts";
import { TLS_ROUTE_VERSIONS } from "../resources/tls_route.ts";
import type { WatchObject, WatchRole } from "./modes/sink.ts";
import type { LoopSources } from "./loop_caches.ts";

/** Makes list-watchers; `KubeClient` is one. */
export interface ListWatcherFactory {
  listWatcher<T extends KubeObject>(type: ResourceType<T>, scope?: Scope): ListWatcher<T>;
}

/** What a watched kind is for: hostnames come from `source`s; the others are a mode's. */
export type WatchedRole = "source" | WatchRole;

/** One watched kind (as Kubernetes spells it; metric labels use it) and its role. */
export interface Watched {
  readonly kind: string;
  readonly role: WatchedRole;
  readonly store: StoreView<KubeObject>;
  status(): ReflectorStatus;
}

/** Options for {@linkcode createSources}. */
export interface SourcesOptions {
  /** `--gateway-api`: also watch Gateways and the route kinds of `routeKinds`. */
  readonly gatewayApi: boolean;
  /** `--gateway-route-kinds`; default every kind. Ignored without `gatewayApi`. */
  readonly routeKinds?: readonly GatewayRouteKind[];
  /**
   * `--routes`: also keep every Service (a prerequisite: the route table reads the LoadBalancer
   * ones), decoded as this type.
   */
  readonly services?: ResourceType<Service>;
  /** Reflector tuning shared by every kind (tests pass a clock and short timeouts). */
  readonly reflector?: Omit<ReflectorOptions<KubeObject>, "observe" | "labelSelector" | "fieldSelector">;
}

/** The running caches. */
export interface ControllerSources extends LoopSources {
  /** Every Service, with `services`. */
  readonly services?: StoreView<Service>;
  /** Registers one more object to watch by name; only before {@linkcode ControllerSources.run}. */
  readonly watch: WatchObject;
  /** Every reflector with its kind and role, sources first, then the mode's in the order asked. */
  watched(): readonly Watched[];
  /** Runs every reflector until `signal` aborts; resolves once all have stopped. */
  run(signal: AbortSignal): Promise<void>;
}

interface Entry extends Watched {
  run(signal: AbortSignal): Promise<void>;
}

function entry<T extends KubeObject>(kind: string, role: WatchedRole, reflector: Reflector<T>): Entry {
  return {
    kind,
    role,
    store: reflector.store,
    status: () => reflector.status(),
    run: (signal) => reflector.run(signal),
  };
}

/** Builds the reflectors (nothing runs until {@linkcode ControllerSources.run}). */
export function createSources(api: ListWatcherFactory, options: SourcesOptions): ControllerSources {
  // One bookmark pace for every watch on this API server (see WatchHandle).
  const tuning = { pace: new BookmarkPace(), ...options.reflector };
  const ingresses = new Reflector(api.listWatcher(INGRESS), tuning);
  const kinds = new Set(options.gatewayApi ? options.routeKinds ?? GATEWAY_ROUTE_KINDS : []);
  const gateways = options.gatewayApi ? new Reflector(api.listWatcher(GATEWAY), tuning) : undefined;
  const routes = kinds.has("HTTPRoute") ? new Reflector(api.listWatcher(HTTP_ROUTE), tuning) : undefined;
  const grpcRoutes = kinds.has("GRPCRoute") ? new Reflector(api.listWatcher(GRPC_ROUTE), tuning) : undefined;
  const tlsRoutes = kinds.has("TLSRoute")
    ? new Reflector(firstServedListWatcher(TLS_ROUTE_VERSIONS.map((type) => api.listWatcher(type))), tuning)
    : undefined;
  const entries: Entry[] = [entry("Ingress", "source", ingresses)];
  if (gateways !== undefined) entries.push(entry("Gateway", "source", gateways));
  if (routes !== undefined) entries.push(entry("HTTPRoute", "source", routes));
  if (grpcRoutes !== undefined) entries.push(entry("GRPCRoute", "source", grpcRoutes));
  if (tlsRoutes !== undefined) entries.push(entry("TLSRoute", "source", tlsRoutes));
  const services = options.services === undefined
    ? undefined
    : new Reflector(api.listWatcher(options.services), tuning);
  if (services !== undefined) entries.push(entry("Service", "prerequisite", services));
  let running = false;
  return {
    ingresses: ingresses.store,
    ...(gateways === undefined ? {} : { gateways: gateways.store }),
    ...(routes === undefined ? {} : { routes: routes.store }),
    ...(grpcRoutes === undefined ? {} : { grpcRoutes: grpcRoutes.store }),
    ...(tlsRoutes === undefined ? {} : { tlsRoutes: tlsRoutes.store }),
    ...(services === undefined ? {} : { services: services.store }),
    watch<T extends KubeObject>(
      type: ResourceType<T>,
      ref: Required<ObjectRef>,
      role: WatchRole,
    ): StoreView<T> {
      if (running) throw new Error("Cannot add a watch once the caches run");
      const scope: Scope = { namespace: ref.namespace, fieldSelector: `metadata.name=${ref.name}` };
      const reflector = new Reflector(api.listWatcher(type, scope), tuning);
      entries.push(entry(type.kind, role, reflector));
      return reflector.store;
    },
    watched: () => entries.map(({ kind, role, store, status }) => ({ kind, role, store, status })),
    async run(signal: AbortSignal): Promise<void> {
      running = true;
      await Promise.all(entries.map((watched) => watched.run(signal)));
    },
  };
}
