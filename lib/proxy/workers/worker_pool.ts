/**
 * N proxy workers as one proxy: started on the same ports, restarted when they die, drained
 * together, answered for on the main thread's health listener.
 *
 * Worker 0 binds first (port 0 becomes a real port); the others bind its addresses with
 * `reusePort`. Each scrape asks every worker and sums the answers; a stopped or dead worker's
 * last counters are kept, so totals never fall (a crash loses what it counted since the scrape).
 *
 * Effects: spawns workers (through the injected `spawn`), logs, sleeps on the injected clock.
 *
 * @module
 */

import type { ShutdownSignals } from "../../daemon/shutdown_signals.ts";
import type { Clock } from "../../util/clock.ts";
import {
  type Exposition,
  monotonicFamilies,
  parseExposition,
  renderExposition,
  sumExpositions,
  withoutFamilies,
} from "../../util/exposition_sum.ts";
import type { Log } from "../../util/logging.ts";
import { MetricsRegistry } from "../../util/metrics.ts";
import { PROCESS_METRIC_NAMES } from "../../util/process_metrics.ts";
import type { ProxyServerConfig } from "../server.ts";
import { boundConfig } from "./bound_config.ts";
import { nextFailures, restartDelay } from "./restart_delay.ts";
import { type FromWorker, isFromWorker, type ToWorker } from "./worker_messages.ts";
import { toSeconds } from "../../util/duration.ts";
import type { RouteTable } from "../../routes/route_table.ts";

/** What the pool needs of a worker; Deno's `Worker` fits. */
export interface WorkerHandle {
  postMessage(message: ToWorker): void;
  addEventListener(type: "message", listener: (event: MessageEvent<unknown>) => void): void;
  addEventListener(type: "error", listener: (event: ErrorEvent) => void): void;
  terminate(): void;
}

/** The worker module, for `new Worker` and for `deno compile --include`. */
export const PROXY_WORKER_URL: URL = new URL("./proxy_worker.ts", import.meta.url);

/** Spawns the real worker module. */
export function spawnProxyWorker(index: number): WorkerHandle {
  return new Worker(PROXY_WORKER_URL, { type: "module", name: `proxy-worker-${index}` });
}

/** Process-wide families: the main thread's alone (worker copies are dropped). */
const PROCESS_FAMILIES: ReadonlySet<string> = new Set([
  "ouroboros_build_info",
  "process_resident_memory_bytes",
  "ouroboros_proxy_backend_ready",
  "ouroboros_proxy_route_table_loads_total",
  "ouroboros_proxy_route_table_routes",
  ...PROCESS_METRIC_NAMES,
]);
const ACCEPTED = "ouroboros_proxy_connections_accepted_total";
/** How long a scrape waits for a worker before using its previous answer. */
const SCRAPE_WAIT_MS = 1_000;
/** How long after the grace a worker may take before it is terminated. */
const STOP_MARGIN_MS = 5_000;

/** Options for {@linkcode WorkerPool.start}. */
export interface WorkerPoolOptions {
  readonly count: number;
  readonly debug: boolean;
  readonly log: Log;
  readonly clock: Clock;
  /** @default spawnProxyWorker */
  readonly spawn?: (index: number) => WorkerHandle;
  /** The route table workers start with (`--routes-file`); later ones come by `setRoutes`. */
  readonly routes?: RouteTable | undefined;
}

type SlotState = "starting" | "accepting" | "down" | "stopped";

interface Slot {
  readonly index: number;
  worker: WorkerHandle | undefined;
  state: SlotState;
  /** The last exposition the running worker sent. */
  last: Exposition;
  /** What stopped or dead workers of this slot counted. */
  retired: Exposition;
  failures: number;
  startedAt: number;
  addresses: Readonly<Record<string, string>> | undefined;
  /** Settles with a starting worker's first answer: `undefined` when listening, else why not. */
  onStarted: ((problem: string | undefined) => void) | undefined;
}

const EMPTY: Exposition = new Map();

