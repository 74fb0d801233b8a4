/**
 * `ouroboros dns`: serves DNS until SIGTERM, then fails `/readyz` and answers on for
 * `--drain-delay` while the pod leaves the endpoints. `--restore-workloads` is the uninstall
 * hook's one-shot that gives every patched Deployment its DNS settings back.
 *
 * Effects: the wiring (sockets, Kubernetes client, clock, environment).
 *
 * @module
 */

import { ConfigError } from "../cli/options.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import type { RevocableDescriptor } from "../daemon/revoke_permissions.ts";
import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { createDnsCaches } from "./dns_caches.ts";
import { createDnsMetrics } from "./dns_metrics.ts";
import { DnsRuntime, FORWARD_ALL } from "./dns_runtime.ts";
import { restoreAllWorkloads } from "./par/restore_all_workloads.ts";
import { DnsServer } from "./server/dns_server.ts";
import { runningNamespace } from "../kube/kube_access.ts";
import { connectToCluster } from "../election/cluster_connection.ts";
import { systemClock } from "../util/clock.ts";
import { toSeconds } from "../util/duration.ts";
import { logger } from "../util/logging.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { VERSION } from "../util/version.ts";
import { DNS_OPTIONS } from "./dns_options.ts";
import { type DnsSettings, dnsSettings } from "./dns_settings.ts";

/** How long a readiness probe's upstream check is trusted. */
const UPSTREAM_PROBE_TTL_MS = 5_000;
/** `--restore-workloads` gives up after this long. */
const RESTORE_DEADLINE_MS = 120_000;

/**
 * What the server gives up once connected. Reading stays (the token is re-read), and so does the
 * environment (the YAML parser reads LOG_TOKENS and LOG_STREAM).
 */
export const DNS_REVOKED_PERMISSIONS: readonly RevocableDescriptor[] = [
  { name: "write" },
  { name: "run" },
  { name: "ffi" },
  { name: "sys" },
];

/** The `dns` subcommand, for `main.ts`'s table. */
export const DNS = defineSubcommand({
  options: DNS_OPTIONS,
  usage: "answer DNS for chosen workloads: hairpinned hostnames and par Records, the rest forwarded",
  settings: ({ values }): DnsSettings | ConfigError =>
    dnsSettings({
      values,
      resolvConf: readTextOrUndefined(RESOLV_CONF),
      podNamespace: runningNamespace("", { env: (name) => Deno.env.get(name) }),
    }),
  start: (settings) => settings.values.restoreWorkloads ? startRestore(settings) : startServer(settings),
});

/** The uninstall hook: restores every patched Deployment, then exits (1 when any failed). */
async function startRestore(settings: DnsSettings): Promise<Service> {
  const log = logger("dns");
  const { access, client } = await connectToCluster({
    kubeconfig: settings.values.kubeconfig,
    env: (name) => Deno.env.get(name),
    fieldManager: "ouroboros-dns",
  });
  return {
    revoke: DNS_REVOKED_PERMISSIONS,
    async run({ signals }) {
      log.info("restoring the DNS settings of every Deployment this server patched", {
        apiServer: access.server,
      });
      const deadline = AbortSignal.any([signals.shutdown, AbortSignal.timeout(RESTORE_DEADLINE_MS)]);
      const outcomes = await restoreAllWorkloads(client, deadline);
      let failed = 0;
      for (const outcome of outcomes) {
        if (outcome.kind === "written") {
          log.info(`${outcome.target}: ${outcome.action}`, { detail: outcome.detail });
        } else if (outcome.kind === "failed") {
          failed++;
          log.error(`${outcome.target}: ${outcome.action} failed`, { reason: outcome.reason });
        } else if (outcome.kind === "skipped") log.warn(`${outcome.target} is left alone: ${outcome.reason}`);
      }
      log.info("restore finished", { deployments: outcomes.length, failed });
      return failed > 0 ? 1 : 0;
    },
    close: () => client.close(),
  };
}

