/**
 * The config of the second and later proxy workers: the exact addresses the first one bound (a
 * port 0 has become real), so all join one `reusePort` group.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { parseListenAddress } from "../../util/listen_address.ts";
import type { ProxyServerConfig } from "../server.ts";

/**
 * Binds each listener to `addresses[name]` (`host:port`); one without a usable one keeps its own.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { boundConfig } from "./bound_config.ts";
 * import type { ProxyServerConfig } from "../server.ts";
 *
 * const config: ProxyServerConfig = {
 *   listeners: [{ name: "http", address: { host: undefined, port: 0 }, backendPort: 80 }], // --listen-http=:0
 *   backendHost: "ingress.nginx.svc.cluster.local",
 *   readinessPort: 80,
 *   proxyProtocol: "v1",
 *   dialTimeoutMs: 5_000,
 *   readyTimeoutMs: 2_000,
 *   shutdownGraceMs: 10_000,
 *   drainDelayMs: 0,
 *   idleTimeoutMs: 0,
 * };
 * const bound = boundConfig(config, { http: "[::]:41234" });
 * assert.deepEqual(bound.listeners[0]?.address, { host: "::", port: 41234 });
 * ```
 */
export function boundConfig(
  config: ProxyServerConfig,
  addresses: Readonly<Record<string, string>>,
): ProxyServerConfig {
  const listeners = config.listeners.map((listener) => {
    const parsed = parseListenAddress(addresses[listener.name] ?? "");
    return typeof parsed === "string" || parsed === null ? listener : { ...listener, address: parsed };
  });
  return { ...config, listeners };
}
