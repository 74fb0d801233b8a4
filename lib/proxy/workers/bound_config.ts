/**
 * The configuration the second and later proxy workers start with: every listener on the exact
 * address the first worker bound (a port 0 in the flags has become a real port by then), so all
 * of them join one `reusePort` group.
 *
 * Pure.
 *
 * @module
 */

import { parseListenAddress } from "../../util/listen_address.ts";
import type { ProxyServerConfig } from "../server.ts";

/**
 * The config with each listener bound to `addresses[name]` (as `host:port`); a listener without
 * a usable address keeps its own.
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
