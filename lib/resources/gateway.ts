/**
 * `gateway.networking.k8s.io/v1` Gateway, narrowed to its class, listeners and status addresses.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Decoder } from "./json.ts";
import { IDENTITY_ONLY, type KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A Gateway on the wire (the fields read here). */
export interface GatewayWire {
  metadata?: unknown;
  spec?: {
    gatewayClassName?: string;
    listeners?: { name?: string; hostname?: string; protocol?: string; port?: number }[];
  };
  status?: { addresses?: { type?: string; value?: string }[] };
}

/** Where the Gateway accepts traffic, and for which hostname. */
export interface GatewayListener {
  readonly name: string;
  /** Absent: every hostname; may be a wildcard (`*.example.com`). */
  readonly hostname?: string;
  readonly protocol: string;
  readonly port: number;
}

/** A Gateway as the controller sees it. */
export interface Gateway extends KubeObject {
  readonly spec: {
    readonly gatewayClassName: string;
    readonly listeners: readonly GatewayListener[];
  };
  readonly status: {
    /** `type` defaults to `IPAddress`. */
    readonly addresses: readonly { readonly type: string; readonly value: string }[];
  };
}

/** The Gateway API's group. */
export const GATEWAY_API_GROUP = "gateway.networking.k8s.io";

/** The Gateway resource type (Gateway API CRDs; may be missing from a cluster). */
export const GATEWAY: ResourceType<Gateway> = defineResourceType<GatewayWire, Gateway>(
  {
    group: GATEWAY_API_GROUP,
    version: "v1",
    kind: "Gateway",
    plural: "gateways",
    namespaced: true,
    metadata: IDENTITY_ONLY,
  },
  (root, metadata) => {
    const spec = root.object("spec");
    return {
      metadata,
      spec: {
        gatewayClassName: spec.string("gatewayClassName"),
        listeners: spec.objects("listeners").map((listener) => {
          const hostname = listener.optionalString("hostname");
          return {
            name: listener.string("name"),
            ...(hostname === undefined || hostname === "" ? {} : { hostname }),
            protocol: listener.string("protocol"),
            port: listener.port("port"),
          };
        }),
      },
      status: {
        addresses: root.object("status").objects("addresses").map((address) => ({
          type: address.optionalString("type") ?? "IPAddress",
          value: address.string("value"),
        })),
      },
    };
  },
);

/** Decodes a raw Gateway; never throws. */
export const decodeGateway: Decoder<Gateway> = GATEWAY.decode;
