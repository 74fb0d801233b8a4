/**
 * The PROXY header a doctor probe sends before it talks to an ingress directly: the header the
 * PROXY protocol (HAProxy's `doc/proxy-protocol.txt`) keeps for a connection a proxy opens on its
 * own behalf, such as a health check, rather than relays: v1 `PROXY UNKNOWN\r\n` (§2.1) and v2
 * with the `LOCAL` command and no addresses (§2.2). A receiver must accept it and use the
 * connection's own ends, so it carries no address the doctor would have to invent.
 *
 * Decisions a reader could not guess:
 * - Not `lib/proxy/proxy_protocol.ts`'s encoder: the proxy and the doctor are rooms of one floor,
 *   which do not import each other, and the header the doctor needs is the fixed, address-free
 *   one (16 bytes at most), not a relayed client's.
 * - ingress-nginx (nginx's `proxy_protocol`), HAProxy, Envoy and Traefik all accept both forms.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The v2 signature (§2.2), then version 2 with the LOCAL command, family UNSPEC, no address bytes. */
const V2_LOCAL = new Uint8Array([
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
  0x20,
  0x00,
  0x00,
  0x00,
]);

const V1_UNKNOWN = new TextEncoder().encode("PROXY UNKNOWN\r\n");

/**
 * The address-free PROXY header of `version`, for a connection the doctor opens itself.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { probeProxyHeader } from "./proxy_header.ts";
 *
 * assert.equal(new TextDecoder().decode(probeProxyHeader("v1")), "PROXY UNKNOWN\r\n");
 * const v2 = probeProxyHeader("v2");
 * assert.equal(v2.length, 16);
 * assert.equal(v2[12], 0x20); // version 2, command LOCAL
 * ```
 */
export function probeProxyHeader(version: "v1" | "v2"): Uint8Array {
  return (version === "v1" ? V1_UNKNOWN : V2_LOCAL).slice();
}
