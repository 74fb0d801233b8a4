/**
 * The reconcile loop's inbox: a store change (or a loop timer) only records a reason
 * ({@linkcode Trigger}) and wakes the loop, which takes everything pending at once.
 *
 * Effects: store subscriptions and the wake-up of one waiting loop; no timers, no I/O.
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
import { mergeTriggers, NO_TRIGGER, type Trigger } from "./loop_step.ts";

/** The caches hostnames come from; leave out the stores of kinds not watched. */
export interface LoopSources {
  readonly ingresses: StoreView<Ingress>;
  readonly gateways?: StoreView<Gateway>;
  /** HTTPRoutes. */
  readonly routes?: StoreView<HttpRoute>;
  readonly grpcRoutes?: StoreView<GrpcRoute>;
  readonly tlsRoutes?: StoreView<TlsRoute>;
}

/** A cache the sink reads besides the sources (the proxy Service); `kind` names it in logs. */
export interface Prerequisite {
  readonly kind: string;
  readonly store: StoreView<KubeObject>;
}

/** The caches a {@linkcode TriggerInbox} listens to, by what their changes mean. */
export interface TriggerInboxOptions {
  /** Their changes set `sources`; they hold back the first reconcile until listed. */
  readonly sources: LoopSources;
  /** Their changes set `target`; they never hold anything back. */
  readonly targets: readonly StoreView<KubeObject>[];
  /** Their changes set `prerequisite`; they hold back the first reconcile until listed. */
  readonly prerequisites: readonly Prerequisite[];
}

/** Pending triggers, fed by store subscriptions and by {@linkcode TriggerInbox.add}. */
export class TriggerInbox {
  readonly #options: TriggerInboxOptions;
  /** Every cache the first reconcile waits for, with the kind logs name it by. */
  readonly #awaited: readonly (readonly [string, StoreView<KubeObject>])[];
  #pending: Trigger = NO_TRIGGER;
  #wake: (() => void) | undefined;

  /** Listens to nothing until {@linkcode subscribe}. */
  constructor(options: TriggerInboxOptions) {
    this.#options = options;
    const { ingresses, gateways, routes, grpcRoutes, tlsRoutes } = options.sources;
    this.#awaited = [
      ["Ingress", ingresses],
      ...(gateways === undefined ? [] : [["Gateway", gateways] as const]),
      ...(routes === undefined ? [] : [["HTTPRoute", routes] as const]),
      ...(grpcRoutes === undefined ? [] : [["GRPCRoute", grpcRoutes] as const]),
      ...(tlsRoutes === undefined ? [] : [["TLSRoute", tlsRoutes] as const]),
      ...options.prerequisites.map(({ kind, store }) => [kind, store] as const),
    ];
  }

  /** What is pending now. */
  get pending(): Trigger {
    return this.#pending;
  }

  /** The source and prerequisite kinds that have not listed yet, in a stable order. */
  unsynced(): readonly string[] {
    return this.#awaited.filter(([, store]) => !store.synced).map(([kind]) => kind);
  }

  /** Records `reason` and wakes the loop if it waits in {@linkcode next}. */
  add(reason: Partial<Trigger>): void {
    this.#pending = mergeTriggers(this.#pending, reason);
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  /** Everything pending, which is cleared. */
  take(): Trigger {
    const taken = this.#pending;
    this.#pending = NO_TRIGGER;
    return taken;
  }

  /** Resolves at the next {@linkcode add} (a store change counts), or when `signal` aborts. */
  next(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#wake = undefined;
        resolve();
      };
      this.#wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Starts listening to the caches; returns the function that stops it. */
  subscribe(): () => void {
    const { sources: { ingresses, gateways, routes, grpcRoutes, tlsRoutes }, targets, prerequisites } =
      this.#options;
    const sources: StoreView<KubeObject>[] = [ingresses];
    for (const store of [gateways, routes, grpcRoutes, tlsRoutes]) {
      if (store !== undefined) sources.push(store);
    }
    const unsubscribes = [
      // A status-only update cannot change the desired set: it wakes nothing.
      ...sources.map((store) =>
        store.subscribe((change) => {
          if (hostnamesMayChange(change)) this.add({ sources: true });
        })
      ),
      ...targets.map((store) => store.subscribe(() => this.add({ target: true }))),
      ...prerequisites.map(({ store }) => store.subscribe(() => this.add({ prerequisite: true }))),
    ];
    return () => {
      this.#wake = undefined;
      for (const unsubscribe of unsubscribes) unsubscribe();
    };
  }
}
