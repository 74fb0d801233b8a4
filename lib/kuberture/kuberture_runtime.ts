/**
 * The running kuberture: the EndpointSlice cache (and the Node cache while an output needs it),
 * the pass loop, the metrics and readiness, started and stopped together. The loop is level-based:
 * a cache change, a config reload, the 2-minute requeue (as kuberture) or a failed pass marks work
 * pending, and one debounced pass recomputes everything. Failures are paced and said as the controller
 * rule (`retry_pacing.ts`); only the leader runs passes. Readiness keeps kuberture's rule, not the
 * controller's: a pass succeeded within 5 minutes, or this replica stands by.
 *
 * Effects: reflectors, API calls, timers through the injected clock, log lines.
 *
 * @module
 */

import type { HealthRoutes } from "../daemon/health_handler.ts";
import { ReconcileRetry } from "../daemon/retry_pacing.ts";
import type { LeaseElector } from "../election/lease_elector.ts";
import type { EventRecorder } from "../kube/event_recorder.ts";
import type { KubeClient } from "../kube/client.ts";
import { Reflector, type ReflectorOptions } from "../reflector/reflector.ts";
import { ENDPOINT_SLICE, type EndpointSlice } from "../resources/endpoint_slice.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { NODE, type Node } from "../resources/node.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import type { Log } from "../util/logging.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import type { KubertureConfig } from "./config/kuberture_config.ts";
import { createKubertureMetrics, type KubertureMetrics } from "./kuberture_metrics.ts";
import type { Owner } from "./output_object.ts";
import { PassLog } from "./pass_log.ts";
import { type PassApi, passProblem, type PassReport, passSucceeded, runPass } from "./run_pass.ts";

/** The API calls the runtime makes. */
export type KubertureApi = PassApi & Pick<KubeClient, "listWatcher">;

/** Everything the runtime needs. */
export interface KubertureRuntimeOptions {
  readonly api: KubertureApi;
  readonly config: KubertureConfig;
  /** Where the objects go: the controller's namespace. */
  readonly namespace: string;
  readonly instance: string;
  readonly owner: Owner | undefined;
  /** Warning Events on objects in the way. */
  readonly recorder: Pick<EventRecorder, "record">;
  readonly dryRun: boolean;
  readonly version: string;
  readonly log: Log;
  readonly election?: Pick<LeaseElector, "state" | "isLeader" | "subscribe" | "run">;
  readonly clock?: Clock;
  readonly random?: () => number;
  readonly rss?: () => number;
  /** Families the command adds to `/metrics` (process metrics, API requests). */
  readonly moreMetrics?: (registry: MetricsRegistry) => void;
  /** @default 120_000 */
  readonly requeueMs?: number;
  /** @default 100 */
  readonly debounceMs?: number;
  /** @default 300_000 */
  readonly staleAfterMs?: number;
  readonly reflector?: Omit<ReflectorOptions<KubeObject>, "observe" | "labelSelector" | "fieldSelector">;
}

const DEFAULTS = { requeueMs: 120_000, debounceMs: 100, staleAfterMs: 300_000 } as const;

/** Whether a config needs the Node cache. */
function needsNodes(config: KubertureConfig): boolean {
  return config.outputs.some((output) => output.addressSource !== "endpointslice");
}

/** kuberture, ready to {@linkcode KubertureRuntime.run} or {@linkcode KubertureRuntime.once}. */
export class KubertureRuntime {
  readonly #options: KubertureRuntimeOptions;
  readonly #clock: Clock;
  readonly #log: Log;
  readonly #metrics: KubertureMetrics;
  readonly #slices: Reflector<EndpointSlice>;
  #nodes: Reflector<Node> | undefined;
  #config: KubertureConfig;
  #pending = true;
  #wake: (() => void) | undefined;
  #runSignal: AbortSignal | undefined;
  #nodesRunning: Promise<void> | undefined;
  #lastSuccess: number | undefined;
  #stoodBy = false;
  #stopping = false;
  readonly #retry: ReconcileRetry;
  readonly #passLog: PassLog;

