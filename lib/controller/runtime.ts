/**
 * The running controller: the caches, the mode, the reconcile loop and the metrics, wired and
 * stopped together, so tests can run the whole controller in-process against the fake API server.
 *
 * Effects: runs the reflectors, the loop and the elector.
 *
 * @module
 */

import type { DesiredSetOptions } from "../hostnames/desired_set.ts";
import type { LeaseElector } from "../election/lease_elector.ts";
import type { RetryPacingOptions } from "../daemon/retry_pacing.ts";
import type { Mode, Notice, SinkOutcome, WatchObject } from "./modes/sink.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";
import type { HealthRoutes } from "../daemon/health_handler.ts";
import { controllerHealthRoutes } from "./health.ts";
import { type ControllerMetrics, createControllerMetrics } from "./metrics.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import { controllerReadiness, type Readiness } from "./readiness.ts";
import type { LoopState } from "../daemon/loop_step.ts";
import type { Trigger } from "./trigger.ts";
import { ReconcileLoop } from "./reconcile_loop.ts";
import { sourceLists } from "./loop_caches.ts";
import { pairedSink } from "./modes/paired_sink.ts";
import {
  ROUTES_REFUSAL_PROBLEMS,
  RoutesSink,
  type RoutesSinkOptions,
  type RoutesTarget,
} from "./routing/routes_sink.ts";
import { registerRoutesMetrics } from "./routing/routes_metrics.ts";
import { planRoutes, PROXY_PROTOCOL_ANNOTATION, type RoutePlan } from "../routes/route_plan.ts";
import { CONFIG_MAP } from "../resources/config_map.ts";
import { serviceType } from "../resources/service.ts";
import {
  type ControllerSources,
  createSources,
  type ListWatcherFactory,
  type SourcesOptions,
} from "./sources.ts";

/** Everything the runtime needs. */
export interface ControllerRuntimeOptions {
  /** Makes the list-watchers (the `KubeClient`). */
  readonly api: ListWatcherFactory;
  /** Builds the mode, which registers the objects it needs watched through `watch`. */
  readonly mode: (watch: WatchObject) => Mode;
  readonly gatewayApi: boolean;
  /** `--gateway-route-kinds`; default every kind. */
  readonly routeKinds?: SourcesOptions["routeKinds"];
  /** The desired set's settings; `include` wildcards become `exclude` for a mode without them. */
  readonly desired: DesiredSetOptions;
  readonly resyncMs: number;
  readonly version: string;
  /** Resident set size for `/metrics`. @default Deno.memoryUsage().rss */
  readonly rss?: () => number;
  /** Families the command adds to `/metrics` (process metrics, API requests). */
  readonly moreMetrics?: (registry: MetricsRegistry) => void;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly debounceMs?: number;
  readonly shutdownGraceMs?: number;
  readonly backoff?: RetryPacingOptions;
  readonly reflector?: SourcesOptions["reflector"];
  /** The controller's logger; the loop logs through it too. */
  readonly log: Log;
  /** Called after every loop state change (tests). */
  readonly observe?: (state: LoopState<Trigger>) => void;
  /**
   * Leader election: reconcile only while leading, and release the Lease only after the loop has
   * stopped. The writing client must carry the elector's fence. Absent: always write.
   */
  readonly election?: Pick<LeaseElector, "state" | "isLeader" | "subscribe" | "run">;
  /** `--routes`: also publish the route table, through this client (fenced like the mode's). */
  readonly routes?: RuntimeRoutes;
}

/** What `--routes` needs at run time. */
export interface RuntimeRoutes {
  readonly target: RoutesTarget;
  readonly proxyProtocol: "v1" | "v2";
  readonly client: RoutesSinkOptions["client"];
  readonly dryRun?: boolean;
}

/** The Service type the route table's cache holds: identity and the one annotation it reads. */
const ROUTED_SERVICE = serviceType({
  annotations: [PROXY_PROTOCOL_ANNOTATION],
  labels: false,
  ownerReferences: false,
});

