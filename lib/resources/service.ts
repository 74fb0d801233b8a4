/**
 * Core `v1` Service, narrowed to what locating the ingress controller needs.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Service } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { Fields } from "./fields.ts";
import type { KubeObject, MetadataShape, ObjectMeta } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One port of a Service. */
export interface ServicePort {
  readonly name?: string;
  /** `TCP` when absent. */
  readonly protocol: string;
  readonly port: number;
  /** Absent: the same as `port`. */
  readonly targetPort?: number | string;
}

/** A Service as the controller sees it. */
export interface Service extends KubeObject {
  readonly spec: {
    /** `ClusterIP` when absent. */
    readonly type: string;
    /** `None` when headless; absent before allocation or for `ExternalName`. */
    readonly clusterIP?: string;
    /** One per IP family; the first equals `clusterIP`. */
    readonly clusterIPs: readonly string[];
    readonly ports: readonly ServicePort[];
    readonly selector: Readonly<Record<string, string>>;
  };
  /** `ipMode` is `VIP` or `Proxy` (KEP-1860). */
  readonly status: {
    readonly loadBalancer: {
      readonly ingress: readonly {
        readonly ip?: string;
        readonly hostname?: string;
        readonly ipMode?: string;
      }[];
    };
  };
}

/** Reads a Service from the wire. */
function buildService(root: Fields<V1Service>, metadata: ObjectMeta): Service {
  const spec = root.object("spec");
  const clusterIP = spec.optionalString("clusterIP");
  return {
    metadata,
    spec: {
      type: spec.optionalString("type") || "ClusterIP",
      ...(clusterIP === undefined || clusterIP === "" ? {} : { clusterIP }),
      clusterIPs: spec.strings("clusterIPs"),
      ports: spec.objects("ports").map((port) => {
        const name = port.optionalString("name");
        const targetPort = port.optionalIntOrString("targetPort");
        return {
          ...(name === undefined || name === "" ? {} : { name }),
          protocol: port.optionalString("protocol") || "TCP",
          port: port.port("port"),
          ...(targetPort === undefined ? {} : { targetPort }),
        };
      }),
      selector: spec.stringMap("selector"),
    },
    status: {
      loadBalancer: {
        ingress: root.object("status").object("loadBalancer").objects("ingress").map((entry) => {
          const ip = entry.optionalString("ip");
          const hostname = entry.optionalString("hostname");
          const ipMode = entry.optionalString("ipMode");
          return {
            ...(ip === undefined ? {} : { ip }),
            ...(hostname === undefined ? {} : { hostname }),
            ...(ipMode === undefined ? {} : { ipMode }),
          };
        }),
      },
    },
  };
}

/**
 * The Service resource type keeping only the metadata `shape` names, for a cache of every Service
 * in the cluster (`--routes` reads one annotation; `last-applied-configuration` would be held too).
 */
export function serviceType(shape?: MetadataShape): ResourceType<Service> {
  return defineResourceType<V1Service, Service>(
    {
      group: "",
      version: "v1",
      kind: "Service",
      plural: "services",
      namespaced: true,
      ...(shape === undefined ? {} : { metadata: shape }),
    },
    buildService,
  );
}

/** The Service resource type. */
export const SERVICE: ResourceType<Service> = serviceType();

/** Decodes a raw Service; never throws. */
export const decodeService: Decoder<Service> = SERVICE.decode;
