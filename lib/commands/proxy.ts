/**
 * `ouroboros proxy`: read the configuration, bind the traffic listeners, give up everything but
 * the network, and relay until a signal ends it (the drain and shutdown sequence is
 * `proxy/server.ts`'s). The steps around it are the shared skeleton's (`daemon/subcommand.ts`).
 *
 * Effects: this is the wiring; the pure part is `proxy_settings.ts`.
 *
 * @module
 */

import { backendReadiness } from "../proxy/backend_readiness.ts";
import { systemDialer, systemTrafficDialer } from "../proxy/dialer.ts";
import { createProxyMetrics } from "../proxy/proxy_metrics.ts";
import { ProxyServer } from "../proxy/server.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import type { RevocableDescriptor } from "../daemon/revoke_permissions.ts";
import { defineSubcommand, type Service } from "../daemon/subcommand.ts";
import { systemClock } from "../util/clock.ts";
import { formatDuration } from "../util/duration.ts";
import { logger } from "../util/logging.ts";
import { RESOLV_CONF } from "../util/resolv_conf.ts";
import { VERSION } from "../util/version.ts";
import { PROXY_OPTIONS } from "./proxy_options.ts";
import { type ProxySettings, proxySettings } from "./proxy_settings.ts";

/**
 * What the proxy gives up once started: everything but the network (every file and variable it
 * reads was read at start-up). Exported so the permission test revokes exactly this list.
 */
export const PROXY_REVOKED_PERMISSIONS: readonly RevocableDescriptor[] = [
  { name: "read" },
  { name: "write" },
  { name: "env" },
  { name: "run" },
  { name: "ffi" },
  { name: "sys" },
];

/** The `proxy` subcommand, for `main.ts`'s table. */
export const PROXY = defineSubcommand({
  options: PROXY_OPTIONS,
  usage: "run the TCP relay that adds PROXY-protocol headers (v1 or v2)",
  settings: ({ values, sources }) =>
    proxySettings({
      values,
      clusterDomainSource: sources.clusterDomain,
      readResolvConf: () => readTextOrUndefined(RESOLV_CONF),
    }),
  start: startProxy,
});

/** Binds the traffic listeners; the service serves `/readyz` from the backend's reachability. */
function startProxy(settings: ProxySettings): Service {
  const { values, server: config } = settings;
  const log = logger("proxy");
  const metrics = createProxyMetrics({ rss: () => Deno.memoryUsage().rss, version: VERSION });
  const server = ProxyServer.start(config, {
    dial: systemTrafficDialer(systemClock),
    clock: systemClock,
    log,
    metrics,
    debugLogging: values.logLevel === "debug",
  });
  const readiness = backendReadiness({
    backendHost: config.backendHost,
    backendPort: config.readinessPort,
    readyTimeoutMs: config.readyTimeoutMs,
    dial: systemDialer,
    metrics,
    log,
    draining: () => server.phase.kind !== "serving",
  });
  return {
    health: { address: values.listenHealth, routes: { readiness, metrics: () => metrics.registry.render() } },
    revoke: PROXY_REVOKED_PERMISSIONS,
    async run({ signals, healthAddress }) {
      log.info("proxy starting", {
        ...server.addresses,
        ...(healthAddress === undefined ? {} : { health: healthAddress }),
        backend: config.backendHost,
        httpPort: values.targetHttpPort,
        httpsPort: values.targetHttpsPort,
        clusterDomain: settings.clusterDomain,
        clusterDomainSource: settings.clusterDomainSource,
        proxyProtocol: config.proxyProtocol,
        dialTimeout: formatDuration(config.dialTimeoutMs),
        readyTimeout: formatDuration(config.readyTimeoutMs),
        shutdownGrace: formatDuration(config.shutdownGraceMs),
        drainDelay: formatDuration(config.drainDelayMs),
        idleTimeout: config.idleTimeoutMs === 0 ? "off" : formatDuration(config.idleTimeoutMs),
        version: VERSION,
      });
      await server.run(signals);
      return 0;
    },
    close: () => server.close(),
  };
}
