/**
 * The config keys a hot reload cannot apply (the listeners and the EndpointSlice watch are set
 * up once, at start). The reload outcome names them; the caller decides.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { KubertureConfig } from "./kuberture_config.ts";

/** The keys whose change needs a restart, in the order {@linkcode restartNeededKeys} reports them. */
export const RESTART_NEEDED_KEYS = [
  "source.namespace",
  "source.serviceName",
  "metricsBindAddress",
  "healthProbeBindAddress",
] as const;

/** A key of {@linkcode RESTART_NEEDED_KEYS}. */
export type RestartNeededKey = (typeof RESTART_NEEDED_KEYS)[number];

const READ: Readonly<Record<RestartNeededKey, (config: KubertureConfig) => string>> = {
  "source.namespace": (config) => config.source.namespace,
  "source.serviceName": (config) => config.source.serviceName,
  metricsBindAddress: (config) => config.metricsBindAddress,
  healthProbeBindAddress: (config) => config.healthProbeBindAddress,
};

/**
 * The keys that differ between the running config and the reloaded one and take effect only
 * after a restart; empty when everything changed can be applied live.
 */
export function restartNeededKeys(old: KubertureConfig, next: KubertureConfig): RestartNeededKey[] {
  return RESTART_NEEDED_KEYS.filter((key) => READ[key](old) !== READ[key](next));
}
