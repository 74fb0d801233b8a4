/**
 * Listen addresses in Go's `host:port` form (`:8080`, `0.0.0.0:8080`, `[::]:8080`,
 * `localhost:8080`), the syntax the original's `--listen-*` flags take.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { parseIp } from "./ip.ts";

/** A parsed listen address. `host` is `undefined` for "every interface" (`:8080`). */
export interface ListenAddress {
  readonly host: string | undefined;
  readonly port: number;
}

const HOSTNAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** Parses `host:port` (port 0 lets the kernel pick; IPv6 hosts bracketed), or returns why not. */
export function parseListenAddress(text: string): ListenAddress | string {
  if (text.startsWith("[")) {
    const close = text.indexOf("]");
    if (close < 0) return "unbalanced '[' in the host";
    // `[::1]` alone: the last ':' is inside the brackets, so say what is really missing.
    if (text[close + 1] !== ":") return "missing ':' before the port";
  }
  const colon = text.lastIndexOf(":");
  if (colon < 0) return "missing ':' before the port";
  const hostPart = text.slice(0, colon);
  const portPart = text.slice(colon + 1);
  if (!/^\d{1,5}$/.test(portPart) || Number(portPart) > 65535) {
    return `port "${portPart}" is not a number from 0 to 65535`;
  }
  const port = Number(portPart);
  if (hostPart === "") return { host: undefined, port };
  if (hostPart.startsWith("[")) {
    if (!hostPart.endsWith("]")) return "unbalanced '[' in the host";
    const inner = hostPart.slice(1, -1);
    const parsed = parseIp(inner);
    if (parsed === undefined || parsed.family !== 6 || inner.includes("%")) {
      return `"${inner}" is not an IPv6 address`;
    }
    return { host: inner, port };
  }
  if (hostPart.includes(":")) return "an IPv6 host must be written in brackets, such as [::]:8080";
  if (/^[\d.]+$/.test(hostPart)) {
    return parseIp(hostPart) === undefined
      ? `"${hostPart}" is not an IPv4 address`
      : { host: hostPart, port };
  }
  if (!HOSTNAME.test(hostPart)) return `"${hostPart}" is not a host name or IP address`;
  return { host: hostPart, port };
}

/** Prints a listen address back in `host:port` form, bracketing IPv6 hosts. */
export function formatHostPort(host: string | undefined, port: number): string {
  if (host === undefined) return `:${port}`;
  return host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
}
