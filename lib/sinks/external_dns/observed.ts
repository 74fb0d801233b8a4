/**
 * Records as the cluster holds them, reduced to what the plan compares: identity (name, uid,
 * resourceVersion), labels, annotations and the spec fields ouroboros owns, in the same form
 * `DesiredRecord` (records.ts) uses. Status and server-assigned fields (a Service's cluster IPs, IP
 * families, session affinity) are left out on purpose: they are never compared, so they never
 * cause a write, and never overwritten.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { JsonObject } from "../../kube/objects.ts";
import type { DnsEndpoint, Endpoint } from "../../resources/dns_endpoint.ts";
import type { Service } from "../../resources/service.ts";
import type { OwnedFields } from "./records.ts";

/** One record object found in the cluster. */
export interface ObservedRecord extends OwnedFields {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  /** The hostname it publishes, when it says (`dnsName`, or the Service's hostname annotation). */
  readonly host?: string;
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
  const { name, uid, resourceVersion, labels, annotations } = object.metadata;
  const host = object.spec.endpoints[0]?.dnsName;
  return {
    name,
    uid,
    resourceVersion,
    labels,
    annotations,
    spec: { endpoints: object.spec.endpoints.map(endpointFields) },
    ...(host === undefined ? {} : { host }),
  };
}

/**
 * A listed Service: the only spec fields owned are the absence of a selector and of ports (a
 * selector would make external-dns publish pod addresses). `annotationPrefix` finds the
 * hostname annotation.
 */
export function observeService(object: Service, annotationPrefix: string): ObservedRecord {
  const { name, uid, resourceVersion, labels, annotations } = object.metadata;
  const host = annotations[`${annotationPrefix}hostname`];
  const { selector, ports } = object.spec;
  return {
    name,
    uid,
    resourceVersion,
    labels,
    annotations,
    spec: {
      ...(Object.keys(selector).length === 0 ? {} : { selector }),
      ...(ports.length === 0 ? {} : { ports }),
    },
    ...(host === undefined ? {} : { host }),
  };
}
