/**
 * Which changes of a reloaded config the running process cannot apply: the listeners are bound
 * and the EndpointSlice watch is opened once, at start. kuberture logs these as "requires
 * restart" (its newest versions exit on a source change so the pod restarts); we name them in the
 * hot-reload outcome and let the caller decide.
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
 *
 * @example
 * ```ts
 * import type { KubertureConfig } from "./kuberture_config.ts";
 * import { restartNeededKeys } from "./restart_needed_keys.ts";
 *
 * declare const running: KubertureConfig;
 * restartNeededKeys(running, { ...running, metricsBindAddress: ":9090" }); // ["metricsBindAddress"]
 * ```
 */
export function restartNeededKeys(old: KubertureConfig, next: KubertureConfig): RestartNeededKey[] {
  return RESTART_NEEDED_KEYS.filter((key) => READ[key](old) !== READ[key](next));
}
