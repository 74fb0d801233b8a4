/**
 * Records as the cluster holds them, reduced to what the writer's plan compares (the form
 * `build_records.ts` builds, the published hostname as group). Server-assigned fields never cause a
 * write; a DNSEndpoint's {@linkcode RecordProgress} is kept apart for the status surfacer.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { JsonObject } from "../../../resources/json.ts";
import type { DnsEndpoint, Endpoint, ObservedGeneration } from "../../../resources/dns_endpoint.ts";
import type { Service } from "../../../resources/service.ts";
import { observeHeadlessService } from "../../../publisher/headless_service.ts";
import { observedMeta, type ObservedObject } from "../../../publisher/owned_object_plan.ts";

/** How far external-dns got with a DNSEndpoint: its generation against what external-dns saw. */
export interface RecordProgress {
  /** `metadata.generation`, when the server keeps one. */
  readonly generation?: number;
  /** `metadata.creationTimestamp` (RFC 3339), when the server sent one. */
  readonly createdAt?: string;
  readonly observedGeneration: ObservedGeneration;
}

/** One record object found in the cluster; `group` is the hostname it publishes, when it says. */
export interface ObservedRecord extends ObservedObject {
  /** DNSEndpoints only: what the status surfacer reads; never compared or written. */
  readonly progress?: RecordProgress;
}

function endpointFields(endpoint: Endpoint): JsonObject {
  return {
    dnsName: endpoint.dnsName,
    ...(endpoint.recordType === undefined ? {} : { recordType: endpoint.recordType }),
    ...(endpoint.recordTTL === undefined ? {} : { recordTTL: endpoint.recordTTL }),
    targets: [...endpoint.targets],
    ...(Object.keys(endpoint.labels).length === 0 ? {} : { labels: endpoint.labels }),
    ...(endpoint.providerSpecific.length === 0 ? {} : { providerSpecific: endpoint.providerSpecific }),
  };
}

/** A listed DNSEndpoint: its whole `spec.endpoints` is owned. */
export function observeDnsEndpoint(object: DnsEndpoint): ObservedRecord {
  const { generation, creationTimestamp } = object.metadata;
  const host = object.spec.endpoints[0]?.dnsName;
  return {
    ...observedMeta(object.metadata),
    spec: { endpoints: object.spec.endpoints.map(endpointFields) },
    ...(host === undefined ? {} : { group: host }),
    progress: {
      ...(generation === undefined ? {} : { generation }),
      ...(creationTimestamp === undefined ? {} : { createdAt: creationTimestamp }),
      observedGeneration: object.status.observedGeneration,
    },
  };
}

/** A listed Service; `annotationPrefix` finds its hostname annotation. */
export function observeService(object: Service, annotationPrefix: string): ObservedRecord {
  const host = object.metadata.annotations[`${annotationPrefix}hostname`];
  return { ...observeHeadlessService(object), ...(host === undefined ? {} : { group: host }) };
}
