/**
 * Core `v1` ConfigMap: its text data (the CoreDNS Corefile lives here) and the names of its
 * binary entries, which are never read but must not be mistaken for absent.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1ConfigMap } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import { IDENTITY_ONLY, type KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A ConfigMap as the controller sees it. */
export interface ConfigMap extends KubeObject {
  /** `data`: key to UTF-8 text. */
  readonly data: Readonly<Record<string, string>>;
  /** The keys of `binaryData` (values are base64 and never needed). */
  readonly binaryDataKeys: readonly string[];
  /** `immutable: true` ConfigMaps cannot be updated; writers should say so instead of retrying. */
  readonly immutable: boolean;
}

/** The ConfigMap resource type. */
export const CONFIG_MAP: ResourceType<ConfigMap> = defineResourceType<V1ConfigMap, ConfigMap>(
  { group: "", version: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  (root, metadata) => ({
    metadata,
    data: root.stringMap("data"),
    binaryDataKeys: root.keys("binaryData"),
    immutable: root.optionalBoolean("immutable") ?? false,
  }),
);

/** Decodes a raw ConfigMap; never throws. */
export const decodeConfigMap: Decoder<ConfigMap> = CONFIG_MAP.decode;

/**
 * A ConfigMap's identity only (name, namespace, resourceVersion): what a watch needs to say
 * that a ConfigMap changed without caching its data. The CoreDNS modes watch their target this
 * way, so a 1 MB Corefile is not kept in the watch cache as well as by the sink.
 */
export const CONFIG_MAP_VERSION: ResourceType<KubeObject> = defineResourceType<V1ConfigMap, KubeObject>(
  {
    group: "",
    version: "v1",
    kind: "ConfigMap",
    plural: "configmaps",
    namespaced: true,
    metadata: IDENTITY_ONLY,
  },
  (_root, metadata) => ({ metadata }),
);
