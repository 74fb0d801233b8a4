/**
 * The addresses every record points at: the proxy Service's cluster IPs (or
 * `--external-dns-proxy-ip`), split by family and canonical, or the reason there are none yet (a
 * value, not an exception: the sink then builds and prunes nothing).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Service } from "../../../resources/service.ts";
import { formatIp, parseIp, unmapIpv4 } from "../../../util/ip.ts";

/** Record targets by family, each in the order given, without duplicates, canonically spelled. */
export interface Targets {
  readonly ipv4: readonly string[];
  readonly ipv6: readonly string[];
}

/** Why no targets could be resolved (stable codes, metric labels). */
export type TargetsProblem =
  | "headless"
  | "no-cluster-ip"
  | "invalid-address"
  | "service-not-found";

/** Where targets stand: resolved, or unusable with a problem code and what to fix. */
export type TargetsResult =
  | { readonly kind: "resolved"; readonly targets: Targets; readonly origin: string }
  | { readonly kind: "unusable"; readonly problem: TargetsProblem; readonly message: string };

/**
 * Splits addresses by family in the order given, without duplicates; IPv4-mapped IPv6 counts as
 * IPv4. `origin` names the source in messages.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { targetsFromAddresses } from "./targets.ts";
 *
 * assert.deepEqual(targetsFromAddresses(["10.96.0.7", "FD00:0:0:0:0:0:0:7"], "--external-dns-proxy-ip"), {
 *   kind: "resolved",
 *   targets: { ipv4: ["10.96.0.7"], ipv6: ["fd00::7"] },
 *   origin: "--external-dns-proxy-ip",
 * });
 * ```
 */
export function targetsFromAddresses(addresses: readonly string[], origin: string): TargetsResult {
  const ipv4: string[] = [];
  const ipv6: string[] = [];
  for (const text of addresses) {
    const parsed = /^[0-9a-fA-F.:]+$/.test(text) ? parseIp(text) : undefined;
    if (parsed === undefined) {
      return {
        kind: "unusable",
        problem: "invalid-address",
        message: `${origin}: ${JSON.stringify(text)} is not an IP address`,
      };
    }
    const address = unmapIpv4(parsed);
    const list = address.family === 4 ? ipv4 : ipv6;
    const spelled = formatIp(address);
    if (!list.includes(spelled)) list.push(spelled);
  }
  if (ipv4.length === 0 && ipv6.length === 0) {
    return { kind: "unusable", problem: "no-cluster-ip", message: `${origin}: no address given` };
  }
  return { kind: "resolved", targets: { ipv4, ipv6 }, origin };
}

/** The proxy Service's `spec.clusterIPs`, or `spec.clusterIP` on servers before dual-stack. */
export function targetsFromService(service: Service): TargetsResult {
  const where = `Service ${service.metadata.namespace}/${service.metadata.name}`;
  const { clusterIP, clusterIPs } = service.spec;
  const addresses = clusterIPs.length > 0 ? clusterIPs : clusterIP === undefined ? [] : [clusterIP];
  if (addresses.includes("None")) {
    return {
      kind: "unusable",
      problem: "headless",
      message: `${where} is headless (clusterIP: None), so it has no address for DNS records to point at; ` +
        "point --external-dns-proxy-service at the proxy's ClusterIP Service, or set --external-dns-proxy-ip",
    };
  }
  if (addresses.length === 0) {
    return {
      kind: "unusable",
      problem: "no-cluster-ip",
      message: `${where} has no ClusterIP yet` +
        (service.spec.type === "ExternalName"
          ? " (it is an ExternalName Service, which never gets one)"
          : ""),
    };
  }
  return targetsFromAddresses(addresses, where);
}
