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
 * import { boundConfig } from "./bound_config.ts";
 * import type { ProxyServerConfig } from "../server.ts";
 *
 * declare const config: ProxyServerConfig; // --listen-http=:0
 * boundConfig(config, { http: "[::]:41234" }).listeners[0]?.address; // { host: "::", port: 41234 }
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
