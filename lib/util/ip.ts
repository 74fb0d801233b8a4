/**
 * IP address parsing and canonical printing: the PROXY-protocol header needs one exact spelling
 * (no leading zeros, RFC 5952), whatever the socket layer hands us (e.g. `::ffff:10.0.0.7`).
 *
 * Pure: no I/O.
 *
 * @module
 */

/** An IPv4 address as 4 bytes. */
export interface Ipv4Address {
  readonly family: 4;
  readonly bytes: Uint8Array;
}

/** An IPv6 address as 16 bytes; any `%zone` suffix has been dropped. */
export interface Ipv6Address {
  readonly family: 6;
  readonly bytes: Uint8Array;
}

/** A parsed IP address of either family. */
export type IpAddress = Ipv4Address | Ipv6Address;

const DECIMAL_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const HEX_GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Parses a dotted quad; leading zeros are refused (octal to some, forbidden by PROXY). */
export function parseIpv4(text: string): Ipv4Address | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (const [index, part] of parts.entries()) {
    if (!DECIMAL_OCTET.test(part)) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[index] = value;
  }
  return { family: 4, bytes };
}

/** Parses an IPv6 address in any valid spelling (brackets and a `%zone` suffix allowed). */
export function parseIpv6(text: string): Ipv6Address | undefined {
  let body = text;
  if (body.startsWith("[") && body.endsWith("]")) body = body.slice(1, -1);
  const zone = body.indexOf("%");
  if (zone >= 0) {
    // A `%` must name a zone (RFC 4007 §11): `fe80::1%` is a typo, not an address.
    if (zone === body.length - 1) return undefined;
    body = body.slice(0, zone);
  }
  if (body === "") return undefined;

  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const head = halves[0] === "" ? [] : (halves[0] ?? "").split(":");
  const tail = halves.length === 2 ? (halves[1] === "" ? [] : (halves[1] ?? "").split(":")) : [];

  const groups: number[] = [];
  const decode = (parts: string[], allowQuad: boolean): number[] | undefined => {
    const out: number[] = [];
    for (const [index, part] of parts.entries()) {
      const last = index === parts.length - 1;
      if (allowQuad && last && part.includes(".")) {
        const quad = parseIpv4(part);
        if (quad === undefined) return undefined;
        const [a = 0, b = 0, c = 0, d = 0] = quad.bytes;
        out.push((a << 8) | b, (c << 8) | d);
      } else if (HEX_GROUP.test(part)) {
        out.push(parseInt(part, 16));
      } else {
        return undefined;
      }
    }
    return out;
  };
  const headGroups = decode(head, halves.length === 1);
  const tailGroups = decode(tail, true);
  if (headGroups === undefined || tailGroups === undefined) return undefined;
  if (halves.length === 1) {
    if (headGroups.length !== 8) return undefined;
    groups.push(...headGroups);
  } else {
    const missing = 8 - headGroups.length - tailGroups.length;
    if (missing < 1) return undefined;
    groups.push(...headGroups, ...new Array<number>(missing).fill(0), ...tailGroups);
  }
  const bytes = new Uint8Array(16);
  for (const [index, group] of groups.entries()) {
    bytes[index * 2] = group >> 8;
    bytes[index * 2 + 1] = group & 0xff;
  }
  return { family: 6, bytes };
}

/** Parses an address of either family; `undefined` when the text is neither. */
export function parseIp(text: string): IpAddress | undefined {
  return text.includes(":") ? parseIpv6(text) : parseIpv4(text);
}

/** True for `::ffff:a.b.c.d`, the form a dual-stack socket uses for IPv4 peers. */
export function isIpv4Mapped(address: Ipv6Address): boolean {
  const b = address.bytes;
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** Returns the IPv4 address inside an IPv4-mapped IPv6 address, or the address unchanged. */
export function unmapIpv4(address: IpAddress): IpAddress {
  if (address.family === 6 && isIpv4Mapped(address)) {
    return { family: 4, bytes: address.bytes.slice(12) };
  }
  return address;
}

/** Wraps an IPv4 address as `::ffff:a.b.c.d`; IPv6 addresses are returned unchanged. */
export function mapIpv4(address: IpAddress): Ipv6Address {
  if (address.family === 6) return address;
  const bytes = new Uint8Array(16);
  bytes[10] = 0xff;
  bytes[11] = 0xff;
  bytes.set(address.bytes, 12);
  return { family: 6, bytes };
}

/**
 * Prints an address canonically: dotted quad for IPv4, RFC 5952 for IPv6 (`::ffff:a.b.c.d` when
 * IPv4-mapped).
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatIp, parseIp } from "./ip.ts";
 *
 * const address = parseIp("2001:DB8:0:0:1:0:0:1");
 * assert.ok(address !== undefined);
 * assert.equal(formatIp(address), "2001:db8::1:0:0:1");
 * ```
 */
export function formatIp(address: IpAddress): string {
  const b = address.bytes;
  if (address.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (isIpv4Mapped(address)) return `::ffff:${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const groups: number[] = [];
  for (let i = 0; i < 8; i++) groups.push(((b[i * 2] ?? 0) << 8) | (b[i * 2 + 1] ?? 0));

  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]) => list.map((g) => g.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}
