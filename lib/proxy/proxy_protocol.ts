/**
 * PROXY protocol header encoders (HAProxy's `doc/proxy-protocol.txt`, versions 1 and 2).
 *
 * IPv4-mapped addresses (`::ffff:a.b.c.d`) are unwrapped first; mixed families then send TCP6
 * with the IPv4 side mapped, as HAProxy does (the original's `UNKNOWN` hid the real client).
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

/** Longest v1 header, CRLF included (spec §2.1: "a 108-byte buffer is always enough"). */
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

/** Reconciles the families of two socket addresses; a non-IP address or a bad port: `unknown`. */
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

/** Encodes a version 1 (text) header. */
export function encodeV1(addresses: HeaderAddresses): string {
  if (addresses.family === "unknown") return "PROXY UNKNOWN\r\n";
  const protocol = addresses.family === 4 ? "TCP4" : "TCP6";
  return `PROXY ${protocol} ${formatIp(addresses.source)} ${
    formatIp(addresses.destination)
  } ${addresses.sourcePort} ${addresses.destinationPort}\r\n`;
}

/**
 * Encodes a version 2 (binary) header. `unknown` is sent as LOCAL with UNSPEC, as HAProxy does:
 * the receiver must accept LOCAL, whereas it may reject PROXY with UNSPEC.
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
  /** Client bytes to append, so they leave with the header in one write. */
  readonly payload?: Uint8Array;
}

/**
 * The header bytes for a connection, followed by `options.payload` when given.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { encodeProxyHeader } from "./proxy_protocol.ts";
 *
 * const client = { hostname: "::ffff:10.0.0.7", port: 51234 };
 * const header = encodeProxyHeader("v1", { client, local: { hostname: "10.0.0.2", port: 8443 } });
 * assert.equal(new TextDecoder().decode(header), "PROXY TCP4 10.0.0.7 10.0.0.2 51234 8443\r\n");
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
