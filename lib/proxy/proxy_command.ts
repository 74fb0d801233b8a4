/**
 * `ouroboros proxy`: bind the traffic listeners, give up everything but the network, and relay
 * until a signal ends it (the shutdown sequence is `server.ts`'s).
 *
 * Effects: the wiring; the pure part is `proxy_settings.ts`.
 *
 * @module
 */

import { backendReadiness } from "./backend_readiness.ts";
import { systemDialer, systemTrafficDialer } from "./dialer.ts";
import { RouteFile } from "./routing/route_file.ts";
import type { RouteTable } from "../routes/route_table.ts";
import { createProxyMetrics } from "./proxy_metrics.ts";
import { ProxyServer } from "./server.ts";
import { WorkerPool } from "./workers/worker_pool.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import type { RevocableDescriptor } from "../daemon/revoke_permissions.ts";
import type { ShutdownSignals } from "../daemon/shutdown_signals.ts";
import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { systemClock } from "../util/clock.ts";
import { toSeconds } from "../util/duration.ts";
import { logger } from "../util/logging.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { VERSION } from "../util/version.ts";
import { PROXY_OPTIONS } from "./proxy_options.ts";
import { type ProxySettings, proxySettings } from "./proxy_settings.ts";
import { registerProcessMetrics, systemProcessSources } from "../util/process_metrics.ts";

/** What the proxy gives up once started: everything but the network (all was read at start-up). */
export const PROXY_REVOKED_PERMISSIONS: readonly RevocableDescriptor[] = [
  { name: "read" },
  { name: "write" },
  { name: "env" },
  { name: "run" },
  { name: "ffi" },
  { name: "sys" },
];

/**
 * The same with workers, except read access (the `proxy` set grants only `lib/`): a worker
 * restarted after a crash loads its module graph. Files read at start-up are given up one by one.
 */
export const PROXY_WORKERS_REVOKED_PERMISSIONS: readonly RevocableDescriptor[] = [
  { name: "read", path: RESOLV_CONF },
  ...PROXY_REVOKED_PERMISSIONS.filter((descriptor) => descriptor.name !== "read"),
];

/** The runtime's CPU count (affinity and cgroup quota applied), for the `--workers` default. */
function readCpus(): number {
  return navigator.hardwareConcurrency;
}

/** The `proxy` subcommand, for `main.ts`'s table. */
export const PROXY = defineSubcommand({
  options: PROXY_OPTIONS,
  usage: "run the TCP relay that adds PROXY-protocol headers (v1 or v2)",
  settings: ({ values, sources }) =>
    proxySettings({
      values,
      clusterDomainSource: sources.clusterDomain,
      readResolvConf: () => readTextOrUndefined(RESOLV_CONF),
      readCpus,
    }),
  start: startProxy,
});

/**
 * Binds the traffic listeners. `--workers=1` serves on the main thread, not in one worker: all
 * reads stay revoked, and scrapes and log lines need no message round trip.
 */
async function startProxy(settings: ProxySettings): Promise<Service> {
  const { values, server: config } = settings;
  const log = logger("proxy");
  const routing = values.routesFile !== "";
  const metrics = createProxyMetrics({ rss: () => Deno.memoryUsage().rss, version: VERSION, routing });
  registerProcessMetrics(metrics.registry, systemProcessSources());
  const debugLogging = values.logLevel === "debug";
  let serving: {
    readonly addresses: Readonly<Record<string, string>>;
    readonly draining: () => boolean;
    readonly notAccepting?: () => string | undefined;
    readonly metrics: () => string | Promise<string>;
    readonly revoke: readonly RevocableDescriptor[];
    readonly run: (signals: ShutdownSignals) => Promise<void>;
    readonly close: () => void;
    readonly setRoutes: (table: RouteTable) => void;
  };
  // Read before binding, so the first connections are already routed.
  const routeFile = routing
    ? RouteFile.load(values.routesFile, { clock: systemClock, log, metrics })
    : undefined;
  const initialRoutes = routeFile?.table;
  if (settings.workers <= 1) {
    const server = ProxyServer.start(config, {
      dial: systemTrafficDialer(systemClock),
      clock: systemClock,
      log,
      metrics,
      debugLogging,
    });
    if (initialRoutes !== undefined) server.setRoutes(initialRoutes);
    serving = {
      addresses: server.addresses,
      draining: () => server.phase.kind !== "serving",
      metrics: () => metrics.registry.render(),
      revoke: PROXY_REVOKED_PERMISSIONS,
      run: (signals) => server.run(signals),
      close: () => server.close(),
      setRoutes: (table) => server.setRoutes(table),
    };
  } else {
    const pool = await WorkerPool.start(config, {
      count: settings.workers,
      debug: debugLogging,
      log,
      clock: systemClock,
      routes: initialRoutes,
    });
    let draining = false;
    serving = {
      addresses: pool.addresses,
      draining: () => draining,
      notAccepting: () => pool.notReady(),
      metrics: () => pool.exposition(metrics.registry.render()),
      revoke: PROXY_WORKERS_REVOKED_PERMISSIONS,
      run: (signals) => {
        signals.shutdown.addEventListener("abort", () => draining = true, { once: true });
        draining = signals.shutdown.aborted;
        return pool.run(signals);
      },
      close: () => pool.close(),
      setRoutes: (table) => pool.setRoutes(table),
    };
  }
  const readiness = backendReadiness({
    backendHost: config.backendHost,
    backendPort: config.readinessPort,
    readyTimeoutMs: config.readyTimeoutMs,
    dial: systemDialer,
    metrics,
    log,
    draining: serving.draining,
    ...(serving.notAccepting === undefined ? {} : { notAccepting: serving.notAccepting }),
  });
  return {
    health: { address: values.listenHealth, routes: { readiness, metrics: serving.metrics } },
    // The route file is read for as long as the proxy runs: Deno cannot give up the rest of a
    // granted folder and keep one path, so with --routes-file no read permission is given up.
    revoke: routing ? serving.revoke.filter((descriptor) => descriptor.name !== "read") : serving.revoke,
    async run({ signals, healthAddress }) {
      log.info("proxy starting", {
        ...serving.addresses,
        ...(healthAddress === undefined ? {} : { health: healthAddress }),
        backend: config.backendHost,
        httpPort: values.targetHttpPort,
        httpsPort: values.targetHttpsPort,
        clusterDomain: settings.clusterDomain,
        clusterDomainSource: settings.clusterDomainSource,
        proxyProtocol: config.proxyProtocol,
        dialTimeoutSeconds: toSeconds(config.dialTimeoutMs),
        readyTimeoutSeconds: toSeconds(config.readyTimeoutMs),
        shutdownGraceSeconds: toSeconds(config.shutdownGraceMs),
        drainDelaySeconds: toSeconds(config.drainDelayMs),
        idleTimeoutSeconds: toSeconds(config.idleTimeoutMs),
        ...(routing
          ? { routesFile: values.routesFile, routeReadTimeoutSeconds: toSeconds(values.routeReadTimeout) }
          : {}),
        workers: settings.workers,
        workersSource: settings.workersSource,
        cpus: settings.cpus,
        version: VERSION,
      });
      const watchStop = new AbortController();
      const watching = routeFile?.run(watchStop.signal, serving.setRoutes);
      try {
        await serving.run(signals);
      } finally {
        watchStop.abort();
        await watching;
      }
      return 0;
    },
    close: serving.close,
  };
}
