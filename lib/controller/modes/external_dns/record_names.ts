/**
 * Object names for the records of one hostname: deterministic (a restart, a second replica or a
 * retry computes the same name, so it finds its own objects), valid for the kind, and distinct
 * for distinct hostnames.
 *
 * A name is `ouroboros-<readable>-<hash>` plus `-v4`/`-v6` for DNSEndpoints:
 * - `<readable>` is the hostname with every run of characters other than `[a-z0-9]` turned into
 *   one `-`, cut to fit the kind's limit, with a wildcard's leading `*` read as `wildcard`
 *   (`*.example.com` reads `wildcard-example-com`). It only helps a person find the object; it is
 *   lossy (`a.b.com`, `a-b.com` and `a_b.com` all read `a-b-com`).
 * - `<hash>` is the first 12 hex digits of the SHA-256 of the exact hostname (its UTF-8 bytes): it
 *   is what keeps names apart. The original used the readable part alone, so those three
 *   hostnames shared one name and all but one were silently lost. A cryptographic hash rather
 *   than a fast one, because hostnames come from anyone allowed to create an Ingress: with a hash
 *   such as FNV, a tenant could craft a name that lands on someone else's record name on purpose
 *   and get that record refused. `node:crypto` hashes synchronously (Web Crypto's `digest` is
 *   asynchronous only, and names must be a plain function usable in pure code) and needs no
 *   permission.
 *
 * Limits: a Service name is a DNS-1035 label of at most 63 characters (the original's names
 * broke on hostnames over 53 characters and aborted the whole pass); a DNSEndpoint name is a
 * DNS-1123 subdomain of at most 253. Both always start with the letter `o` and end with a hex
 * digit or `4`/`6`.
 *
 * Each address family of a DNSEndpoint gets its own name whatever the proxy's families are, so a
 * Service going dual-stack adds an object instead of renaming the one that exists.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { createHash } from "node:crypto";

/** Every record name starts with this. */
export const NAME_PREFIX = "ouroboros-";

/** Hex digits of the hostname's SHA-256 kept in a name (48 bits). */
export const NAME_HASH_LENGTH = 12;

/** The longest Service name (a DNS-1035 label). */
export const MAX_SERVICE_NAME = 63;

/** The longest DNSEndpoint name (a DNS-1123 subdomain). */
export const MAX_DNS_ENDPOINT_NAME = 253;

/** An address family, as it appears in DNSEndpoint names and record types. */
export type AddressFamily = 4 | 6;

/** Where records go: DNSEndpoint custom resources, or annotated headless Services. */
export type RecordOutput = "crd" | "service";

function readable(host: string, budget: number): string {
  const spelled = host.startsWith("*.") ? `wildcard${host.slice(1)}` : host;
  const folded = spelled.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+/, "");
  return folded.slice(0, budget).replace(/-+$/, "");
}

function stem(host: string, limit: number, suffix: string): string {
  const hash = createHash("sha256").update(host, "utf8").digest("hex").slice(0, NAME_HASH_LENGTH);
  const budget = limit - NAME_PREFIX.length - 1 - hash.length - suffix.length;
  const text = readable(host, budget);
  return `${NAME_PREFIX}${text === "" ? "" : `${text}-`}${hash}${suffix}`;
}

/**
 * The name of the headless Service carrying `host`'s records (output `service`).
 *
 * @example
 * ```ts
 * import { serviceName } from "./record_names.ts";
 *
 * serviceName("shop.example.com"); // "ouroboros-shop-example-com-<12 hex>"
 * ```
 */
export function serviceName(host: string): string {
  return stem(host, MAX_SERVICE_NAME, "");
}

/**
 * The name of the DNSEndpoint holding `host`'s A (`4`) or AAAA (`6`) record (output `crd`).
 *
 * @example
 * ```ts
 * import { dnsEndpointName } from "./record_names.ts";
 *
 * dnsEndpointName("shop.example.com", 6); // "ouroboros-shop-example-com-<12 hex>-v6"
 * ```
 */
export function dnsEndpointName(host: string, family: AddressFamily): string {
  return stem(host, MAX_DNS_ENDPOINT_NAME, `-v${family}`);
}

/** Every name `host`'s records may have in `output`, whichever families the targets have. */
export function recordNames(host: string, output: RecordOutput): string[] {
  return output === "service" ? [serviceName(host)] : [dnsEndpointName(host, 4), dnsEndpointName(host, 6)];
}
