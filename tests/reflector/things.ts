/**
 * A minimal object kind for reflector and store tests, and helpers to compare caches.
 *
 * @module
 */

import type { KubeObject, ObjectMeta } from "../../lib/resources/kube_object.ts";

/** A namespaced test object with one payload field. */
export interface Thing extends KubeObject {
  readonly metadata: ObjectMeta;
  readonly data: string;
}

/** A Thing in namespace `default` (or `namespace`) at resourceVersion `rv`. */
export function thing(name: string, rv: number | string, data = "", namespace = "default"): Thing {
  return {
    metadata: {
      name,
      namespace,
      uid: `uid-${namespace}-${name}`,
      resourceVersion: String(rv),
      labels: {},
      annotations: {},
      ownerReferences: [],
    },
    data,
  };
}

/** `namespace/name → resourceVersion` of everything in `objects`, sorted by key. */
export function versions(objects: Iterable<KubeObject>): Record<string, string> {
  const entries = [...objects].map((
    o,
  ) => [`${o.metadata.namespace}/${o.metadata.name}`, o.metadata.resourceVersion]);
  return Object.fromEntries(entries.sort(([a], [b]) => (a ?? "").localeCompare(b ?? "")));
}
