/**
 * The shape every Kubernetes object shares: its metadata, decoded at the boundary, and the cache
 * key built from it. Per-kind decoders (the other files of this folder) build on these.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, asStringMap, type Decoded } from "./json.ts";

/**
 * One entry of `metadata.ownerReferences`: the object that owns this one (a ReplicaSet's
 * Deployment, a Pod's ReplicaSet). Walking them finds the workload a Pod belongs to.
 */
export interface OwnerReference {
  /** `apps/v1`. */
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  /** True on the one owner that manages the object; absent on the wire reads as `undefined`. */
  readonly controller?: boolean;
}

/** The metadata fields the controller uses. */
export interface ObjectMeta {
  readonly name: string;
  /** Empty for cluster-scoped objects. */
  readonly namespace: string;
  readonly uid: string;
  readonly resourceVersion: string;
  readonly generation?: number;
  /** When the server created the object (RFC 3339, e.g. `2026-01-02T03:04:05Z`), when it says. */
  readonly creationTimestamp?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  /** The objects this one belongs to; `[]` when it has none. */
  readonly ownerReferences: readonly OwnerReference[];
}

/** Any decoded object: metadata plus a kind-specific body. */
export interface KubeObject {
  readonly metadata: ObjectMeta;
}

/** `namespace/name`, or just `name` for cluster-scoped objects: the cache key. */
export function objectKey(metadata: Pick<ObjectMeta, "name" | "namespace">): string {
  return metadata.namespace === "" ? metadata.name : `${metadata.namespace}/${metadata.name}`;
}

/**
 * The key of an object that may not decode, for saying which one was refused: `namespace/name`
 * as far as its metadata tells, or `"?"` when it has no name.
 *
 * @example
 * ```ts
 * import { rawObjectKey } from "./kube_object.ts";
 *
 * rawObjectKey({ metadata: { name: "web", namespace: "shop" }, spec: 42 }); // "shop/web"
 * rawObjectKey("not an object"); // "?"
 * ```
 */
export function rawObjectKey(raw: unknown): string {
  const metadata = asObject(asObject(raw)?.metadata);
  const name = typeof metadata?.name === "string" ? metadata.name : "";
  const namespace = typeof metadata?.namespace === "string" ? metadata.namespace : "";
  return name === "" ? "?" : objectKey({ name, namespace });
}

/**
 * Which parts of `metadata` beyond its identity (name, namespace, uid, resourceVersion,
 * generation, creationTimestamp) a kind keeps. A cache of 10,000 Ingresses held every label and
 * annotation (cert-manager's, a CD tool's `last-applied-configuration`) that nothing reads; a
 * kind that reads none of them says so here and its objects carry shared empty values instead.
 * What is dropped is not validated either. Default: everything is kept.
 */
export interface MetadataShape {
  /** `"all"` (default), or the only annotation keys kept (`[]`: none). */
  readonly annotations?: "all" | readonly string[];
  /** Keep `metadata.labels` (default true). */
  readonly labels?: boolean;
  /** Keep `metadata.ownerReferences` (default true). */
  readonly ownerReferences?: boolean;
}

/**
 * The shape of the hostname sources (Ingress, Gateway, the routes): identity only. Hostname
 * discovery reads name, namespace and resourceVersion; Events name the uid.
 */
export const IDENTITY_ONLY: MetadataShape = { annotations: [], labels: false, ownerReferences: false };

const NO_STRINGS: Readonly<Record<string, string>> = Object.freeze({});
const NO_OWNERS: readonly OwnerReference[] = Object.freeze([]);

/** The annotations `keep` names, checked; `undefined` when one of them is not a string. */
function keptAnnotations(
  value: unknown,
  keep: readonly string[],
): Readonly<Record<string, string>> | undefined {
  if (keep.length === 0) return NO_STRINGS;
  const all = asObject(value);
  if (all === undefined) return value === undefined || value === null ? NO_STRINGS : undefined;
  const out: Record<string, string> = {};
  for (const key of keep) {
    const entry = all[key];
    if (entry === undefined) continue;
    if (typeof entry !== "string") return undefined;
    out[key] = entry;
  }
  return out;
}

