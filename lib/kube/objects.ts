/**
 * The shapes every Kubernetes object and API response share, decoded at the boundary: metadata,
 * list pages and watch events. Per-kind decoders (in `lib/resources/`) build on these.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { StatusDetails } from "./errors.ts";

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
}

/** Any decoded object: metadata plus a kind-specific body. */
export interface KubeObject {
  readonly metadata: ObjectMeta;
}

/** `namespace/name`, or just `name` for cluster-scoped objects: the cache key. */
export function objectKey(metadata: Pick<ObjectMeta, "name" | "namespace">): string {
  return metadata.namespace === "" ? metadata.name : `${metadata.namespace}/${metadata.name}`;
}

/** One page of a list. */
export interface ListPage<T> {
  readonly items: readonly T[];
  /** The collection's resourceVersion: watch from here to see every later change. */
  readonly resourceVersion: string;
  /** Set when more pages follow. */
  readonly continue?: string;
  /** Items that failed to decode, skipped (with why), so one bad object cannot stop a sync. */
  readonly rejected: readonly DecodeFailure[];
}

/** An object that could not be decoded, and why. */
export interface DecodeFailure {
  /** `namespace/name` when it could be read, else `"?"`. */
  readonly key: string;
  readonly reason: string;
}

/** One event of a watch stream, decoded. */
export type WatchEvent<T> =
  | { readonly type: "ADDED" | "MODIFIED" | "DELETED"; readonly object: T }
  /** Only the resourceVersion is meaningful: everything up to it has been sent. */
  | { readonly type: "BOOKMARK"; readonly resourceVersion: string }
  /** The server ended the stream with a Status (410 Expired, 500, 403, …). */
  | { readonly type: "ERROR"; readonly status: StatusDetails }
  /** An object of the stream could not be decoded; it is skipped, the stream continues. */
  | { readonly type: "REJECTED"; readonly resourceVersion: string; readonly failure: DecodeFailure };

/** A decoder's answer: the typed object, or why the raw value was refused. */
export type Decoded<T> = { readonly ok: true; readonly value: T } | {
  readonly ok: false;
  readonly reason: string;
};

/** Helpers for writing decoders without `any`. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** The value as a plain object, or `undefined`. */
export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as JsonObject
    : undefined;
}

/** A string-to-string map (labels, annotations, ConfigMap data); other values make it invalid. */
export function asStringMap(value: unknown): Readonly<Record<string, string>> | undefined {
  if (value === undefined || value === null) return {};
  const object = asObject(value);
  if (object === undefined) return undefined;
  for (const entry of Object.values(object)) if (typeof entry !== "string") return undefined;
  return object as Readonly<Record<string, string>>;
}

/**
 * Decodes `metadata`. Name and resourceVersion are required (a watch event without a
 * resourceVersion cannot be resumed from); the rest defaults to empty.
 */
export function decodeMetadata(value: unknown): Decoded<ObjectMeta> {
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
  const labels = asStringMap(meta.labels);
  const annotations = asStringMap(meta.annotations);
  if (labels === undefined) return { ok: false, reason: "metadata.labels is not a map of strings" };
  if (annotations === undefined) return { ok: false, reason: "metadata.annotations is not a map of strings" };
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
    },
  };
}
