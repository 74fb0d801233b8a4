/**
 * The cluster half of `ouroboros dns`: on any cache change, folds the caches into a new answerer
 * swapped in whole (a query never sees half an update), then syncs the par opt-ins (`par/`).
 * - It runs on the shared control loop (`daemon/control_loop.ts`): until every cache has listed
 *   once, everything is forwarded ({@linkcode FORWARD_ALL}); bursts of changes fold into one
 *   rebuild; a failed par write is tried again after {@linkcode RETRY_MS} (a hold-off, not backoff).
 * - A problem is logged when it appears, and again only after it went away and came back.
 * - This server's own pods are never opted in, nor anything while its Service has no address.
 *
 * Effects: subscribes to stores, writes through the par managers, logs their outcomes.
 *
 * @module
 */

import { desiredHostnames, type DesiredSetOptions } from "../hostnames/desired_set.ts";
import { loggedValueFields, RejectionLog } from "../hostnames/rejection_log.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Service } from "../resources/service.ts";
import { ControlLoop } from "../daemon/control_loop.ts";
import type { LoopTrigger } from "../daemon/loop_step.ts";
import type { Clock } from "../util/clock.ts";
import type { Log } from "../util/logging.ts";
import { buildAnswerer } from "./answer/build_answerer.ts";
import type { DnsCaches } from "./dns_caches.ts";
import type { LocalAnswerer, LocalDecision } from "./local_answer.ts";
import type { ParOutcome } from "./par/par_outcome.ts";
import { ProxyConfigManager } from "./par/proxy_config_manager.ts";
import { WorkloadManager } from "./par/workload_manager.ts";

/** The answerer used before the caches are synced: every question goes upstream. */
export const FORWARD_ALL: LocalAnswerer = (): LocalDecision => ({ kind: "forward" });

/** How long after a failed par write it is tried again, when nothing else changed. */
export const RETRY_MS = 10_000;

/** What one rebuild produced, for metrics and tests. */
export interface AnswerSummary {
  readonly hairpinHosts: number;
  /** Empty: hairpinned names are forwarded for now. */
  readonly proxyAddresses: readonly string[];
  readonly clients: number;
  readonly records: number;
  /** Problems found in Records and Services, in words. */
  readonly problems: readonly string[];
}

/** Options for {@linkcode DnsRuntime}. */
export interface DnsRuntimeOptions {
  readonly caches: DnsCaches;
  readonly api: Pick<KubeClient, "mergePatch">;
  readonly hostnames: DesiredSetOptions;
  readonly clusterDomain: string;
  readonly parNamespace: string;
  readonly ttlSeconds: number;
  readonly setAnswerer: (answer: LocalAnswerer) => void;
  readonly clock: Clock;
  readonly log: Log;
}

/** Readiness of the caches. */
export type CachesReadiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

/** Why a rebuild runs: the loop's own reasons, or a cache change. */
interface DnsTrigger extends LoopTrigger {
  readonly changes: boolean;
}

const NOTHING: DnsTrigger = {
  changes: false,
  resync: false,
  retry: false,
  leadership: false,
  recheck: false,
};

/** The addresses of a Service for answers: its ClusterIPs, none for a headless one. */
function serviceAddresses(service: Service | undefined): { addresses: readonly string[]; problem?: string } {
  if (service === undefined) return { addresses: [] };
  const { clusterIP, clusterIPs } = service.spec;
  const addresses = clusterIPs.length > 0 ? clusterIPs : clusterIP === undefined ? [] : [clusterIP];
  if (addresses.includes("None")) {
    const where = `Service ${service.metadata.namespace}/${service.metadata.name}`;
    return {
      addresses: [],
      problem: `${where} is headless (clusterIP: None): it has no address to answer with`,
    };
  }
  return { addresses };
}

/** Keeps the answerer, and with the opt-ins the workloads, in step with the caches. */
export class DnsRuntime {
  readonly #options: DnsRuntimeOptions;
  readonly #workloads: WorkloadManager | undefined;
  readonly #proxyConfig: ProxyConfigManager | undefined;
  readonly #rejections = new RejectionLog();
  /** Per target, 409s in a row (the first is retried quietly). */
  readonly #conflicts = new Map<string, number>();
  #summary: AnswerSummary | undefined;
  #reported = new Set<string>();

  /** Nothing happens until {@linkcode run}. */
  constructor(options: DnsRuntimeOptions) {
    this.#options = options;
    const { caches, api } = options;
    this.#workloads = caches.deployments === undefined
      ? undefined
      : new WorkloadManager(api, { clusterDomain: options.clusterDomain });
    this.#proxyConfig = caches.parConfigMaps === undefined
      ? undefined
      : new ProxyConfigManager(api, { parNamespace: options.parNamespace });
  }

  /** The last rebuild's summary; `undefined` before the caches synced. */
  get summary(): AnswerSummary | undefined {
    return this.#summary;
  }

  /** Ready once every cache has listed once; the reason names the first that has not. */
  readiness(): CachesReadiness {
    const waiting = this.#options.caches.all.find((cache) => !cache.store.synced);
    if (waiting === undefined) return { ready: true };
    const status = waiting.status();
    const why = status.condition === "healthy" ? "listing" : `${status.condition}: ${status.lastError ?? ""}`;
    return { ready: false, reason: `waiting for the ${waiting.name} cache (${why.trim()})` };
  }

