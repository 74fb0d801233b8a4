/**
 * `discovery.k8s.io/v1` EndpointSlice, narrowed to what publishing a Service's endpoints needs.
 * `conditions.ready` keeps absent apart from `true` (the API reads it as ready); readers decide.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1EndpointSlice } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** The label that names the Service an EndpointSlice belongs to. */
export const SERVICE_NAME_LABEL = "kubernetes.io/service-name";

/** One backend of a slice (for the `kubernetes` Service, one API server). */
export interface Endpoint {
  readonly addresses: readonly string[];
  readonly conditions: {
    readonly ready?: boolean;
  };
  readonly nodeName?: string;
}

/** An EndpointSlice as its readers see it. */
export interface EndpointSlice extends KubeObject {
  /** `IPv4`, `IPv6` or `FQDN`. */
  readonly addressType: string;
  readonly endpoints: readonly Endpoint[];
}

/** The EndpointSlice resource type. */
export const ENDPOINT_SLICE: ResourceType<EndpointSlice> = defineResourceType<V1EndpointSlice, EndpointSlice>(
  {
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    namespaced: true,
  },
  (root, metadata) => ({
    metadata,
    addressType: root.string("addressType"),
    endpoints: root.objects("endpoints").map((endpoint) => {
      const ready = endpoint.object("conditions").optionalBoolean("ready");
      const nodeName = endpoint.optionalString("nodeName");
      return {
        addresses: endpoint.strings("addresses"),
        conditions: ready === undefined ? {} : { ready },
        ...(nodeName === undefined || nodeName === "" ? {} : { nodeName }),
      };
    }),
  }),
);

/** Decodes a raw EndpointSlice; never throws. */
export const decodeEndpointSlice: Decoder<EndpointSlice> = ENDPOINT_SLICE.decode;
