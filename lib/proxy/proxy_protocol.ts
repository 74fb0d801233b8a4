/**
 * PROXY protocol header encoders (HAProxy's `doc/proxy-protocol.txt`, versions 1 and 2).
 *
 * The ingress controller behind the proxy trusts the first bytes of every connection to name
 * the real client. These functions build those bytes from the two socket addresses; the
 * connection handler writes them once, before any client byte.
 *
 * Family rules: IPv4-mapped IPv6 addresses (`::ffff:a.b.c.d`, what a dual-stack listener reports
 * for IPv4 peers) are unwrapped to IPv4 first. When both sides are then IPv4 the header is TCP4;
 * when the families differ, the IPv4 side is mapped back and TCP6 is sent, as HAProxy does,
 * instead of the original's `UNKNOWN`, which made the receiver log the proxy's own address.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { formatIp, type IpAddress, mapIpv4, parseIp, unmapIpv4 } from "../util/ip.ts";

/** The `--proxy-protocol` values. */
export const PROXY_PROTOCOL_VERSIONS = ["v1", "v2"] as const;
/** A PROXY protocol version. */
export type ProxyProtocolVersion = (typeof PROXY_PROTOCOL_VERSIONS)[number];

/** One end of a TCP connection as the socket layer reports it. */
export interface SocketAddress {
  readonly hostname: string;
  readonly port: number;
}

/** Both ends of a connection after family reconciliation, ready to encode. */
export type HeaderAddresses =
  | {
    readonly family: 4 | 6;
    readonly source: IpAddress;
    readonly destination: IpAddress;
    readonly sourcePort: number;
    readonly destinationPort: number;
  }
  | { readonly family: "unknown" };

/** Longest possible v1 header, including CRLF (spec §2.1: "a 108-byte buffer is always enough"). */
export const V1_MAX_LENGTH = 107;

/** The 12-byte v2 signature (spec §2.2). */
export const V2_SIGNATURE: Uint8Array = new Uint8Array([
  0x0d,
  0x0a,
  0x0d,
  0x0a,
  0x00,
  0x0d,
  0x0a,
  0x51,
  0x55,
  0x49,
  0x54,
  0x0a,
]);

/**
 * Turns two socket addresses into header addresses: parses them, unwraps IPv4-mapped forms,
 * and maps an IPv4 side to IPv6 when the families still differ. An address that is not an IP
 * literal, or a port outside 0–65535, yields `unknown`.
 *
 * @example
 * ```ts
 * import { headerAddresses } from "./proxy_protocol.ts";
 *
 * const client = { hostname: "::ffff:10.0.0.7", port: 51000 };
 * headerAddresses(client, { hostname: "::ffff:10.0.0.2", port: 8443 }).family; // 4: both unmapped
 * headerAddresses(client, { hostname: "fd00::2", port: 8443 }).family; // 6: 10.0.0.7 mapped to IPv6
 * headerAddresses(client, { hostname: "localhost", port: 8443 }).family; // "unknown"
 * ```
 */
export function headerAddresses(client: SocketAddress, local: SocketAddress): HeaderAddresses {
  const source = parseIp(client.hostname);
  const destination = parseIp(local.hostname);
  if (
    source === undefined || destination === undefined || !validPort(client.port) || !validPort(local.port)
  ) {
    return { family: "unknown" };
  }
  let src = unmapIpv4(source);
  let dst = unmapIpv4(destination);
  if (src.family !== dst.family) {
    src = mapIpv4(src);
    dst = mapIpv4(dst);
  }
  return {
    family: src.family,
    source: src,
    destination: dst,
    sourcePort: client.port,
    destinationPort: local.port,
  };
}

function validPort(port: number): boolean {
  return Number.isInteger(port) && port >= 0 && port <= 65535;
}

/**
 * Encodes a version 1 (text) header.
 *
 * @example
 * ```ts
 * import { encodeV1, headerAddresses } from "./proxy_protocol.ts";
 *
 * encodeV1(headerAddresses({ hostname: "10.0.0.7", port: 51000 }, { hostname: "10.0.0.2", port: 8080 }));
 * // "PROXY TCP4 10.0.0.7 10.0.0.2 51000 8080\r\n"
 * ```
 */
