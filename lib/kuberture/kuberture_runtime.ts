/**
 * The running kuberture: the EndpointSlice cache (and the Node cache while an output needs it),
 * its passes on the shared control loop (`daemon/control_loop.ts`: a cache change, a config
 * reload, the 2-minute requeue as in kuberture, or a failed pass leads to one debounced pass over
 * everything, only on the leader, failures paced and said as the controller's), the metrics and
 * readiness. Readiness keeps kuberture's rule, not the controller's: a pass succeeded within 5
 * minutes, or this replica stands by.
 *
 * Effects: reflectors, API calls, timers through the injected clock, log lines.
 *
 * @module
 */

import type { HealthRoutes } from "../daemon/health_handler.ts";
import { ALWAYS_LEADING, ControlLoop, type PassVerdict } from "../daemon/control_loop.ts";
import type { LoopTrigger } from "../daemon/loop_step.ts";
import type { LeaseElector } from "../election/lease_elector.ts";
import type { EventRecorder } from "../kube/event_recorder.ts";
import type { KubeClient } from "../kube/client.ts";
import { Reflector, type ReflectorOptions } from "../reflector/reflector.ts";
import { BookmarkPace } from "../reflector/watch_handle.ts";
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
import { type PassApi, passProblem, type PassReport, runPass } from "./run_pass.ts";

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

/** Why a pass runs: the loop's own reasons, or a cache change or config reload. */
interface KubertureTrigger extends LoopTrigger {
  readonly changes: boolean;
}

const NOTHING: KubertureTrigger = {
  changes: false,
  resync: false,
  retry: false,
  leadership: false,
  recheck: false,
};

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
  #loop: ControlLoop<KubertureTrigger> | undefined;
  #runSignal: AbortSignal | undefined;
  #nodesRunning: Promise<void> | undefined;
  #unsubscribeNodes: (() => void) | undefined;
  #lastSuccess: number | undefined;
  #lastReport: PassReport | undefined;
  /** A pass has listed this instance's objects (its first, DNSEndpoints included) without failing. */
  #endpointsPruned = false;
  /** An output has been `crd` at some pass since start: DNSEndpoints are listed on every pass. */
  #crdSinceStart = false;
  #stopping = false;
  readonly #passLog: PassLog;
  /** The reflectors' tuning, with one bookmark pace for all of them (see WatchHandle). */
  readonly #tuning: Omit<ReflectorOptions<KubeObject>, "observe" | "labelSelector" | "fieldSelector">;

  /** Builds the caches and the metrics; nothing runs until {@linkcode run} or {@linkcode once}. */
  constructor(options: KubertureRuntimeOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#log = options.log;
    this.#config = options.config;
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
      });
    }
    this.#tuning = { pace: new BookmarkPace(), ...options.reflector };
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
      this.#tuning,
    );
    if (needsNodes(options.config)) {
      this.#nodes = new Reflector(options.api.listWatcher(NODE), this.#tuning);
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
      this.#nodes = new Reflector(this.#options.api.listWatcher(NODE), this.#tuning);
      if (this.#runSignal !== undefined) {
        this.#nodesRunning = this.#nodes.run(this.#runSignal);
        this.#unsubscribeNodes = this.#nodes.store.subscribe(() => this.#loop?.add({ changes: true }));
      }
    }
    this.#loop?.add({ changes: true });
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
    if (this.#loop?.stoodBy === true && this.#options.election?.isLeader() === false) return undefined;
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
    const election = this.#options.election;
    const electing = once ? undefined : election?.run(electorStop.signal);
    const caches = this.#slices.run(stop.signal);
    this.#nodesRunning = this.#nodes?.run(stop.signal);
    const loop = new ControlLoop<KubertureTrigger>({
      none: NOTHING,
      first: { changes: true },
      target: `kuberture ${this.#options.namespace}/${this.#options.instance}`,
      unsynced: () => [
        ...(this.#slices.store.synced ? [] : ["EndpointSlice"]),
        ...(this.#nodes === undefined || this.#nodes.store.synced ? [] : ["Node"]),
      ],
      subscribe: (add) => {
        const slices = this.#slices.store.subscribe(() => add({ changes: true }));
        this.#unsubscribeNodes = this.#nodes?.store.subscribe(() => add({ changes: true }));
        return () => {
          slices();
          this.#unsubscribeNodes?.();
        };
      },
      pass: (_trigger, passSignal) => this.#pass(passSignal),
      random: this.#options.random ?? Math.random,
      log: this.#log,
      clock: this.#clock,
      debounceMs: this.#options.debounceMs ?? DEFAULTS.debounceMs,
      resyncMs: this.#options.requeueMs ?? DEFAULTS.requeueMs,
      leadership: once || election === undefined ? ALWAYS_LEADING : election,
    });
    this.#loop = loop;
    try {
      await loop.run(signal, { once });
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#stopping = true;
      stop.abort();
      electorStop.abort();
      await electing;
      await Promise.all([caches, this.#nodesRunning]);
    }
    return this.#lastReport;
  }

  /** One pass, logged and counted; its report is kept for `once`. */
  async #pass(signal: AbortSignal): Promise<PassVerdict> {
    const options = this.#options;
    const config = this.#config;
    this.#crdSinceStart ||= config.outputs.some((output) => output.kind === "crd");
    const report = await runPass({
      config,
      slices: this.#slices.store.list(),
      nodes: this.#nodes?.store.list() ?? [],
      namespace: options.namespace,
      instance: options.instance,
      owner: options.owner,
      listDnsEndpoints: !this.#endpointsPruned || this.#crdSinceStart,
    }, { api: options.api, dryRun: options.dryRun, signal });
    this.#endpointsPruned ||= report.listFailed === undefined;
    this.#lastReport = report;
    await this.#passLog.say(report, signal);
    const problem = passProblem(report);
    this.#metrics.reconciled(problem === undefined ? "success" : "error");
    this.#metrics.retain(config.outputs.map((output) => output.name));
    if (problem !== undefined) return { kind: "failed", message: problem };
    this.#lastSuccess = this.#clock.now();
    return { kind: "done" };
  }
}
