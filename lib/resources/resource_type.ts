/**
 * A Kubernetes resource type (group, version, plural, scope) with its decoder, and its URL paths.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type ObjectBuilder, objectDecoder } from "./fields.ts";
import type { Decoded } from "./json.ts";
import type { KubeObject, MetadataShape } from "./kube_object.ts";

/** A resource type the client can list, watch and write. */
export interface ResourceType<T extends KubeObject> {
  /** API group; `""` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Never throws. */
  decode(raw: unknown): Decoded<T>;
}

/** `v1` or `networking.k8s.io/v1`. */
export function apiVersion(type: Pick<ResourceType<KubeObject>, "group" | "version">): string {
  return type.group === "" ? type.version : `${type.group}/${type.version}`;
}

/**
 * The URL path for a collection or one object; no `namespace` means all namespaces.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { INGRESS } from "./ingress.ts";
 * import { resourcePath } from "./resource_type.ts";
 *
 * assert.equal(
 *   resourcePath(INGRESS, { namespace: "shop", name: "web" }),
 *   "/apis/networking.k8s.io/v1/namespaces/shop/ingresses/web",
 * );
 * ```
 */
export function resourcePath(
  type: Pick<ResourceType<KubeObject>, "group" | "version" | "plural" | "namespaced">,
  where: { readonly namespace?: string; readonly name?: string } = {},
): string {
  const base = type.group === "" ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const scope = type.namespaced && where.namespace !== undefined
    ? `/namespaces/${encodeURIComponent(where.namespace)}`
    : "";
  const name = where.name === undefined ? "" : `/${encodeURIComponent(where.name)}`;
  return `${base}${scope}/${type.plural}${name}`;
}

/** Everything a {@linkcode ResourceType} says about a type except how to decode it. */
export type ResourceNames = Omit<ResourceType<KubeObject>, "decode">;

/** A resource type whose {@linkcode objectDecoder} checks the kind and apiVersion `names` imply. */
export function defineResourceType<W, T extends KubeObject>(
  names: ResourceNames & { readonly metadata?: MetadataShape },
  build: ObjectBuilder<W, T>,
): ResourceType<T> {
  const { metadata, ...type } = names;
  const identity = {
    apiVersion: apiVersion(type),
    kind: type.kind,
    ...(metadata === undefined ? {} : { metadata }),
  };
  return { ...type, decode: objectDecoder(identity, build) };
}