/** What {@linkcode ControllerRuntime.once} found. */
export type OnceResult =
  | { readonly kind: "reconciled"; readonly outcome: SinkOutcome }
  /** The deadline passed first; `reason` says what was still missing (as `/readyz` would). */
  | { readonly kind: "timed-out"; readonly reason: string }
  /** The signal aborted first (SIGTERM). */
  | { readonly kind: "aborted" };

/** A controller built by {@linkcode ControllerRuntime.start}; call `run` or `once`, once. */
export class ControllerRuntime {
  readonly #sources: ControllerSources;
  readonly #loop: ReconcileLoop;
  readonly #metrics: ControllerMetrics;
  readonly #mode: Mode;
  readonly #log: Log;
  readonly #election: ControllerRuntimeOptions["election"];
  readonly #clock: Clock;
  #stopping = false;

  private constructor(options: ControllerRuntimeOptions) {
    const log = options.log;
    this.#log = log;
    this.#clock = options.clock ?? systemClock;
    const routing = options.routes;
    this.#sources = createSources(options.api, {
      gatewayApi: options.gatewayApi,
      ...(routing === undefined ? {} : { services: ROUTED_SERVICE }),
      ...(options.routeKinds === undefined ? {} : { routeKinds: options.routeKinds }),
      ...(options.reflector === undefined ? {} : { reflector: options.reflector }),
    });
    this.#mode = options.mode(this.#sources.watch);
    const desired = this.#mode.wildcards === true || options.desired.wildcards === undefined
      ? options.desired
      : { ...options.desired, wildcards: "exclude" as const };
    let report: ((plan: RoutePlan) => void) | undefined;
    const sink = routing === undefined ? this.#mode.sink : pairedSink(
      [this.#mode.sink, this.#routesSink(routing, desired, (plan) => report?.(plan))],
      "",
    );
    const watched = this.#sources.watched();
    const election = options.election;
    this.#election = election;
    const refusalProblems = [
      ...this.#mode.refusalProblems ?? [],
      ...(routing === undefined ? [] : ROUTES_REFUSAL_PROBLEMS),
    ];
    this.#metrics = createControllerMetrics({
      more: (registry) => {
        if (routing !== undefined) report = registerRoutesMetrics(registry);
        options.moreMetrics?.(registry);
      },
      ...(refusalProblems.length === 0 ? {} : { refusalProblems }),
      rss: options.rss ?? (() => Deno.memoryUsage().rss),
      version: options.version,
      ...(election === undefined ? {} : { leading: () => election.isLeader() }),
    });
    if (election !== undefined) {
      let was = election.state.kind;
      election.subscribe(() => {
        const now = election.state.kind;
        if (was !== "leader" && now === "leader") this.#metrics.election.transition("acquired");
        if (was === "leader" && now !== "leader") this.#metrics.election.transition("lost");
        was = now;
      });
    }
    this.#loop = new ReconcileLoop({
      sources: {
        ingresses: this.#sources.ingresses,
        ...(this.#sources.gateways === undefined ? {} : { gateways: this.#sources.gateways }),
        ...(this.#sources.routes === undefined ? {} : { routes: this.#sources.routes }),
        ...(this.#sources.grpcRoutes === undefined ? {} : { grpcRoutes: this.#sources.grpcRoutes }),
        ...(this.#sources.tlsRoutes === undefined ? {} : { tlsRoutes: this.#sources.tlsRoutes }),
      },
      targets: watched.filter((entry) => entry.role === "target").map((entry) => entry.store),
      prerequisites: watched.filter((entry) => entry.role === "prerequisite"),
      sink,
      desired,
      statusMatters: routing !== undefined,
      resyncMs: options.resyncMs,
      log,
      observer: this.#metrics.observer,
      ...(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs }),
      ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
      ...(options.backoff === undefined ? {} : { backoff: options.backoff }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.random === undefined ? {} : { random: options.random }),
      ...(options.observe === undefined ? {} : { observe: options.observe }),
      ...(election === undefined ? {} : { leadership: election }),
    });
  }

  /** The route table's sink, planning from the caches with the loop's desired-set options. */
  #routesSink(
    routing: RuntimeRoutes,
    desired: DesiredSetOptions,
    report: (plan: RoutePlan) => void,
  ): RoutesSink {
    const { namespace, name } = routing.target;
    const sources = this.#sources;
    const current = sources.watch(CONFIG_MAP, { namespace, name }, "target");
    return new RoutesSink({
      client: routing.client,
      target: routing.target,
      current,
      plan: () =>
        planRoutes({
          sources: sourceLists(sources),
          services: sources.services?.list() ?? [],
          options: desired,
          defaultProxyProtocol: routing.proxyProtocol,
        }),
      report,
      ...(routing.dryRun === undefined ? {} : { dryRun: routing.dryRun }),
    });
  }

  /** Builds the caches, the mode and the loop. */
  static start(options: ControllerRuntimeOptions): ControllerRuntime {
    return new ControllerRuntime(options);
  }

  /** The mode the loop writes through. */
  get mode(): Mode {
    return this.#mode;
  }

  /** Runs the mode's start-up probes and logs what they found; a probe never fails the start. */
  async probe(signal: AbortSignal): Promise<void> {
    if (this.#mode.probe === undefined) return;
    let notices: readonly Notice[];
    try {
      notices = await this.#mode.probe(signal);
    } catch (error) {
      notices = [{
        level: "debug",
        message: "a start-up probe did not finish; skipped",
        properties: { error: errorMessage(error) },
      }];
    }
    const target = this.#mode.sink.description;
    for (const notice of notices) this.#log[notice.level](notice.message, { target, ...notice.properties });
  }

  /** What the health listener answers: `/readyz` from {@linkcode readiness}, and `/metrics`. */
  healthRoutes(): HealthRoutes {
    return controllerHealthRoutes({
      readiness: () => this.readiness(),
      metrics: () => {
        this.#metrics.collect(this.#sources.watched());
        return this.#metrics.registry.render();
      },
    });
  }

  /** What `/readyz` answers now. */
  readiness(): Readiness {
    return controllerReadiness({
      watched: this.#sources.watched(),
      loop: this.#loop.status(),
      stopping: this.#stopping,
      now: this.#clock.now(),
    });
  }

  /**
   * `--once`: runs the caches until the loop has made its one sink call, all within `deadlineMs`
   * so an unreachable API server ends it. Call instead of {@linkcode run}; never rejects.
   */
  async once(signal: AbortSignal, options: { readonly deadlineMs: number }): Promise<OnceResult> {
    const stop = new AbortController();
    const deadline = new AbortController();
    const timer = this.#clock.sleep(options.deadlineMs, stop.signal).then((passed) => {
      if (passed) deadline.abort();
    });
    const bounded = AbortSignal.any([signal, deadline.signal]);
    const caches = this.#sources.run(AbortSignal.any([bounded, stop.signal]));
    let outcome: SinkOutcome | undefined;
    let reason = "";
    try {
      outcome = await this.#loop.once(bounded);
      if (deadline.signal.aborted) {
        const readiness = this.readiness();
        reason = readiness.ready ? "the reconcile did not finish" : readiness.reason;
      }
    } finally {
      stop.abort();
      await Promise.all([caches, timer]);
    }
    if (outcome !== undefined) return { kind: "reconciled", outcome };
    return signal.aborted ? { kind: "aborted" } : { kind: "timed-out", reason };
  }

  /**
   * Runs the caches and the loop until `signal` aborts, and lets a reconcile in flight finish.
   * Never rejects for API failures (they are retried and logged).
   */
  async run(signal: AbortSignal): Promise<void> {
    const onAbort = () => this.#stopping = true;
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    // The elector outlives the loop: the Lease is released only once nothing can write any more.
    const electorStop = new AbortController();
    const electing = this.#election?.run(electorStop.signal);
    try {
      await Promise.all([this.#sources.run(signal), this.#loop.run(signal)]);
    } finally {
      signal.removeEventListener("abort", onAbort);
      electorStop.abort();
      await electing;
    }
  }
}
