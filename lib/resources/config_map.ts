/**
 * Core `v1` ConfigMap: its text data (the Corefile lives here) and its binary keys, never read
 * but not to be mistaken for absent.
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
  readonly data: Readonly<Record<string, string>>;
  readonly binaryDataKeys: readonly string[];
  /** Writers should say it cannot be updated instead of retrying. */
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

/** A ConfigMap's identity only, to watch for changes without caching a 1 MB Corefile twice. */
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
