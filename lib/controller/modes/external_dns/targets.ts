/**
 * The addresses every record points at: the proxy Service's cluster IPs (or the operator's
 * `--external-dns-proxy-ip`), split by family and spelled canonically, or the reason there are
 * none yet. A reason is not an exception: the sink builds nothing from it and prunes nothing,
 * and the next pass after the proxy Service changes reads it again.
 *
 * Pure: no I/O. `proxy_targets.ts` picks the Service out of the controller's cache.
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

/** Why no targets could be resolved; stable codes, usable as metric labels. */
export type TargetsProblem =
  /** The proxy Service is headless (`clusterIP: None`): it has no address to point at. */
  | "headless"
  /** The proxy Service has no cluster IP yet (or is an `ExternalName` Service). */
  | "no-cluster-ip"
  /** An address that is not an IP literal. */
  | "invalid-address"
  /** The proxy Service does not exist. */
  | "service-not-found";

/** Where targets stand: resolved, or unusable with a problem code and what to fix. */
export type TargetsResult =
  | { readonly kind: "resolved"; readonly targets: Targets; readonly origin: string }
  | { readonly kind: "unusable"; readonly problem: TargetsProblem; readonly message: string };

/**
 * Splits addresses by family in the order given, dropping duplicates. IPv4-mapped IPv6
 * addresses count as IPv4. `origin` says where they came from, for messages.
 *
 * @example
 * ```ts
 * import { targetsFromAddresses } from "./targets.ts";
 *
 * targetsFromAddresses(["10.96.0.7", "FD00:0:0:0:0:0:0:7"], "--external-dns-proxy-ip");
 * // { kind: "resolved", targets: { ipv4: ["10.96.0.7"], ipv6: ["fd00::7"] },
 * //   origin: "--external-dns-proxy-ip" }
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

/**
 * The targets of the proxy Service: `spec.clusterIPs` (every family), falling back to
 * `spec.clusterIP` for servers that predate dual-stack.
 *
 * @example
 * ```ts
 * import type { Service } from "../../../resources/service.ts";
 * import { targetsFromService } from "./targets.ts";
 *
 * declare const service: Service; // ouroboros/ouroboros-proxy, spec.clusterIPs ["10.96.0.7"]
 * targetsFromService(service);
 * // { kind: "resolved", targets: { ipv4: ["10.96.0.7"], ipv6: [] },
 * //   origin: "Service ouroboros/ouroboros-proxy" }
 * ```
 */
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