  /** Builds the caches and the metrics; nothing runs until {@linkcode run} or {@linkcode once}. */
  constructor(options: KubertureRuntimeOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log;
    this.#config = options.config;
    this.#retry = new ReconcileRetry({
      clock: this.#clock,
      random: options.random ?? Math.random,
      log: options.log,
      target: `kuberture ${options.namespace}/${options.instance}`,
    });
    const election = options.election;
    this.#metrics = createKubertureMetrics({
      ...(options.moreMetrics === undefined ? {} : { more: options.moreMetrics }),
      version: options.version,
      rss: options.rss ?? (() => Deno.memoryUsage().rss),
      leading: () => election?.isLeader() ?? true,
    });
    if (election !== undefined) {
      let was = election.state.kind;
      election.subscribe(() => {
        const now = election.state.kind;
        if (was !== "leader" && now === "leader") this.#metrics.transition("acquired");
        if (was === "leader" && now !== "leader") this.#metrics.transition("lost");
        was = now;
        this.#poke(now === "leader");
      });
    }
    this.#passLog = new PassLog({
      log: options.log,
      metrics: this.#metrics,
      recorder: options.recorder,
      dryRun: options.dryRun,
    });
    const source = options.config.source;
    this.#slices = new Reflector(
      options.api.listWatcher(ENDPOINT_SLICE, {
        namespace: source.namespace,
        labelSelector: `kubernetes.io/service-name=${source.serviceName}`,
      }),
      { ...options.reflector },
    );
    if (needsNodes(options.config)) {
      this.#nodes = new Reflector(options.api.listWatcher(NODE), { ...options.reflector });
    }
  }

  /** The config in force. */
  get config(): KubertureConfig {
    return this.#config;
  }

  /**
   * A reloaded config: takes effect at the next pass (the source and the bind addresses only at
   * a restart; the watcher says so). Starts the Node cache if an output now needs it.
   */
  setConfig(config: KubertureConfig): void {
    this.#config = { ...config, source: this.#config.source };
    if (needsNodes(config) && this.#nodes === undefined) {
      this.#nodes = new Reflector(this.#options.api.listWatcher(NODE), { ...this.#options.reflector });
      if (this.#runSignal !== undefined) this.#nodesRunning = this.#nodes.run(this.#runSignal);
    }
    this.#poke(true);
  }

  /** What the health listeners answer. */
  healthRoutes(): HealthRoutes {
    return {
      readiness: () => {
        const reason = this.#notReady();
        return reason === undefined ? { ready: true } : { ready: false, text: `not ready: ${reason}` };
      },
      metrics: () => this.#metrics.registry.render(),
    };
  }

  #notReady(): string | undefined {
    if (this.#stopping) return "shutting down";
    if (!this.#slices.store.synced) return "waiting for the first list of EndpointSlices";
    if (this.#nodes !== undefined && !this.#nodes.store.synced) return "waiting for the first list of Nodes";
    if (this.#stoodBy && this.#options.election?.isLeader() === false) return undefined;
    if (this.#lastSuccess === undefined) return "no pass has succeeded yet";
    const age = this.#clock.now() - this.#lastSuccess;
    const staleAfter = this.#options.staleAfterMs ?? DEFAULTS.staleAfterMs;
    if (age > staleAfter) return `the last successful pass was ${Math.round(age / 1000)}s ago`;
    return undefined;
  }

  /** Runs the caches and passes until `signal` aborts; the elector stops after the last pass. */
  async run(signal: AbortSignal): Promise<void> {
    await this.#drive(signal, false);
  }

  /** `--once`: waits for the caches, runs one pass, and returns its report (`undefined`: aborted). */
  async once(signal: AbortSignal): Promise<PassReport | undefined> {
    return await this.#drive(signal, true);
  }

  #poke(work: boolean): void {
    if (work) this.#pending = true;
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  #waitForPoke(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        signal.removeEventListener("abort", done);
        this.#wake = undefined;
        resolve();
      };
      this.#wake = done;
      signal.addEventListener("abort", done, { once: true });
    });
  }

  async #drive(signal: AbortSignal, once: boolean): Promise<PassReport | undefined> {
    const stop = new AbortController();
    const onAbort = () => {
      this.#stopping = true;
      stop.abort();
    };
    signal.addEventListener("abort", onAbort, { once: true });
    if (signal.aborted) onAbort();
    this.#runSignal = stop.signal;
    const electorStop = new AbortController();
    const electing = once ? undefined : this.#options.election?.run(electorStop.signal);
    const caches = this.#slices.run(stop.signal);
    this.#nodesRunning = this.#nodes?.run(stop.signal);
    const unsubscribe = this.#slices.store.subscribe(() => this.#poke(true));
    let unsubscribeNodes: (() => void) | undefined;
    const requeue = once ? Promise.resolve() : this.#requeue(signal);
    let report: PassReport | undefined;
    try {
      report = await this.#loop(signal, once, () => {
        if (this.#nodes !== undefined && unsubscribeNodes === undefined) {
          unsubscribeNodes = this.#nodes.store.subscribe(() => this.#poke(true));
        }
      });
    } finally {
      signal.removeEventListener("abort", onAbort);
      unsubscribe();
      unsubscribeNodes?.();
      this.#stopping = true;
      stop.abort();
      await requeue;
      electorStop.abort();
      await electing;
      await Promise.all([caches, this.#nodesRunning]);
    }
    return report;
  }

  /** Waits for the caches, then runs passes while leading (one with `once`) until `signal` aborts. */
  async #loop(signal: AbortSignal, once: boolean, watchNodes: () => void): Promise<PassReport | undefined> {
    let report: PassReport | undefined;
    while (!signal.aborted) {
      const nodes = this.#nodes;
      watchNodes();
      if (!this.#slices.store.synced || (nodes !== undefined && !nodes.store.synced)) {
        // Both caches: a resolved promise for a missing one would spin this loop.
        await Promise.all([this.#slices.store.whenSynced(signal), nodes?.store.whenSynced(signal)]);
        continue;
      }
      if (!once && this.#options.election?.isLeader() === false) {
        this.#stoodBy = true;
        await this.#waitForPoke(signal);
        continue;
      }
      if (!this.#pending) {
        await this.#waitForPoke(signal);
        continue;
      }
      await this.#clock.sleep(this.#options.debounceMs ?? DEFAULTS.debounceMs, signal);
      if (signal.aborted) break;
      this.#pending = false;
      report = await this.#pass(signal);
      if (once) break;
      const problem = passProblem(report);
      if (problem === undefined) {
        this.#retry.succeeded();
        continue;
      }
      if (this.#options.election?.isLeader() === false) {
        // The write fence stopped the pass: another replica leads now, and it writes.
        this.#retry.reset();
        continue;
      }
      const delay = this.#retry.failed(problem);
      if (await this.#clock.sleep(delay, signal)) this.#pending = true;
    }
    return report;
  }

  async #requeue(signal: AbortSignal): Promise<void> {
    const period = this.#options.requeueMs ?? DEFAULTS.requeueMs;
    while (await this.#clock.sleep(period, signal)) this.#poke(true);
  }

  /** One pass, logged and counted. */
  async #pass(signal: AbortSignal): Promise<PassReport> {
    const options = this.#options;
    const config = this.#config;
    const report = await runPass({
      config,
      slices: this.#slices.store.list(),
      nodes: this.#nodes?.store.list() ?? [],
      namespace: options.namespace,
      instance: options.instance,
      owner: options.owner,
    }, { api: options.api, dryRun: options.dryRun, signal });
    await this.#passLog.say(report, signal);
    const succeeded = passSucceeded(report);
    this.#metrics.reconciled(succeeded ? "success" : "error");
    this.#metrics.retain(config.outputs.map((output) => output.name));
    if (succeeded) this.#lastSuccess = this.#clock.now();
    return report;
  }
}