export function encodeV1(addresses: HeaderAddresses): string {
  if (addresses.family === "unknown") return "PROXY UNKNOWN\r\n";
  const protocol = addresses.family === 4 ? "TCP4" : "TCP6";
  return `PROXY ${protocol} ${formatIp(addresses.source)} ${
    formatIp(addresses.destination)
  } ${addresses.sourcePort} ${addresses.destinationPort}\r\n`;
}

/**
 * Encodes a version 2 (binary) header: signature, version 2 with the PROXY command, the
 * address family with STREAM transport, the address block length, then source and destination
 * addresses and ports in network byte order. `unknown` becomes the LOCAL command with the
 * UNSPEC family and no address block, as HAProxy sends it: for LOCAL the spec says the receiver
 * must accept the connection and use the real endpoints, whereas a PROXY command with UNSPEC
 * leaves the receiver free to reject it.
 */
export function encodeV2(addresses: HeaderAddresses): Uint8Array {
  const addressLength = addresses.family === 4 ? 12 : addresses.family === 6 ? 36 : 0;
  const out = new Uint8Array(16 + addressLength);
  out.set(V2_SIGNATURE, 0);
  out[12] = addresses.family === "unknown" ? 0x20 : 0x21; // version 2, command LOCAL or PROXY
  out[13] = addresses.family === 4 ? 0x11 : addresses.family === 6 ? 0x21 : 0x00;
  out[14] = addressLength >> 8;
  out[15] = addressLength & 0xff;
  if (addresses.family === "unknown") return out;
  const size = addresses.family === 4 ? 4 : 16;
  out.set(addresses.source.bytes, 16);
  out.set(addresses.destination.bytes, 16 + size);
  const ports = 16 + 2 * size;
  out[ports] = addresses.sourcePort >> 8;
  out[ports + 1] = addresses.sourcePort & 0xff;
  out[ports + 2] = addresses.destinationPort >> 8;
  out[ports + 3] = addresses.destinationPort & 0xff;
  return out;
}

const encoder = new TextEncoder();

/** The two ends of a client's connection to the proxy, as the header reports them. */
export interface ConnectionEnds {
  /** The client's address (the header's source). */
  readonly client: SocketAddress;
  /** The address the client connected to (the header's destination). */
  readonly local: SocketAddress;
}

/** Options for {@linkcode encodeProxyHeader}. */
export interface EncodeOptions {
  /**
   * Client bytes to append after the header, so header and payload leave in one write (one
   * system call, one wake-up of the backend) when the client spoke before the dial completed.
   */
  readonly payload?: Uint8Array;
}

/**
 * Encodes the header for a connection in the chosen version, as the bytes to write, followed
 * by `options.payload` when given.
 *
 * @example
 * ```ts
 * import { encodeProxyHeader } from "./proxy_protocol.ts";
 *
 * const header = encodeProxyHeader("v1", {
 *   client: { hostname: "10.0.0.7", port: 51234 },
 *   local: { hostname: "10.0.0.2", port: 8443 },
 * });
 * new TextDecoder().decode(header); // "PROXY TCP4 10.0.0.7 10.0.0.2 51234 8443\r\n"
 * const withPayload = encodeProxyHeader("v1", {
 *   client: { hostname: "10.0.0.7", port: 51234 },
 *   local: { hostname: "10.0.0.2", port: 8443 },
 * }, { payload: new TextEncoder().encode("GET / HTTP/1.1\r\n") });
 * withPayload.length; // header.length + 16
 * ```
 */
export function encodeProxyHeader(
  version: ProxyProtocolVersion,
  ends: ConnectionEnds,
  options: EncodeOptions = {},
): Uint8Array {
  const addresses = headerAddresses(ends.client, ends.local);
  const payload = options.payload;
  if (version === "v2") {
    const header = encodeV2(addresses);
    if (payload === undefined || payload.length === 0) return header;
    const out = new Uint8Array(header.length + payload.length);
    out.set(header, 0);
    out.set(payload, header.length);
    return out;
  }
  const text = encodeV1(addresses);
  if (payload === undefined || payload.length === 0) return encoder.encode(text);
  // v1 is ASCII (at most V1_MAX_LENGTH bytes), so encoding straight into the joined buffer fits.
  const out = new Uint8Array(text.length + payload.length);
  encoder.encodeInto(text, out);
  out.set(payload, text.length);
  return out;
}
