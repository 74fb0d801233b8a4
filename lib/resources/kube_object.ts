/**
 * What every Kubernetes object shares: its metadata, decoded at the boundary, and its cache key.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, asStringMap, type Decoded } from "./json.ts";

/** One entry of `metadata.ownerReferences` (a Pod's ReplicaSet, a ReplicaSet's Deployment). */
export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  /** True on the one owner that manages the object. */
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
  readonly creationTimestamp?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly ownerReferences: readonly OwnerReference[];
}

/** Any decoded object: metadata plus a kind-specific body. */
export interface KubeObject {
  readonly metadata: ObjectMeta;
}

/** The cache key: `namespace/name`, or `name` for cluster-scoped objects. */
export function objectKey(metadata: Pick<ObjectMeta, "name" | "namespace">): string {
  return metadata.namespace === "" ? metadata.name : `${metadata.namespace}/${metadata.name}`;
}

/** The key of an object that may not decode, for naming it when refused; `"?"` without a name. */
export function rawObjectKey(raw: unknown): string {
  const metadata = asObject(asObject(raw)?.metadata);
  const name = typeof metadata?.name === "string" ? metadata.name : "";
  const namespace = typeof metadata?.namespace === "string" ? metadata.namespace : "";
  return name === "" ? "?" : objectKey({ name, namespace });
}

/**
 * Which of labels, annotations and owners a kind keeps (default all), so a large cache does not
 * hold annotations nothing reads (`last-applied-configuration`). Dropped parts are not validated.
 */
export interface MetadataShape {
  /** `"all"` (default), or the only annotation keys kept. */
  readonly annotations?: "all" | readonly string[];
  readonly labels?: boolean;
  readonly ownerReferences?: boolean;
}

/** Identity only: the shape of the hostname sources (Ingress, Gateway, the routes). */
export const IDENTITY_ONLY: MetadataShape = { annotations: [], labels: false, ownerReferences: false };

const NO_STRINGS: Readonly<Record<string, string>> = Object.freeze({});
const NO_OWNERS: readonly OwnerReference[] = Object.freeze([]);

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

/** Decodes `metadata`; name and resourceVersion (a watch resumes from it) are required. */
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

/** An entry missing a required string fails the object: the API server never stores one. */
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
