/**
 * `ouroboros proxy`: parse and validate the configuration, give up unneeded permissions, start
 * the listeners, and serve until a signal ends it.
 *
 * @module
 */

import { renderHelp } from "../cli/help.ts";
import { ConfigError, type OptionValues, parseOptions } from "../cli/options.ts";
import { resolveBackendHost } from "../proxy/backend.ts";
import { createProxyMetrics } from "../proxy/proxy_metrics.ts";
import { ProxyServer, type ProxyServerConfig, type TrafficListenerConfig } from "../proxy/server.ts";
import { systemDialer } from "../proxy/dialer.ts";
import { systemClock } from "../util/clock.ts";
import { formatDuration } from "../util/duration.ts";
import { configureLogging, logger } from "../util/logging.ts";
import { detectClusterDomain, RESOLV_CONF } from "../util/resolv_conf.ts";
import { VERSION } from "../util/version.ts";
import { declaredEnv } from "../daemon/declared_env.ts";
import { readTextOrUndefined } from "../daemon/read_text_or_undefined.ts";
import { type RevocablePermission, revokePermissions } from "../daemon/revoke_permissions.ts";
import { installShutdownSignals } from "../daemon/shutdown_signals.ts";
import { printStdout } from "../util/stdio.ts";
import { PROXY_OPTIONS } from "./proxy_options.ts";

/**
 * What the proxy gives up once its configuration is read: everything but the network. Exported
 * so the permission test revokes exactly this list.
 */
export const PROXY_REVOKED_PERMISSIONS: readonly RevocablePermission[] = [
  "read",
  "write",
  "env",
  "run",
  "ffi",
  "sys",
];

type ProxyValues = OptionValues<typeof PROXY_OPTIONS.options>;

/** The validated configuration plus what was derived from it, for the start-up log. */
export interface ProxySettings {
  readonly values: ProxyValues;
  readonly clusterDomain: string;
  readonly clusterDomainSource: "flag" | "env" | "detected";
  readonly server: ProxyServerConfig;
}

/**
 * Turns parsed values into server settings, collecting every cross-field problem. `resolvConf`
 * is the text of /etc/resolv.conf (read only when the cluster domain is not given).
 */
export function proxySettings(
  values: ProxyValues,
  clusterDomainSource: "flag" | "env" | "default",
  readResolvConf: () => string | undefined,
): ProxySettings | ConfigError {
  const problems: string[] = [];
  const detected = values.clusterDomain === "";
  const clusterDomain = detected ? detectClusterDomain(readResolvConf()) : values.clusterDomain;
  const backend = resolveBackendHost({ ...values, clusterDomain });
  if ("problem" in backend) problems.push(backend.problem);

  const listeners: TrafficListenerConfig[] = [];
  if (values.listenHttp !== null) {
    listeners.push({ name: "http", address: values.listenHttp, backendPort: values.targetHttpPort });
  }
  if (values.listenHttps !== null) {
    listeners.push({ name: "https", address: values.listenHttps, backendPort: values.targetHttpsPort });
  }
  if (listeners.length === 0) {
    problems.push("no listener: --listen-http and --listen-https are both empty; set at least one");
  }
  if (problems.length > 0 || "problem" in backend) return new ConfigError("proxy", problems);
  return {
    values,
    clusterDomain,
    clusterDomainSource: detected ? "detected" : clusterDomainSource === "env" ? "env" : "flag",
    server: {
      listeners,
      health: values.listenHealth,
      backendHost: backend.host,
      readinessPort: values.targetHttpPort,
      proxyProtocol: values.proxyProtocol,
      dialTimeoutMs: values.dialTimeout,
      readyTimeoutMs: values.readyTimeout,
      shutdownGraceMs: values.shutdownGrace,
      drainDelayMs: values.drainDelay,
      idleTimeoutMs: values.idleTimeout,
    },
  };
}

/**
 * Runs the proxy subcommand. Returns the exit status; throws {@linkcode ConfigError} for bad
 * configuration and any other error for a failure to start.
 */
export async function runProxy(argv: readonly string[]): Promise<number> {
  const outcome = parseOptions(PROXY_OPTIONS, argv, declaredEnv(PROXY_OPTIONS));
  if (outcome.kind === "help") {
    printStdout(renderHelp(PROXY_OPTIONS));
    return 0;
  }
  if (outcome.kind === "invalid") throw new ConfigError("proxy", outcome.problems);
  const settings = proxySettings(
    outcome.values,
    outcome.sources.clusterDomain,
    () => readTextOrUndefined(RESOLV_CONF),
  );
  if (settings instanceof ConfigError) throw settings;

  // Everything the proxy reads from files and the environment has been read: keep only the
  // network from here on.
  revokePermissions(PROXY_REVOKED_PERMISSIONS);
  configureLogging({ level: settings.values.logLevel, format: settings.values.logFormat });
  const log = logger("proxy");

  const metrics = createProxyMetrics({ rss: () => Deno.memoryUsage().rss, version: VERSION });
  const server = ProxyServer.start(settings.server, {
    dial: systemDialer,
    clock: systemClock,
    log,
    metrics,
    debugLogging: settings.values.logLevel === "debug",
  });
  const signals = installShutdownSignals();
  const { values, server: config } = settings;
  log.info("proxy starting", {
    ...server.addresses,
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
  try {
    await server.run(signals);
  } finally {
    signals.dispose();
  }
  return 0;
}