/**
 * Decodes `metadata`. Name and resourceVersion are required (a watch event without a
 * resourceVersion cannot be resumed from); the rest defaults to empty. `shape` drops the parts a
 * kind never reads ({@linkcode MetadataShape}).
 *
 * @example
 * ```ts
 * import { decodeMetadata, IDENTITY_ONLY } from "./kube_object.ts";
 *
 * const raw = { name: "web", resourceVersion: "7", annotations: { "a/b": "x".repeat(400) } };
 * decodeMetadata(raw, IDENTITY_ONLY); // ok, with annotations: {}
 * ```
 */
export function decodeMetadata(value: unknown, shape: MetadataShape = {}): Decoded<ObjectMeta> {
  const meta = asObject(value);
  if (meta === undefined) return { ok: false, reason: "metadata is missing or not an object" };
  const { name, namespace, uid, resourceVersion, generation, creationTimestamp } = meta;
  if (typeof name !== "string" || name === "") return { ok: false, reason: "metadata.name is missing" };
  if (typeof resourceVersion !== "string" || resourceVersion === "") {
    return { ok: false, reason: "metadata.resourceVersion is missing" };
  }
  if (namespace !== undefined && typeof namespace !== "string") {
    return { ok: false, reason: "metadata.namespace is not a string" };
  }
  const labels = shape.labels === false ? NO_STRINGS : asStringMap(meta.labels);
  const keep = shape.annotations ?? "all";
  const annotations = keep === "all"
    ? asStringMap(meta.annotations)
    : keptAnnotations(meta.annotations, keep);
  if (labels === undefined) return { ok: false, reason: "metadata.labels is not a map of strings" };
  if (annotations === undefined) return { ok: false, reason: "metadata.annotations is not a map of strings" };
  const ownerReferences = shape.ownerReferences === false
    ? { ok: true as const, value: NO_OWNERS }
    : decodeOwnerReferences(meta.ownerReferences);
  if (!ownerReferences.ok) return ownerReferences;
  return {
    ok: true,
    value: {
      name,
      namespace: namespace ?? "",
      uid: typeof uid === "string" ? uid : "",
      resourceVersion,
      ...(typeof generation === "number" ? { generation } : {}),
      ...(typeof creationTimestamp === "string" ? { creationTimestamp } : {}),
      labels,
      annotations,
      ownerReferences: ownerReferences.value,
    },
  };
}

const OWNER_REFERENCE_STRINGS = ["apiVersion", "kind", "name", "uid"] as const;

/**
 * `metadata.ownerReferences`: absent or `null` is `[]`; an entry missing one of its four
 * required strings fails the object, as the API server never stores such an entry.
 */
function decodeOwnerReferences(value: unknown): Decoded<readonly OwnerReference[]> {
  if (value === undefined || value === null) return { ok: true, value: [] };
  if (!Array.isArray(value)) return { ok: false, reason: "metadata.ownerReferences is not a list" };
  const out: OwnerReference[] = [];
  for (const [index, entry] of value.entries()) {
    const path = `metadata.ownerReferences[${index}]`;
    const reference = asObject(entry);
    if (reference === undefined) return { ok: false, reason: `${path} is not an object` };
    const strings: Partial<Record<(typeof OWNER_REFERENCE_STRINGS)[number], string>> = {};
    for (const key of OWNER_REFERENCE_STRINGS) {
      const field = reference[key];
      if (typeof field !== "string" || field === "") {
        return { ok: false, reason: `${path}.${key} is missing` };
      }
      strings[key] = field;
    }
    const { controller } = reference;
    if (controller !== undefined && controller !== null && typeof controller !== "boolean") {
      return { ok: false, reason: `${path}.controller is not a boolean` };
    }
    out.push({
      apiVersion: strings.apiVersion ?? "",
      kind: strings.kind ?? "",
      name: strings.name ?? "",
      uid: strings.uid ?? "",
      ...(typeof controller === "boolean" ? { controller } : {}),
    });
  }
  return { ok: true, value: out };
}
