/**
 * `apps/v1` Deployment as a DNS opt-in needs it: metadata, the pod template's labels, annotations
 * and DNS settings. `dnsConfig` keeps absent apart from empty, so restored settings are byte-exact.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Deployment, V1PodDNSConfig } from "@kubernetes/client-node";
import type { Fields } from "./fields.ts";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One `dnsConfig.options` entry, as written. */
export interface PodDnsOption {
  readonly name?: string;
  readonly value?: string;
}

/** A pod's `dnsConfig`; absent on the wire is absent here. */
export interface PodDnsConfig {
  readonly nameservers?: readonly string[];
  readonly searches?: readonly string[];
  readonly options?: readonly PodDnsOption[];
}

/** The pod template's DNS settings. */
export interface PodTemplateDns {
  readonly dnsPolicy?: string;
  readonly dnsConfig?: PodDnsConfig;
  readonly hostNetwork: boolean;
}

/** A Deployment as its DNS opt-in sees it. */
export interface Deployment extends KubeObject {
  readonly spec: {
    readonly template: {
      readonly metadata: {
        readonly labels: Readonly<Record<string, string>>;
        readonly annotations: Readonly<Record<string, string>>;
      };
      readonly spec: PodTemplateDns;
    };
  };
}

function decodeDnsConfig(config: Fields<V1PodDNSConfig>): PodDnsConfig {
  return {
    ...(config.has("nameservers") ? { nameservers: config.strings("nameservers") } : {}),
    ...(config.has("searches") ? { searches: config.strings("searches") } : {}),
    ...(config.has("options")
      ? {
        options: config.objects("options").map((option) => {
          const name = option.optionalString("name");
          const value = option.optionalString("value");
          return { ...(name === undefined ? {} : { name }), ...(value === undefined ? {} : { value }) };
        }),
      }
      : {}),
  };
}

/** The Deployment resource type. */
export const DEPLOYMENT: ResourceType<Deployment> = defineResourceType<V1Deployment, Deployment>(
  { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true },
  (root, metadata) => {
    const template = root.object("spec").object("template");
    const templateMeta = template.object("metadata");
    const podSpec = template.object("spec");
    const dnsPolicy = podSpec.optionalString("dnsPolicy");
    return {
      metadata,
      spec: {
        template: {
          metadata: {
            labels: templateMeta.stringMap("labels"),
            annotations: templateMeta.stringMap("annotations"),
          },
          spec: {
            ...(dnsPolicy === undefined ? {} : { dnsPolicy }),
            ...(podSpec.has("dnsConfig") ? { dnsConfig: decodeDnsConfig(podSpec.object("dnsConfig")) } : {}),
            hostNetwork: podSpec.optionalBoolean("hostNetwork") ?? false,
          },
        },
      },
    };
  },
);

/** Decodes a raw Deployment; never throws. */
export const decodeDeployment: Decoder<Deployment> = DEPLOYMENT.decode;
