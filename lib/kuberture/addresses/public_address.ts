/**
 * Which addresses count as public for the `node-public` address source: the address a client
 * on the internet could reach a Node at.
 *
 * kuberture calls an address private when it is in RFC 1918 (10/8, 172.16/12, 192.168/16),
 * IPv4 link-local (169.254/16), IPv4 loopback (127/8), RFC 4193 (fc00::/7) or IPv6 link-local
 * (fe80::/10), and public otherwise. We exclude those and also what can never be a reachable
 * unicast host address, which kuberture would publish:
 *
 * - IPv4: `0.0.0.0/8` (this network), `100.64.0.0/10` (RFC 6598 shared address space, carrier-
 *   grade NAT), `224.0.0.0/4` (multicast), `240.0.0.0/4` (reserved, and the broadcast address);
 * - IPv6: `::` (unspecified), `::1` (loopback, which kuberture misses), `::ffff:0:0/96`
 *   (IPv4-mapped: an IPv4 address in IPv6 dress, never an IPv6 host), `fec0::/10` (the
 *   deprecated site-local range) and `ff00::/8` (multicast).
 *
 * The documentation ranges (`192.0.2.0/24`, `198.51.100.0/24`, `203.0.113.0/24`,
 * `2001:db8::/32`) stay public, as in kuberture: no real Node carries them, and examples and
 * tests (kuberture's own among them) use them to stand for public addresses.
 *
 * {@linkcode NON_PUBLIC_RANGES} is the whole list, with a reason per range, so documentation can
 * be generated from (or checked against) it.
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
  /** Why, in a few words: `shared address space (carrier-grade NAT, RFC 6598)`. */
  readonly why: string;
  /** True for the ranges kuberture excludes too; false for the ones only we exclude. */
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
 * True when `address` is an IP address outside every {@linkcode NON_PUBLIC_RANGES} entry. Text
 * that is not an IP address (a `Hostname` entry of a Node) is not public.
 *
 * @example
 * ```ts
 * import { isPublicAddress } from "./public_address.ts";
 *
 * isPublicAddress("192.168.1.10"); // false: RFC 1918
 * isPublicAddress("100.64.7.1"); // false: carrier-grade NAT
 * isPublicAddress("2a01:4f8::1"); // true
 * isPublicAddress("cp-1"); // false: not an address
 * ```
 */
export function isPublicAddress(address: string | IpAddress): boolean {
  const parsed = typeof address === "string" ? parseIp(address) : address;
  if (parsed === undefined) return false;
  return !RANGES.some((range) => contains(range, parsed));
}
