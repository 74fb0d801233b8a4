/**
 * The running controller: the caches, the reconcile loop, the metrics and the health listener,
 * wired together and stopped together. The command (`lib/commands/controller.ts`) builds the
 * client and the mode's sink; everything from there on lives here, so tests can run the whole
 * controller in-process against the fake API server.
 *
 * @module
 */

import type { DesiredSetOptions } from "../hostnames/desired_set.ts";
import type { BackoffOptions } from "../reflector/backoff.ts";
import type { StoreView } from "../reflector/store.ts";
import type { Service } from "../resources/service.ts";
import type { Sink } from "../sinks/sink.ts";
import type { Clock } from "../util/clock.ts";
import type { ListenAddress } from "../util/listen_address.ts";
import { logger } from "../util/logging.ts";
import { healthHandler, serveHealth } from "./health.ts";
import { type ControllerMetrics, createControllerMetrics } from "./metrics.ts";
import { controllerReadiness, type Readiness } from "./readiness.ts";
import { type LoopLog, type LoopState, ReconcileLoop } from "./reconcile_loop.ts";
import {
  type ControllerSources,
  createSources,
  type ListWatcherFactory,
  type SourcesOptions,
  type TargetRef,
} from "./sources.ts";

/** Caches the runtime builds that a sink may read (the proxy Service in external-dns mode). */
export interface SinkInputs {
  readonly proxyService?: StoreView<Service>;
}

/** Everything the runtime needs. */
export interface ControllerRuntimeOptions {
  /** Makes the list-watchers (the `KubeClient`). */
  readonly api: ListWatcherFactory;
  /** The mode's sink, or a function that builds it from the caches it reads. */
  readonly sink: Sink | ((inputs: SinkInputs) => Sink);
  readonly gatewayApi: boolean;
  /** The ConfigMap the sink edits, watched so drift is repaired at once; absent: resync only. */
  readonly target?: TargetRef;
  /**
   * The proxy Service, watched as a prerequisite: nothing is reconciled before it has listed,
   * and each change calls the sink. Absent: not watched.
   */
  readonly proxyService?: TargetRef;
  readonly desired: DesiredSetOptions;
  readonly resyncMs: number;
  /** `--listen-health`; `null` disables the listener. */
  readonly health: ListenAddress | null;
  readonly version: string;
  /** Resident set size for `/metrics`. @default Deno.memoryUsage().rss */
  readonly rss?: () => number;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly debounceMs?: number;
  readonly shutdownGraceMs?: number;
  readonly backoff?: BackoffOptions;
  readonly reflector?: SourcesOptions["reflector"];
  /** @default {logger("controller")} */
  readonly log?: LoopLog;
  /** Called after every loop state change (tests). */
  readonly observe?: (state: LoopState) => void;
}

/**
 * A controller ready to run: {@linkcode ControllerRuntime.start} binds the health listener (so
 * its address can be logged), {@linkcode ControllerRuntime.run} does the rest. Call `run` once
 * after `start`; it releases the listener when it returns.
 *
 * @example
 * ```ts
 * const runtime = ControllerRuntime.start({ api: client, sink, gatewayApi: false, desired, resyncMs, health, version });
 * log.info("controller starting", { health: runtime.healthAddress });
 * await runtime.run(shutdownSignal);
 * ```
 */
export class ControllerRuntime {
  readonly #sources: ControllerSources;
  readonly #loop: ReconcileLoop;
  readonly #metrics: ControllerMetrics;
  readonly #sink: Sink;
  readonly #healthStop = new AbortController();
  readonly #health: { readonly address: string; readonly finished: Promise<void> } | undefined;
  #stopping = false;

  private constructor(options: ControllerRuntimeOptions) {
    const log = options.log ?? logger("controller");
    this.#sources = createSources(options.api, {
      gatewayApi: options.gatewayApi,
      ...(options.target === undefined ? {} : { target: options.target }),
      ...(options.proxyService === undefined ? {} : { proxyService: options.proxyService }),
      ...(options.reflector === undefined ? {} : { reflector: options.reflector }),
    });
    this.#metrics = createControllerMetrics({
      rss: options.rss ?? (() => Deno.memoryUsage().rss),
      version: options.version,
    });
    const proxyService = this.#sources.proxyService;
    const sink = typeof options.sink === "function"
      ? options.sink(proxyService === undefined ? {} : { proxyService })
      : options.sink;
    this.#sink = sink;
    this.#loop = new ReconcileLoop({
      sources: {
        ingresses: this.#sources.ingresses,
        ...(this.#sources.gateways === undefined ? {} : { gateways: this.#sources.gateways }),
        ...(this.#sources.routes === undefined ? {} : { routes: this.#sources.routes }),
      },
      targets: this.#sources.target === undefined ? [] : [this.#sources.target],
      prerequisites: proxyService === undefined ? [] : [{ kind: "Service", store: proxyService }],
      sink,
      desired: options.desired,
      resyncMs: options.resyncMs,
      log,
      observer: this.#metrics.observer,
      ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
      ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.random === undefined ? {} : { random: options.random }),
      ...(options.observe === undefined ? {} : { observe: options.observe }),
    });
    if (options.health !== null) {
      const handler = healthHandler({
        readiness: () => this.readiness(),
        metrics: () => {
          this.#metrics.collect(this.#sources.watched);
          return this.#metrics.registry.render();
        },
      });
      this.#health = serveHealth(options.health, handler, this.#healthStop.signal, (error) => {
        log.error("the health listener failed; /healthz, /readyz and /metrics are down", { error });
      });
    }
  }

  /** Builds everything and binds the health listener; throws when the listener cannot bind. */
  static start(options: ControllerRuntimeOptions): ControllerRuntime {
    return new ControllerRuntime(options);
  }

  /** The sink the loop calls (built here when the options gave a function). */
  get sink(): Sink {
    return this.#sink;
  }

  /** The health listener's bound address (`host:port`), when enabled. */
  get healthAddress(): string | undefined {
    return this.#health?.address;
  }

  /** What `/readyz` answers now. */
  readiness(): Readiness {
    return controllerReadiness(this.#sources.watched, this.#loop.status(), this.#stopping);
  }

  /**
   * Runs the caches and the loop until `signal` aborts, lets a reconcile in flight finish, then
   * stops the health listener. Never rejects for API failures (they are retried and logged).
   */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.#stopping = true;
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    try {
      await Promise.all([this.#sources.run(signal), this.#loop.run(signal)]);
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#healthStop.abort();
      await this.#health?.finished;
    }
  }
}
