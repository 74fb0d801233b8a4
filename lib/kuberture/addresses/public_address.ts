/**
 * Which addresses count as public for the `node-public` address source. Besides kuberture's
 * private ranges we refuse what can never be a reachable unicast host (CGNAT, multicast, reserved,
 * `::1`, IPv4-mapped…), which kuberture would publish. The documentation ranges stay public, as in
 * kuberture: examples and tests use them for public addresses.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type IpAddress, parseIp } from "../../util/ip.ts";

/** One range whose addresses are never public. */
export interface NonPublicRange {
  /** CIDR notation: `100.64.0.0/10`. */
  readonly prefix: string;
  readonly why: string;
  /** True for the ranges kuberture excludes too. */
  readonly kuberture: boolean;
}

/** Every range {@linkcode isPublicAddress} refuses, IPv4 first, each family in address order. */
export const NON_PUBLIC_RANGES: readonly NonPublicRange[] = [
  { prefix: "0.0.0.0/8", why: "this network (RFC 1122)", kuberture: false },
  { prefix: "10.0.0.0/8", why: "private (RFC 1918)", kuberture: true },
  { prefix: "100.64.0.0/10", why: "shared address space (carrier-grade NAT, RFC 6598)", kuberture: false },
  { prefix: "127.0.0.0/8", why: "loopback", kuberture: true },
  { prefix: "169.254.0.0/16", why: "link-local (RFC 3927)", kuberture: true },
  { prefix: "172.16.0.0/12", why: "private (RFC 1918)", kuberture: true },
  { prefix: "192.168.0.0/16", why: "private (RFC 1918)", kuberture: true },
  { prefix: "224.0.0.0/4", why: "multicast", kuberture: false },
  { prefix: "240.0.0.0/4", why: "reserved, and the broadcast address", kuberture: false },
  { prefix: "::/128", why: "unspecified", kuberture: false },
  { prefix: "::1/128", why: "loopback", kuberture: false },
  { prefix: "::ffff:0:0/96", why: "IPv4-mapped, not an IPv6 host address", kuberture: false },
  { prefix: "fc00::/7", why: "unique local (RFC 4193)", kuberture: true },
  { prefix: "fe80::/10", why: "link-local", kuberture: true },
  { prefix: "fec0::/10", why: "site-local (deprecated, RFC 3879)", kuberture: false },
  { prefix: "ff00::/8", why: "multicast", kuberture: false },
];

interface ParsedRange {
  readonly network: IpAddress;
  readonly length: number;
}

function parseRange(prefix: string): ParsedRange {
  const [address = "", length = ""] = prefix.split("/");
  const network = parseIp(address);
  if (network === undefined) throw new TypeError(`not a CIDR prefix: ${prefix}`);
  return { network, length: Number(length) };
}

const RANGES: readonly ParsedRange[] = NON_PUBLIC_RANGES.map((range) => parseRange(range.prefix));

function contains(range: ParsedRange, address: IpAddress): boolean {
  if (range.network.family !== address.family) return false;
  const whole = Math.floor(range.length / 8);
  for (let i = 0; i < whole; i++) if (range.network.bytes[i] !== address.bytes[i]) return false;
  const rest = range.length % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((range.network.bytes[whole] ?? 0) & mask) === ((address.bytes[whole] ?? 0) & mask);
}

/**
 * True when `address` is an IP outside every {@linkcode NON_PUBLIC_RANGES} entry; text that is not
 * an IP (a Node's `Hostname` entry) is not public.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { isPublicAddress } from "./public_address.ts";
 *
 * assert.equal(isPublicAddress("192.168.1.10"), false); // RFC 1918
 * assert.equal(isPublicAddress("100.64.7.1"), false); // carrier-grade NAT
 * assert.equal(isPublicAddress("2a01:4f8::1"), true);
 * ```
 */
export function isPublicAddress(address: string | IpAddress): boolean {
  const parsed = typeof address === "string" ? parseIp(address) : address;
  if (parsed === undefined) return false;
  return !RANGES.some((range) => contains(range, parsed));
}
