/**
 * Where a Service takes traffic: its ClusterIPs and its TCP ports named `http`/`https` (the
 * chart's names), else numbered 80/443.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Service, ServicePort } from "../../resources/service.ts";

/** A Service's addresses and ports. */
export interface ServiceTargets {
  /** Empty when headless or unallocated. */
  readonly addresses: readonly string[];
  readonly httpPort?: number;
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
 * import assert from "node:assert/strict";
 * import { decodeService } from "../../resources/service.ts";
 * import { serviceTargets } from "./service_targets.ts";
 *
 * const proxy = decodeService({
 *   metadata: { name: "ouroboros-proxy", namespace: "ouroboros", resourceVersion: "1" },
 *   spec: { clusterIPs: ["10.96.0.50"], ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }] },
 * });
 * assert.ok(proxy.ok);
 * assert.deepEqual(serviceTargets(proxy.value), { addresses: ["10.96.0.50"], httpPort: 80, httpsPort: 443 });
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
