/**
 * Record type numbers to the mnemonics answerers and logs use; the RFC 3597 form `TYPE65` for the
 * rest. An unlisted type is still served, only its name is generic.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** IPv4 address record. */
export const TYPE_A = 1;
/** IPv6 address record. */
export const TYPE_AAAA = 28;
/** Zone transfers, which the server refuses. */
export const TYPE_IXFR = 251;
/** See {@linkcode TYPE_IXFR}. */
export const TYPE_AXFR = 252;

const NAMES: ReadonlyMap<number, string> = new Map([
  [1, "A"],
  [2, "NS"],
  [5, "CNAME"],
  [6, "SOA"],
  [12, "PTR"],
  [13, "HINFO"],
  [15, "MX"],
  [16, "TXT"],
  [28, "AAAA"],
  [33, "SRV"],
  [35, "NAPTR"],
  [39, "DNAME"],
  [41, "OPT"],
  [43, "DS"],
  [46, "RRSIG"],
  [47, "NSEC"],
  [48, "DNSKEY"],
  [50, "NSEC3"],
  [52, "TLSA"],
  [64, "SVCB"],
  [65, "HTTPS"],
  [99, "SPF"],
  [251, "IXFR"],
  [252, "AXFR"],
  [255, "ANY"],
  [256, "URI"],
  [257, "CAA"],
]);

/**
 * The mnemonic of a record type, or `TYPE<number>`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { recordTypeName } from "./record_type_name.ts";
 *
 * assert.equal(recordTypeName(28), "AAAA");
 * assert.equal(recordTypeName(65280), "TYPE65280");
 * ```
 */
export function recordTypeName(type: number): string {
  return NAMES.get(type) ?? `TYPE${type}`;
}
