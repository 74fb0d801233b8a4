/**
 * Turns parsed proxy options into validated server settings: the backend host, the listeners
 * and every cross-field problem at once.
 *
 * Pure: the resolv.conf text is read through the function passed in, and only when needed.
 *
 * @module
 */

import { ConfigError, type OptionValues, type ValueSource } from "../cli/options.ts";
import { resolveBackendHost } from "./backend.ts";
import type { ProxyServerConfig, TrafficListenerConfig } from "./server.ts";
import { availableCpus } from "../util/available_cpus.ts";
import { detectClusterDomain } from "../util/resolv_conf.ts";
import type { PROXY_OPTIONS } from "./proxy_options.ts";

/** The proxy's parsed option values. */
export type ProxyValues = OptionValues<typeof PROXY_OPTIONS.options>;

/** The validated configuration plus what was derived from it, for the start-up line. */
export interface ProxySettings {
  readonly values: ProxyValues;
  readonly clusterDomain: string;
  readonly clusterDomainSource: "flag" | "env" | "detected";
  readonly server: ProxyServerConfig;
  /** Worker threads to run: `--workers`, or the CPUs available when it is 0. */
  readonly workers: number;
  readonly workersSource: "flag" | "detected";
}

/** Inputs of {@linkcode proxySettings}. */
export interface ProxySettingsInput {
  readonly values: ProxyValues;
  /** Where `--cluster-domain` came from. */
  readonly clusterDomainSource: ValueSource;
  /** The text of /etc/resolv.conf, read only when the cluster domain is not given. */
  readonly readResolvConf: () => string | undefined;
  /** The runtime's CPU count (cgroup quota applied), read only when `--workers` is 0. */
  readonly readCpus?: () => number;
}

/**
 * Turns parsed values into server settings, collecting every cross-field problem.
 *
 * @example
 * ```ts
 * import { parseOptions } from "../cli/options.ts";
 * import { PROXY_OPTIONS } from "./proxy_options.ts";
 * import { proxySettings } from "./proxy_settings.ts";
 *
 * const parsed = parseOptions(PROXY_OPTIONS, { argv: ["--target-host=10.0.0.7"], getEnv: () => undefined });
 * if (parsed.kind === "ok") {
 *   const settings = proxySettings({
 *     values: parsed.values,
 *     clusterDomainSource: parsed.sources.clusterDomain,
 *     readResolvConf: () => "search ouroboros.svc.cozy.local svc.cozy.local cozy.local\n",
 *   });
 *   // settings.server.backendHost === "10.0.0.7", settings.clusterDomain === "cozy.local"
 * }
 * ```
 */
export function proxySettings(input: ProxySettingsInput): ProxySettings | ConfigError {
  const { values } = input;
  const problems: string[] = [];
  const detected = values.clusterDomain === "";
  const clusterDomain = detected ? detectClusterDomain(input.readResolvConf()) : values.clusterDomain;
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
    clusterDomainSource: detected ? "detected" : input.clusterDomainSource === "env" ? "env" : "flag",
    workers: values.workers === 0 ? availableCpus(input.readCpus?.() ?? 1) : values.workers,
    workersSource: values.workers === 0 ? "detected" : "flag",
    server: {
      listeners,
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
