/**
 * Records as the cluster holds them, reduced to what the writer's plan compares
 * ({@linkcode ObservedObject}): identity (name, uid, resourceVersion), labels, annotations and the
 * spec fields ouroboros owns, in the same form `DesiredRecord` (build_records.ts) uses, and the
 * hostname a record publishes as its group. Status and server-assigned fields (a Service's cluster IPs, IP
 * families, session affinity) are left out on purpose: they are never compared, so they never
 * cause a write, and never overwritten. The one exception is a DNSEndpoint's
 * {@linkcode RecordProgress}, kept apart from the owned fields for the status surfacer
 * (`status_surfacer.ts`), which never writes.
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

/**
 * One record object found in the cluster. Its `group` is the hostname it publishes, when it says
 * (`dnsName`, or the Service's hostname annotation).
 */
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

/**
 * A listed Service (see {@linkcode observeHeadlessService}); `annotationPrefix` finds the
 * hostname annotation.
 */
export function observeService(object: Service, annotationPrefix: string): ObservedRecord {
  const host = object.metadata.annotations[`${annotationPrefix}hostname`];
  return { ...observeHeadlessService(object), ...(host === undefined ? {} : { group: host }) };
}