  /** Runs the caches and the rebuild loop until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const { caches, clock, log } = this.#options;
    const loop = new ControlLoop<DnsTrigger>({
      none: NOTHING,
      first: { changes: true },
      target: "dns answers",
      unsynced: () => caches.all.filter((cache) => !cache.store.synced).map((cache) => cache.name),
      subscribe: (add) => {
        const unsubscribes = caches.all.map((cache) => cache.store.subscribe(() => add({ changes: true })));
        return () => unsubscribes.forEach((unsubscribe) => unsubscribe());
      },
      pass: async (_trigger, passSignal) => {
        this.rebuild();
        const outcomes = await this.#syncPar(passSignal).catch((error: unknown) => {
          if (passSignal.aborted) return [];
          throw error;
        });
        const failed = outcomes.some((outcome) => outcome.kind === "failed");
        return failed ? { kind: "done", recheckAfterMs: RETRY_MS } : { kind: "done" };
      },
      log,
      clock,
      debounceMs: 0,
      resyncMs: 0,
    });
    const running = caches.run(signal);
    try {
      await loop.run(signal);
    } finally {
      await running;
    }
  }

  /** Folds the caches into a new answerer and installs it; returns what it built. */
  rebuild(): AnswerSummary {
    const { caches, hostnames } = this.#options;
    const desired = caches.ingresses === undefined ? undefined : desiredHostnames({
      ingresses: caches.ingresses.list(),
      gateways: caches.gateways?.list() ?? [],
      routes: caches.routes?.list() ?? [],
      grpcRoutes: caches.grpcRoutes?.list() ?? [],
      tlsRoutes: caches.tlsRoutes?.list() ?? [],
    }, hostnames);
    for (const entry of this.#rejections.observe(desired?.rejected ?? [])) {
      this.#options.log.warn("hostname refused; it is not answered here", {
        kind: entry.source,
        object: entry.key,
        ...loggedValueFields(entry.value),
        reason: entry.reason,
        detail: entry.text,
      });
    }
    const hosts = desired?.hosts ?? [];
    const problems: string[] = [];
    const proxy = serviceAddresses(caches.proxyService?.list()[0]);
    if (proxy.problem !== undefined) problems.push(proxy.problem);
    if (caches.proxyService !== undefined && caches.proxyService.size === 0 && hosts.length > 0) {
      problems.push(
        "the proxy Service does not exist: hairpinned hostnames are forwarded until it does " +
          "(check --proxy-service-name and --proxy-service-namespace)",
      );
    }
    const built = buildAnswerer({
      pods: caches.pods.list(),
      records: caches.records.list(),
      hairpinHosts: hosts,
      proxyAddresses: proxy.addresses,
      parProxyAddresses: caches.parProxyServices.list().flatMap((service) =>
        serviceAddresses(service).addresses
      ),
      parNamespace: this.#options.parNamespace,
      ttl: this.#options.ttlSeconds,
    });
    problems.push(...built.problems);
    this.#options.setAnswerer(built.answer);
    this.#report(problems);
    this.#summary = {
      hairpinHosts: hosts.length,
      proxyAddresses: proxy.addresses,
      clients: caches.pods.size,
      records: caches.records.size,
      problems,
    };
    return this.#summary;
  }

  #report(problems: readonly string[], notices: readonly string[] = []): void {
    const now = new Set([...problems, ...notices]);
    for (const problem of now) if (!this.#reported.has(problem)) this.#options.log.warn(problem);
    this.#reported = now;
  }

  async #syncPar(signal: AbortSignal): Promise<readonly ParOutcome[]> {
    const { caches, log } = this.#options;
    if (this.#workloads === undefined && this.#proxyConfig === undefined) return [];
    const own = caches.dnsService?.list()[0];
    const nameserver = own === undefined ? "" : serviceAddresses(own).addresses[0] ?? "";
    const outcomes: ParOutcome[] = [];
    if (this.#workloads !== undefined && caches.deployments !== undefined) {
      outcomes.push(
        ...await this.#workloads.sync({
          deployments: caches.deployments.list(),
          records: caches.records.list(),
          nameserver,
          ...(own === undefined || Object.keys(own.spec.selector).length === 0
            ? {}
            : { self: { namespace: own.metadata.namespace ?? "", labels: own.spec.selector } }),
        }, signal),
      );
    }
    if (this.#proxyConfig !== undefined && caches.parConfigMaps !== undefined) {
      outcomes.push(
        ...await this.#proxyConfig.sync({
          configMaps: caches.parConfigMaps.list(),
          deployments: caches.parDeployments?.list() ?? [],
          resolver: nameserver,
        }, signal),
      );
    }
    const notices: string[] = [];
    for (const outcome of outcomes) {
      if (outcome.kind !== "failed") this.#conflicts.delete(outcome.target);
      if (outcome.kind === "written") {
        log.info(`${outcome.target}: ${outcome.action}`, { detail: outcome.detail });
        if (outcome.notice !== undefined) notices.push(`${outcome.target}: ${outcome.notice}`);
      } else if (outcome.kind === "failed") {
        // A first 409 in a row is usually our own write not yet in the cache: retried quietly. A
        // second in a row, or any other failure, is an ERROR.
        const conflicts = outcome.conflict === true ? (this.#conflicts.get(outcome.target) ?? 0) + 1 : 0;
        this.#conflicts.set(outcome.target, conflicts);
        log[conflicts === 1 ? "debug" : "error"](
          `${outcome.target}: ${outcome.action} failed; tried again on the next change or in 10s`,
          { reason: outcome.reason },
        );
      } else if (outcome.kind === "skipped") {
        notices.push(`${outcome.target} is left alone: ${outcome.reason}`);
      } else if (outcome.notice !== undefined) {
        notices.push(`${outcome.target}: ${outcome.notice}`);
      }
    }
    this.#report(this.#summary?.problems ?? [], notices);
    return outcomes;
  }
}
