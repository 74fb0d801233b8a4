/**
 * external-dns `externaldns.k8s.io/v1alpha1` DNSEndpoint: a list of DNS records for
 * external-dns' CRD source to publish. The CRD is not part of `@kubernetes/client-node`, so the
 * wire shape is declared here.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoded, KubeObject } from "../kube/objects.ts";
import { decodeKubeObject } from "./fields.ts";
import type { ResourceType } from "./resource_type.ts";

/** One provider-specific setting of an endpoint (for example Cloudflare's proxied flag). */
export interface ProviderSpecificProperty {
  readonly name: string;
  readonly value: string;
}

/** The fields of a DNSEndpoint as the API server sends them (only those read here). */
export interface DnsEndpointWire {
  metadata?: unknown;
  spec?: {
    endpoints?: {
      dnsName?: string;
      recordType?: string;
      targets?: string[];
      recordTTL?: number;
      labels?: Record<string, string>;
      providerSpecific?: { name?: string; value?: string }[];
    }[];
  };
}

/** One DNS record set. */
export interface Endpoint {
  readonly dnsName: string;
  /** `A`, `AAAA`, `CNAME`, `TXT`, …; external-dns ignores endpoints without one. */
  readonly recordType?: string;
  readonly targets: readonly string[];
  /** Seconds; absent means the provider's default. */
  readonly recordTTL?: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly providerSpecific: readonly ProviderSpecificProperty[];
}

/** A DNSEndpoint as the controller sees it. */
export interface DnsEndpoint extends KubeObject {
  readonly spec: { readonly endpoints: readonly Endpoint[] };
}

const DNS_ENDPOINT_KIND = { apiVersion: "externaldns.k8s.io/v1alpha1", kind: "DNSEndpoint" } as const;

/** Decodes a raw DNSEndpoint; never throws. */
export function decodeDnsEndpoint(raw: unknown): Decoded<DnsEndpoint> {
  return decodeKubeObject<DnsEndpointWire, DnsEndpoint>(raw, DNS_ENDPOINT_KIND, (root, metadata) => ({
    metadata,
    spec: {
      endpoints: root.object("spec").objects("endpoints").map((endpoint) => {
        const recordType = endpoint.optionalString("recordType");
        const recordTTL = endpoint.optionalInteger("recordTTL");
        return {
          dnsName: endpoint.string("dnsName"),
          ...(recordType === undefined || recordType === "" ? {} : { recordType }),
          targets: endpoint.strings("targets"),
          ...(recordTTL === undefined ? {} : { recordTTL }),
          labels: endpoint.stringMap("labels"),
          providerSpecific: endpoint.objects("providerSpecific").map((property) => ({
            name: property.string("name"),
            value: property.optionalString("value") ?? "",
          })),
        };
      }),
    },
  }));
}

/** The DNSEndpoint resource type (external-dns CRD; may be missing from a cluster). */
export const DNS_ENDPOINT: ResourceType<DnsEndpoint> = {
  group: "externaldns.k8s.io",
  version: "v1alpha1",
  kind: "DNSEndpoint",
  plural: "dnsendpoints",
  namespaced: true,
  decode: decodeDnsEndpoint,
};
