/**
 * external-dns `externaldns.k8s.io/v1alpha1` DNSEndpoint: records for its CRD source to publish.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, type Decoder } from "./json.ts";
import { type KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One provider-specific setting of an endpoint (for example Cloudflare's proxied flag). */
export interface ProviderSpecificProperty {
  readonly name: string;
  readonly value: string;
}

/** A DNSEndpoint on the wire (the fields read here). */
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
  status?: { observedGeneration?: number };
}

/** One DNS record set. */
export interface Endpoint {
  readonly dnsName: string;
  /** `A`, `AAAA`, `CNAME`, `TXT`, …; external-dns ignores endpoints without one. */
  readonly recordType?: string;
  readonly targets: readonly string[];
  /** Seconds; absent: the provider's default. */
  readonly recordTTL?: number;
  readonly labels: Readonly<Record<string, string>>;
  readonly providerSpecific: readonly ProviderSpecificProperty[];
}

/** `status.observedGeneration` as found; `invalid` is reported rather than failing the object. */
export type ObservedGeneration =
  | { readonly kind: "absent" }
  | { readonly kind: "value"; readonly value: number }
  | { readonly kind: "invalid"; readonly raw: string };

/** A DNSEndpoint as the controller sees it. */
export interface DnsEndpoint extends KubeObject {
  readonly spec: { readonly endpoints: readonly Endpoint[] };
  /** Written by external-dns; a malformed status never fails the object. */
  readonly status: { readonly observedGeneration: ObservedGeneration };
}

/** Reads `observedGeneration` from a raw `status`; a non-object status reads as `absent`. */
export function decodeObservedGeneration(status: unknown): ObservedGeneration {
  const value = asObject(status)?.observedGeneration;
  if (value === undefined || value === null) return { kind: "absent" };
  if (typeof value === "number" && Number.isInteger(value)) return { kind: "value", value };
  return { kind: "invalid", raw: JSON.stringify(value) ?? String(value) };
}

/** The DNSEndpoint resource type (external-dns CRD; may be missing from a cluster). */
export const DNS_ENDPOINT: ResourceType<DnsEndpoint> = defineResourceType<DnsEndpointWire, DnsEndpoint>(
  {
    group: "externaldns.k8s.io",
    version: "v1alpha1",
    kind: "DNSEndpoint",
    plural: "dnsendpoints",
    namespaced: true,
  },
  (root, metadata) => ({
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
    status: { observedGeneration: decodeObservedGeneration(root.unchecked("status")) },
  }),
);

/** Decodes a raw DNSEndpoint; never throws. */
export const decodeDnsEndpoint: Decoder<DnsEndpoint> = DNS_ENDPOINT.decode;
