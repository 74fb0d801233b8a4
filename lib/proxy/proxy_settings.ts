/**
 * Turns parsed proxy options into validated server settings, reporting every problem at once.
 *
 * Pure: resolv.conf and the CPU count are read through the functions passed in, only when needed.
 *
 * @module
 */

import { ConfigError, type OptionValues, type ValueSource } from "../cli/options.ts";
import { resolveBackendHost } from "./backend.ts";
import type { ProxyServerConfig, TrafficListenerConfig } from "./server.ts";
import { availableCpus, defaultWorkers } from "../util/available_cpus.ts";
import { detectClusterDomain } from "../util/resolv_conf.ts";
import type { PROXY_OPTIONS } from "./proxy_options.ts";

/** The most bytes a routed connection reads ahead: one full TLS record, or a generous request head. */
export const ROUTE_READ_MAX_BYTES = 16 * 1024;

/** The proxy's parsed option values. */
export type ProxyValues = OptionValues<typeof PROXY_OPTIONS.options>;

/** The validated configuration plus what was derived from it, for the start-up line. */
export interface ProxySettings {
  readonly values: ProxyValues;
  readonly clusterDomain: string;
  readonly clusterDomainSource: "flag" | "env" | "detected";
  readonly server: ProxyServerConfig;
  /** Worker threads to run: `--workers`, or {@linkcode defaultWorkers} of `cpus` when it is 0. */
  readonly workers: number;
  /** The CPUs available (affinity and cgroup quota applied). */
  readonly cpus: number;
  readonly workersSource: "flag" | "detected";
}

/** Inputs of {@linkcode proxySettings}. */
export interface ProxySettingsInput {
  readonly values: ProxyValues;
  /** Where `--cluster-domain` came from. */
  readonly clusterDomainSource: ValueSource;
  readonly readResolvConf: () => string | undefined;
  /** The runtime's CPU count (cgroup quota applied). */
  readonly readCpus?: () => number;
}

/** Turns parsed values into server settings, or a {@linkcode ConfigError} listing every problem. */
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
  const cpus = availableCpus(input.readCpus?.() ?? 1);
  return {
    values,
    clusterDomain,
    clusterDomainSource: detected ? "detected" : input.clusterDomainSource === "env" ? "env" : "flag",
    workers: values.workers === 0 ? defaultWorkers(cpus) : values.workers,
    cpus,
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
      ...(values.routesFile === ""
        ? {}
        : { routing: { readTimeoutMs: values.routeReadTimeout, maxBytes: ROUTE_READ_MAX_BYTES } }),
    },
  };
}