async function startServer(settings: DnsSettings): Promise<Service> {
  const { values } = settings;
  const log = logger("dns");
  const cluster = await connectToCluster({
    kubeconfig: values.kubeconfig,
    env: (name) => Deno.env.get(name),
    fieldManager: "ouroboros-dns",
  });
  const { access, client } = cluster;
  const metrics = createDnsMetrics({ rss: () => Deno.memoryUsage().rss, version: VERSION });
  cluster.registerMetrics(metrics.registry);
  let server: DnsServer;
  try {
    server = await DnsServer.start({
      listen: values.listenDns ?? { host: undefined, port: 5353 },
      answer: FORWARD_ALL,
      upstreams: settings.upstreams,
      maxUdpPayload: values.maxUdpSize,
      upstreamTimeoutMs: values.upstreamTimeout,
      cacheSize: values.cacheSize,
      tcpIdleTimeoutMs: values.tcpIdleTimeout,
      clock: systemClock,
      log,
      metrics,
    });
  } catch (error) {
    client.close();
    throw error;
  }
  const caches = createDnsCaches(client, {
    clientSelector: values.clientSelector,
    hairpin: values.hairpin,
    gatewayApi: values.gatewayApi,
    routeKinds: values.gatewayRouteKinds,
    proxyService: settings.proxyService,
    parNamespace: settings.parNamespace,
    dnsService: settings.dnsService,
    manageWorkloads: values.manageWorkloads,
    manageProxyConfig: values.manageProxyConfig,
  });
  const runtime = new DnsRuntime({
    caches,
    api: client,
    hostnames: {
      clusterDomain: settings.clusterDomain,
      ingressHosts: values.ingressHosts,
      ingressClass: values.ingressClass,
      gatewayClass: values.gatewayClass,
      ...(values.wildcards === "rewrite" ? { wildcards: "include" } : {}),
    },
    clusterDomain: settings.clusterDomain,
    parNamespace: settings.parNamespace,
    ttlSeconds: settings.ttlSeconds,
    setAnswerer: (answer) => server.setAnswerer(answer),
    clock: systemClock,
    log,
  });
  const state = registerStateMetrics(metrics.registry, runtime, caches.all);
  let stopping = false;
  let probe: { at: number; answer: Promise<{ ok: true } | { ok: false; reason: string }> } | undefined;
  const upstreamAnswers = () => {
    const now = systemClock.now();
    if (probe === undefined || now - probe.at > UPSTREAM_PROBE_TTL_MS) {
      probe = { at: now, answer: server.probeUpstream(AbortSignal.timeout(values.upstreamTimeout * 2)) };
    }
    return probe.answer;
  };
  return {
    health: {
      address: values.listenHealth,
      routes: {
        async readiness() {
          if (stopping) return { ready: false, text: "shutting down" };
          const caches = runtime.readiness();
          if (!caches.ready) return { ready: false, text: caches.reason };
          const upstream = await upstreamAnswers();
          return upstream.ok
            ? { ready: true }
            : { ready: false, text: `no upstream answers: ${upstream.reason}` };
        },
        metrics: () => {
          state.refresh();
          return metrics.registry.render();
        },
      },
    },
    revoke: DNS_REVOKED_PERMISSIONS,
    async run({ signals, healthAddress }) {
      log.info("dns starting", {
        dns: server.addresses.udp,
        health: healthAddress ?? "off",
        upstreams: settings.upstreams.map((upstream) => `${upstream.host}:${upstream.port}`).join(","),
        upstreamSource: settings.upstreamSource,
        clientSelector: values.clientSelector,
        hairpin: values.hairpin
          ? `Service ${settings.proxyService.namespace}/${settings.proxyService.name}`
          : "off",
        gatewayApi: values.gatewayApi,
        ...(values.gatewayApi ? { gatewayRouteKinds: values.gatewayRouteKinds.join(",") } : {}),
        parNamespace: settings.parNamespace,
        dnsService: settings.dnsService === undefined
          ? undefined
          : `${settings.dnsService.namespace}/${settings.dnsService.name}`,
        manageWorkloads: values.manageWorkloads,
        manageProxyConfig: values.manageProxyConfig,
        ttlSeconds: settings.ttlSeconds,
        maxUdpSize: values.maxUdpSize,
        clusterDomain: settings.clusterDomain,
        drainDelaySeconds: toSeconds(values.drainDelay),
        apiServer: access.server,
        version: VERSION,
      });
      const stopCaches = new AbortController();
      const stopServer = new AbortController();
      const serving = server.run(stopServer.signal);
      const watching = runtime.run(stopCaches.signal);
      await new Promise<void>((resolve) => {
        if (signals.shutdown.aborted) resolve();
        signals.shutdown.addEventListener("abort", () => resolve(), { once: true });
      });
      stopping = true;
      // The writers stop first, so nothing is patched while the uninstall hook restores.
      stopCaches.abort();
      log.info("shutting down: answering on while the pod leaves the Service's endpoints", {
        signal: signals.received(),
        drainDelaySeconds: toSeconds(values.drainDelay),
      });
      await systemClock.sleep(values.drainDelay, signals.force);
      stopServer.abort();
      await Promise.all([serving, watching]);
      log.info("dns stopped");
      return 0;
    },
    close: () => {
      server.close();
      client.close();
    },
  };
}

/** Gauges of the cluster side, read at scrape time. */
function registerStateMetrics(
  registry: ReturnType<typeof createDnsMetrics>["registry"],
  runtime: DnsRuntime,
  caches: ReturnType<typeof createDnsCaches>["all"],
): { refresh(): void } {
  const hosts = registry.gauge(
    "ouroboros_dns_hairpin_hostnames",
    "Hostnames answered with the proxy's addresses.",
  );
  const clients = registry.gauge(
    "ouroboros_dns_clients",
    "Pods in scope (--client-selector) known by address.",
  );
  const records = registry.gauge("ouroboros_dns_records", "par Records objects seen.");
  const problems = registry.gauge(
    "ouroboros_dns_problems",
    "Problems found in Records and Services (each is logged as a WARN when it appears).",
  );
  const synced = registry.gauge(
    "ouroboros_dns_cache_synced",
    "1 once a cache has listed once; the server answers from cluster state only when all have.",
    ["cache"],
  );
  return {
    refresh() {
      const summary = runtime.summary;
      hosts.labels({}).value = summary?.hairpinHosts ?? 0;
      clients.labels({}).value = summary?.clients ?? 0;
      records.labels({}).value = summary?.records ?? 0;
      problems.labels({}).value = summary?.problems.length ?? 0;
      for (const cache of caches) synced.labels({ cache: cache.name }).value = cache.store.synced ? 1 : 0;
    },
  };
}
