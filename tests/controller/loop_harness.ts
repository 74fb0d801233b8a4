/**
 * A reconcile loop wired to in-memory stores, a scriptable fake sink, a log recorder and a
 * fake clock, so loop tests state only what they change and what they expect.
 *
 * @module
 */

import type { KubeObject } from "../../lib/resources/kube_object.ts";
import { Store } from "../../lib/reflector/store.ts";
import type { Gateway } from "../../lib/resources/gateway.ts";
import type { HttpRoute } from "../../lib/resources/http_route.ts";
import type { Ingress } from "../../lib/resources/ingress.ts";
import type {
  Notice,
  ReconcileContext,
  RefusalScope,
  Sink,
  SinkOutcome,
} from "../../lib/controller/modes/sink.ts";
import type { LoopState } from "../../lib/daemon/loop_step.ts";
import type { Trigger } from "../../lib/controller/trigger.ts";
import type { ReconcileObserver, ReconcileResult } from "../../lib/controller/loop_status.ts";
import { ReconcileLoop } from "../../lib/controller/reconcile_loop.ts";
import { FakeClock, settle } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { unifiedDiff } from "../../lib/util/unified_diff.ts";

/** What the fake sink does on one call. */
export type SinkStep =
  /** Behave like a real sink: compare with what it holds, write if different. */
  | { readonly kind: "apply" }
  /** Reject, as a sink does only for a bug. */
  | { readonly kind: "fail"; readonly error: Error }
  /** Return a `failed` outcome (a transient failure, as sinks report them). */
  | { readonly kind: "failed"; readonly message: string; readonly notices?: readonly Notice[] }
  | {
    readonly kind: "refuse";
    readonly problem: string;
    readonly message: string;
    readonly scope?: RefusalScope;
    readonly recheckAfterMs?: number;
    readonly notices?: readonly Notice[];
  }
  /** Wait until the test calls `release()`, then apply (or until the call's signal aborts). */
  | { readonly kind: "block" };

/** One call the loop made. */
export interface SinkCall {
  readonly hosts: readonly string[];
  readonly signal: AbortSignal;
  readonly context: ReconcileContext | undefined;
}

/** A sink that holds a host list, with scripted failures and refusals. */
export class FakeSink implements Sink {
  readonly description = "fake kube-system/coredns[Corefile]";
  readonly calls: SinkCall[] = [];
  /** Behave like a sink built with `dryRun`: answer `previewed` and keep what it holds. */
  dryRun = false;
  /** Calls that changed what the sink holds. */
  writes = 0;
  held: readonly string[] = [];
  readonly #script: SinkStep[] = [];
  #gate: PromiseWithResolvers<void> | undefined;

  /** Queues steps for the next calls; once used up, calls `apply`. */
  script(...steps: SinkStep[]): void {
    this.#script.push(...steps);
  }

  /** Lets a blocked call go on. */
  release(): void {
    this.#gate?.resolve();
    this.#gate = undefined;
  }

  /** True while a call waits in a `block` step. */
  get blocked(): boolean {
    return this.#gate !== undefined;
  }

  async reconcile(
    hosts: readonly string[],
    signal: AbortSignal,
    context?: ReconcileContext,
  ): Promise<SinkOutcome> {
    this.calls.push({ hosts: [...hosts], signal, context });
    const step = this.#script.shift() ?? { kind: "apply" };
    switch (step.kind) {
      case "fail":
        throw step.error;
      case "failed": {
        const { kind: _, ...failure } = step;
        return { kind: "failed", ...failure };
      }
      case "refuse": {
        const { kind: _, ...refusal } = step;
        return { kind: "refused", scope: "nothing-written", ...refusal };
      }
      case "block": {
        const gate = Promise.withResolvers<void>();
        this.#gate = gate;
        const onAbort = () => gate.reject(signal.reason);
        signal.addEventListener("abort", onAbort, { once: true });
        try {
          await gate.promise;
        } finally {
          signal.removeEventListener("abort", onAbort);
          this.#gate = undefined;
        }
        return this.#apply(hosts);
      }
      case "apply":
        return this.#apply(hosts);
    }
  }

  #apply(hosts: readonly string[]): SinkOutcome {
    const before = new Set(this.held);
    const after = new Set(hosts);
    const added = hosts.filter((host) => !before.has(host)).length;
    const removed = this.held.filter((host) => !after.has(host)).length;
    if (added === 0 && removed === 0) return { kind: "unchanged", hosts: hosts.length };
    const lines = (list: readonly string[]) => list.map((host) => `${host}\n`).join("");
    const diff = unifiedDiff(lines(this.held), lines(hosts), { label: "fake" });
    if (this.dryRun) return { kind: "previewed", hosts: hosts.length, added, removed, diff };
    this.held = [...hosts];
    this.writes += 1;
    return { kind: "written", hosts: hosts.length, added, removed, diff };
  }
}

