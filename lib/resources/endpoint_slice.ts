/**
 * `discovery.k8s.io/v1` EndpointSlice, narrowed to what publishing a Service's endpoints needs:
 * the address family of the slice and, per endpoint, its addresses, its `ready` condition and
 * the Node it runs on. The `kubernetes.io/service-name` label that ties a slice to its Service
 * is in the metadata.
 *
 * `conditions.ready` keeps the wire's three states: `true`, `false` and absent (`undefined`).
 * The API says an absent `ready` means "unknown, treat as ready", and a reader that wants that
 * rule applies it itself, so a test can tell the two apart.
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

/** One endpoint of a slice: a backend (for the `kubernetes` Service, one API server). */
export interface Endpoint {
  /** One or more addresses of the slice's `addressType`; the API server validates them. */
  readonly addresses: readonly string[];
  readonly conditions: {
    /** `undefined` when the endpoint controller did not say; the API reads that as ready. */
    readonly ready?: boolean;
  };
  /** The Node hosting the endpoint, when the writer set it. */
  readonly nodeName?: string;
}

/** An EndpointSlice as its readers see it. */
export interface EndpointSlice extends KubeObject {
  /** `IPv4`, `IPv6` or `FQDN` (the only values the API accepts), as written. */
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
