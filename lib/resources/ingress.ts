/**
 * `networking.k8s.io/v1` Ingress, narrowed to what hostname discovery reads.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Ingress } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import { IDENTITY_ONLY, type KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One address the ingress controller published for this Ingress. */
export interface LoadBalancerIngress {
  readonly ip?: string;
  readonly hostname?: string;
}

/** An Ingress as the controller sees it. */
export interface Ingress extends KubeObject {
  readonly spec: {
    /** The older `kubernetes.io/ingress.class` annotation is not read. */
    readonly ingressClassName?: string;
    /** A rule without a host (it matches every host) is kept. */
    readonly rules: readonly { readonly host?: string }[];
    readonly tls: readonly { readonly hosts: readonly string[] }[];
  };
  readonly status: {
    readonly loadBalancer: { readonly ingress: readonly LoadBalancerIngress[] };
  };
}

/** The Ingress resource type. */
export const INGRESS: ResourceType<Ingress> = defineResourceType<V1Ingress, Ingress>(
  {
    group: "networking.k8s.io",
    version: "v1",
    kind: "Ingress",
    plural: "ingresses",
    namespaced: true,
    metadata: IDENTITY_ONLY,
  },
  (root, metadata) => {
    const spec = root.object("spec");
    const ingressClassName = spec.optionalString("ingressClassName");
    const loadBalancer = root.object("status").object("loadBalancer");
    return {
      metadata,
      spec: {
        ...(ingressClassName === undefined ? {} : { ingressClassName }),
        rules: spec.objects("rules").map((rule) => {
          const host = rule.optionalString("host");
          return host === undefined || host === "" ? {} : { host };
        }),
        tls: spec.objects("tls").map((tls) => ({ hosts: tls.strings("hosts") })),
      },
      status: {
        loadBalancer: {
          ingress: loadBalancer.objects("ingress").map((entry) => {
            const ip = entry.optionalString("ip");
            const hostname = entry.optionalString("hostname");
            return { ...(ip === undefined ? {} : { ip }), ...(hostname === undefined ? {} : { hostname }) };
          }),
        },
      },
    };
  },
);

/** Decodes a raw Ingress; never throws. */
export const decodeIngress: Decoder<Ingress> = INGRESS.decode;