/** Counts what the loop reports to its observer. */
export class ObserverRecorder implements ReconcileObserver {
  readonly results: ReconcileResult[] = [];
  skips = 0;
  desired: { hosts: number; rejected: number } | undefined;
  desiredSet(hosts: number, rejected: number): void {
    this.desired = { hosts, rejected };
  }
  skipped(): void {
    this.skips += 1;
  }
  reconciled(result: ReconcileResult): void {
    this.results.push(result);
  }
}

/** Options for {@linkcode startLoop}. */
export interface HarnessOptions {
  readonly gatewayApi?: boolean;
  readonly withTarget?: boolean;
  /** Add a prerequisite store (kind `Service`), exposed as `prerequisite`. */
  readonly withPrerequisite?: boolean;
  readonly resyncMs?: number;
  readonly random?: () => number;
  readonly shutdownGraceMs?: number;
  /** Run the loop with `once` instead of `run`; its outcome is `Harness.outcome`. */
  readonly once?: boolean;
}

/** The debounce window the harness uses (the default). */
export const DEBOUNCE_MS = 100;

/** A running loop and everything around it. */
export interface Harness {
  readonly clock: FakeClock;
  readonly ingresses: Store<Ingress>;
  readonly gateways: Store<Gateway>;
  readonly routes: Store<HttpRoute>;
  readonly target: Store<KubeObject>;
  readonly prerequisite: Store<KubeObject>;
  readonly sink: FakeSink;
  readonly log: LogRecorder;
  readonly observer: ObserverRecorder;
  readonly loop: ReconcileLoop;
  /** Every state the loop entered, in order. */
  readonly states: LoopState<Trigger>[];
  /** The loop's current state kind. */
  state(): LoopState<Trigger>["kind"];
  /** Syncs every source store (empty unless given) and lets the first reconcile run. */
  syncAndSettle(ingresses?: readonly Ingress[]): Promise<void>;
  /** Lets the debounce window pass and the reconcile after it run. */
  flush(): Promise<void>;
  /** Aborts the loop and waits for `run` to return. */
  stop(): Promise<void>;
  /** The promise `run` (or `once`) returned. */
  readonly running: Promise<void>;
  /** What `once` returned (`undefined` for a loop started with `run`). */
  readonly outcome: Promise<SinkOutcome | undefined>;
  readonly controller: AbortController;
}

/** Starts a loop over fresh, unsynced stores. */
export function startLoop(options: HarnessOptions = {}): Harness {
  const clock = new FakeClock();
  const ingresses = new Store<Ingress>();
  const gateways = new Store<Gateway>();
  const routes = new Store<HttpRoute>();
  const target = new Store<KubeObject>();
  const prerequisite = new Store<KubeObject>();
  const sink = new FakeSink();
  const log = new LogRecorder();
  const observer = new ObserverRecorder();
  const states: LoopState<Trigger>[] = [];
  const gatewayApi = options.gatewayApi ?? false;
  const loop = new ReconcileLoop({
    sources: gatewayApi ? { ingresses, gateways, routes } : { ingresses },
    targets: options.withTarget ? [target] : [],
    prerequisites: options.withPrerequisite ? [{ kind: "Service", store: prerequisite }] : [],
    sink,
    desired: { clusterDomain: "cluster.local", proxyFqdn: "ouroboros-proxy.ouroboros.svc.cluster.local." },
    resyncMs: options.resyncMs ?? 0,
    debounceMs: DEBOUNCE_MS,
    clock,
    random: options.random ?? (() => 0.5),
    log,
    observer,
    observe: (state) => states.push(state),
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
  });
  const controller = new AbortController();
  const outcome = options.once
    ? loop.once(controller.signal)
    : loop.run(controller.signal).then(() => undefined);
  const running = outcome.then(() => {});
  const flush = async () => {
    await settle();
    await clock.advance(DEBOUNCE_MS);
  };
  return {
    clock,
    ingresses,
    gateways,
    routes,
    target,
    prerequisite,
    sink,
    log,
    observer,
    loop,
    states,
    state: () => loop.status().state.kind,
    async syncAndSettle(items = []) {
      ingresses.replace(items);
      if (gatewayApi) {
        gateways.replace([]);
        routes.replace([]);
      }
      await flush();
    },
    flush,
    async stop() {
      controller.abort();
      await running;
    },
    running,
    outcome,
    controller,
  };
}