/** Running proxy workers: {@linkcode WorkerPool.start}, then {@linkcode WorkerPool.run}. */
export class WorkerPool {
  readonly #config: ProxyServerConfig;
  readonly #options: WorkerPoolOptions;
  readonly #slots: Slot[];
  readonly #addresses: Readonly<Record<string, string>>;
  readonly #registry = new MetricsRegistry();
  readonly #restarts = this.#registry.counter(
    "ouroboros_proxy_worker_restarts_total",
    "Proxy workers started again after they died.",
  ).labels({});
  readonly #accepted = this.#registry.counter(
    "ouroboros_proxy_worker_connections_accepted_total",
    "Client connections accepted, by worker (the kernel spreads them over the workers).",
    ["worker"],
  );
  readonly #stop = new AbortController();
  readonly #pending = new Map<number, (text: string | undefined) => void>();
  #nextId = 0;
  #stopping = false;
  /** The route table every worker serves, and a restarted one starts with. */
  #routes: RouteTable | undefined;
  #allStopped: (() => void) | undefined;

  private constructor(
    config: ProxyServerConfig,
    options: WorkerPoolOptions,
    init: { slots: Slot[]; addresses: Readonly<Record<string, string>> },
  ) {
    this.#config = config;
    this.#options = options;
    this.#slots = init.slots;
    this.#addresses = init.addresses;
    this.#routes = options.routes;
    this.#registry.gauge("ouroboros_proxy_workers", "Proxy workers configured (--workers).").labels({})
      .value = options.count;
    this.#registry.sampledGauge(
      "ouroboros_proxy_workers_accepting",
      "Proxy workers accepting connections now.",
      () => this.#slots.filter((slot) => slot.state === "accepting").length,
    );
  }

  /** Resolves once every worker accepts; else terminates them all and throws the first error. */
  static async start(config: ProxyServerConfig, options: WorkerPoolOptions): Promise<WorkerPool> {
    const slots: Slot[] = Array.from({ length: Math.max(1, options.count) }, (_, index) => ({
      index,
      worker: undefined,
      state: "starting",
      last: EMPTY,
      retired: EMPTY,
      failures: 0,
      startedAt: options.clock.now(),
      addresses: undefined,
      onStarted: undefined,
    }));
    // Messages before the pool exists only concern the start; `attach` routes later ones to it.
    let pool: WorkerPool | undefined;
    const route = (slot: Slot, worker: WorkerHandle) => (message: FromWorker) => {
      if (pool !== undefined) pool.#onMessage(slot, worker, message);
      else if (message.kind === "listening") slot.onStarted?.(undefined);
      else if (message.kind === "failed") slot.onStarted?.(message.error);
      else if (message.kind === "log") options.log[message.level](message.message, message.properties);
    };
    const died = (slot: Slot, worker: WorkerHandle) => (error: string) => {
      if (pool !== undefined) pool.#onDeath(slot, worker, error);
      else slot.onStarted?.(`proxy worker ${slot.index} died while starting: ${error}`);
    };
    const launch = (slot: Slot, target: ProxyServerConfig): Promise<string | undefined> =>
      new Promise((resolve) => {
        slot.onStarted = resolve;
        attach(slot, options, { config: target, routes: options.routes, route, died });
      });
    const all = slots.slice();
    try {
      const first = all[0]!;
      const problem = await launch(first, config);
      if (typeof problem === "string") throw new Error(problem);
      const addresses = first.addresses ?? {};
      const bound = boundConfig(config, addresses);
      const problems = await Promise.all(all.slice(1).map((slot) => launch(slot, bound)));
      const failed = problems.find((p) => typeof p === "string");
      if (failed !== undefined) throw new Error(failed);
      for (const slot of all) slot.state = "accepting";
      pool = new WorkerPool(bound, options, { slots, addresses });
      return pool;
    } catch (error) {
      for (const slot of all) slot.worker?.terminate();
      throw error;
    }
  }

  /** Sends `table` to every worker, and to each one started later. */
  setRoutes(table: RouteTable): void {
    this.#routes = table;
    for (const slot of this.#slots) {
      if (slot.state !== "stopped") slot.worker?.postMessage({ kind: "routes", table });
    }
  }

  /** Bound addresses by listener name, as worker 0 reported them (every worker shares them). */
  get addresses(): Readonly<Record<string, string>> {
    return this.#addresses;
  }

  /** Why the pool is not ready (a worker not accepting), or `undefined` when every one accepts. */
  notReady(): string | undefined {
    const slot = this.#slots.find((s) => s.state !== "accepting");
    return slot === undefined
      ? undefined
      : `proxy worker ${slot.index} of ${this.#slots.length} is not accepting (${slot.state})`;
  }

  /** The main thread's exposition plus the workers' traffic metrics summed, then the pool's own. */
  async exposition(processText: string): Promise<string> {
    await Promise.all(this.#slots.map((slot) => this.#refresh(slot)));
    const parts = this.#slots.flatMap((slot) => [slot.retired, slot.last]);
    for (const slot of this.#slots) {
      const own = sumExpositions([slot.retired, slot.last]).get(ACCEPTED);
      let total = 0;
      for (const value of own?.samples.values() ?? []) total += value;
      this.#accepted.labels({ worker: String(slot.index) }).value = total;
    }
    const traffic = withoutFamilies(sumExpositions(parts), PROCESS_FAMILIES);
    return renderExposition(sumExpositions([parseExposition(processText), traffic])) +
      this.#registry.render();
  }

  /** Asks a running worker for its exposition; keeps the previous one if it answers late. */
  async #refresh(slot: Slot): Promise<void> {
    const worker = slot.worker;
    if (worker === undefined || slot.state !== "accepting") return;
    const id = this.#nextId++;
    const wait = new AbortController();
    const answer = new Promise<string | undefined>((resolve) => this.#pending.set(id, resolve));
    worker.postMessage({ kind: "metrics", id });
    const text = await Promise.race([
      answer,
      this.#options.clock.sleep(SCRAPE_WAIT_MS, wait.signal).then(() => undefined),
    ]);
    wait.abort();
    this.#pending.delete(id);
    if (text !== undefined && slot.worker === worker) slot.last = parseExposition(text);
  }

  #onMessage(slot: Slot, worker: WorkerHandle, message: FromWorker): void {
    const log = this.#options.log;
    switch (message.kind) {
      case "log":
        log[message.level](message.message, { worker: slot.index, ...message.properties });
        return;
      case "metrics":
        this.#pending.get(message.id)?.(message.text);
        return;
      case "listening":
        if (slot.worker !== worker) return;
        slot.state = "accepting";
        slot.startedAt = this.#options.clock.now();
        log.info("proxy worker accepting again", { worker: slot.index });
        if (this.#stopping) worker.postMessage({ kind: "shutdown" });
        return;
      case "failed":
        this.#onDeath(slot, worker, message.error);
        return;
      case "stopped":
        if (slot.worker !== worker) return;
        slot.retired = sumExpositions([slot.retired, monotonicFamilies(parseExposition(message.text))]);
        slot.last = EMPTY;
        this.#retire(slot, "stopped");
        return;
    }
  }

  /** A worker died: count it, keep its counters, and start it again unless shutting down. */
  #onDeath(slot: Slot, worker: WorkerHandle, error: string): void {
    if (slot.worker !== worker) return;
    slot.retired = sumExpositions([slot.retired, monotonicFamilies(slot.last)]);
    slot.last = EMPTY;
    if (this.#stopping) {
      this.#options.log.warn("proxy worker died during shutdown", { worker: slot.index, error });
      this.#retire(slot, "stopped");
      return;
    }
    this.#retire(slot, "down");
    this.#restarts.value += 1;
    const clock = this.#options.clock;
    slot.failures = nextFailures(slot.failures, { upForMs: clock.now() - slot.startedAt });
    const delayMs = restartDelay(slot.failures);
    this.#options.log.error("proxy worker died; starting it again", {
      worker: slot.index,
      error,
      restartInSeconds: toSeconds(delayMs),
    });
    clock.sleep(delayMs, this.#stop.signal).then((slept) => {
      if (!slept || this.#stopping) return;
      slot.state = "starting";
      slot.startedAt = clock.now();
      attach(slot, this.#options, {
        config: this.#config,
        routes: this.#routes,
        route: (s, w) => (message) => this.#onMessage(s, w, message),
        died: (s, w) => (why) => this.#onDeath(s, w, why),
      });
    });
  }

  #retire(slot: Slot, state: "down" | "stopped"): void {
    slot.worker?.terminate();
    slot.worker = undefined;
    slot.state = state;
    if (this.#slots.every((s) => s.state === "stopped")) this.#allStopped?.();
  }

  /** Supervises the workers until the drain every one of them runs has ended. */
  async run(signals: ShutdownSignals): Promise<void> {
    const { clock, log } = this.#options;
    const allStopped = new Promise<void>((resolve) => this.#allStopped = resolve);
    if (!signals.shutdown.aborted) {
      await new Promise<void>((resolve) =>
        signals.shutdown.addEventListener("abort", () => resolve(), { once: true })
      );
    }
    this.#stopping = true;
    this.#stop.abort();
    for (const slot of this.#slots) {
      if (slot.state === "down") this.#retire(slot, "stopped");
      else if (slot.state === "accepting") slot.worker?.postMessage({ kind: "shutdown" });
    }
    const forward = () => {
      for (const slot of this.#slots) slot.worker?.postMessage({ kind: "force" });
    };
    if (signals.force.aborted) forward();
    else signals.force.addEventListener("abort", forward, { once: true });
    if (this.#slots.every((s) => s.state === "stopped")) this.#allStopped?.();
    const giveUp = new AbortController();
    const inTime = await Promise.race([
      allStopped.then(() => true),
      clock.sleep(this.#config.shutdownGraceMs + STOP_MARGIN_MS, giveUp.signal).then(() => false),
    ]);
    giveUp.abort();
    signals.force.removeEventListener("abort", forward);
    if (!inTime) {
      const running = this.#slots.filter((slot) => slot.state !== "stopped").map((slot) => slot.index);
      log.warn("proxy workers still running after the shutdown grace; terminating them", {
        workers: running,
      });
      for (const slot of this.#slots) this.#retire(slot, "stopped");
    }
  }

  /** Terminates every worker (for a pool that will not run, or whose run failed). */
  close(): void {
    this.#stopping = true;
    this.#stop.abort();
    for (const slot of this.#slots) this.#retire(slot, "stopped");
  }
}

/** Spawns the slot's worker, wires its events and sends it `start`. */
function attach(
  slot: Slot,
  options: WorkerPoolOptions,
  wiring: {
    readonly config: ProxyServerConfig;
    readonly routes: RouteTable | undefined;
    readonly route: (slot: Slot, worker: WorkerHandle) => (message: FromWorker) => void;
    readonly died: (slot: Slot, worker: WorkerHandle) => (error: string) => void;
  },
): void {
  const worker = (options.spawn ?? spawnProxyWorker)(slot.index);
  slot.worker = worker;
  const route = wiring.route(slot, worker);
  const died = wiring.died(slot, worker);
  worker.addEventListener("message", (event) => {
    if (!isFromWorker(event.data)) return;
    if (event.data.kind === "listening") slot.addresses = event.data.addresses;
    route(event.data);
  });
  worker.addEventListener("error", (event) => {
    // Unhandled, a worker's error would end the whole process.
    event.preventDefault();
    died(event.message);
  });
  worker.postMessage({ kind: "start", index: slot.index, config: wiring.config, debug: options.debug });
  if (wiring.routes !== undefined) worker.postMessage({ kind: "routes", table: wiring.routes });
}
