/**
 * Where a Service takes traffic: its ClusterIPs (one per IP family) and its http and https
 * ports, as the checks that dial one need them: the path check dials the proxy Service (and the
 * resolution check compares DNS answers with the same addresses), the probe-direct check the
 * ingress's load balancer on its http port.
 *
 * Decisions: the ports are the ones named `http` and `https` (the chart's names), else the ones
 * numbered 80 and 443; TCP only. A headless Service (`None`) or one without a ClusterIP has no
 * addresses.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Service, ServicePort } from "../../resources/service.ts";

/** A Service's addresses and ports. */
export interface ServiceTargets {
  /** Its ClusterIPs, `clusterIPs` in order (or `clusterIP`); empty when headless or unallocated. */
  readonly addresses: readonly string[];
  /** The port named `http`, else 80; absent when it has neither. */
  readonly httpPort?: number;
  /** The port named `https`, else 443; absent when it has neither. */
  readonly httpsPort?: number;
}

function pick(ports: readonly ServicePort[], name: string, number: number): number | undefined {
  const tcp = ports.filter((port) => port.protocol === "TCP");
  return (tcp.find((port) => port.name === name) ?? tcp.find((port) => port.port === number))?.port;
}

/**
 * The addresses and ports of a Service.
 *
 * @example
 * ```ts
 * import type { Service } from "../../resources/service.ts";
 * import { serviceTargets } from "./service_targets.ts";
 *
 * declare const proxy: Service; // clusterIPs ["10.96.0.50"], ports http 80 and https 443
 * serviceTargets(proxy); // { addresses: ["10.96.0.50"], httpPort: 80, httpsPort: 443 }
 * ```
 */
export function serviceTargets(service: Service): ServiceTargets {
  const { spec } = service;
  const listed = spec.clusterIPs.length > 0
    ? spec.clusterIPs
    : spec.clusterIP === undefined
    ? []
    : [spec.clusterIP];
  const httpPort = pick(spec.ports, "http", 80);
  const httpsPort = pick(spec.ports, "https", 443);
  return {
    addresses: listed.filter((address) => address !== "" && address !== "None"),
    ...(httpPort === undefined ? {} : { httpPort }),
    ...(httpsPort === undefined ? {} : { httpsPort }),
  };
}
