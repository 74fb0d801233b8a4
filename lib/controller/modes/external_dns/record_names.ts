/**
 * Object names for one hostname's records: deterministic (a restart or another replica finds its
 * own objects), valid for the kind, distinct for distinct hostnames: `ouroboros-<readable>-<hash>`,
 * plus `-v4`/`-v6` for DNSEndpoints. `<readable>` is lossy and only helps a person; `<hash>` (12
 * hex digits of the hostname's SHA-256) keeps names apart, where the original's readable part alone
 * let `a.b.com` and `a-b.com` collide. SHA-256, not a fast hash: any Ingress author could otherwise
 * aim a collision at another's record; `node:crypto` hashes synchronously. Services fit 63
 * characters (the original broke past 53). Each family has its own DNSEndpoint name, so going
 * dual-stack adds an object instead of renaming one.
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

/** The name of the headless Service carrying `host`'s records (output `service`). */
export function serviceName(host: string): string {
  return stem(host, MAX_SERVICE_NAME, "");
}

/** The name of the DNSEndpoint holding `host`'s A (`4`) or AAAA (`6`) record (output `crd`). */
export function dnsEndpointName(host: string, family: AddressFamily): string {
  return stem(host, MAX_DNS_ENDPOINT_NAME, `-v${family}`);
}

/** Every name `host`'s records may have in `output`, whichever families the targets have. */
export function recordNames(host: string, output: RecordOutput): string[] {
  return output === "service" ? [serviceName(host)] : [dnsEndpointName(host, 4), dnsEndpointName(host, 6)];
}
