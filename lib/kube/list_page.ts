/**
 * Decodes a list answer into a {@linkcode ListPage}. A bad item goes to `rejected`, so one object
 * cannot stop a sync; an answer that is not a list at all throws, as nothing in it can be trusted.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, type Decoder } from "../resources/json.ts";
import { rawObjectKey } from "../resources/kube_object.ts";
import { KubeDecodeError } from "./decode_error.ts";
import type { DecodeFailure, ListPage } from "./list_watch.ts";

/** Options for {@linkcode decodeListPage}. */
export interface DecodeListPageOptions<T> {
  readonly decode: Decoder<T>;
  readonly request: string;
}

/** The page in a list answer; {@linkcode KubeDecodeError} without `metadata.resourceVersion`. */
export function decodeListPage<T>(raw: unknown, options: DecodeListPageOptions<T>): ListPage<T> {
  const { request } = options;
  const body = asObject(raw);
  if (body === undefined) throw new KubeDecodeError(request, "the answer is not a JSON object");
  const metadata = asObject(body.metadata) ?? {};
  const resourceVersion = metadata.resourceVersion;
  if (typeof resourceVersion !== "string" || resourceVersion === "") {
    throw new KubeDecodeError(request, "the list has no metadata.resourceVersion");
  }
  const rawItems = body.items ?? [];
  if (!Array.isArray(rawItems)) throw new KubeDecodeError(request, "items is not a list");
  const items: T[] = [];
  const rejected: DecodeFailure[] = [];
  for (const item of rawItems) {
    const decoded = options.decode(item);
    if (decoded.ok) items.push(decoded.value);
    else rejected.push({ key: rawObjectKey(item), reason: decoded.reason });
  }
  const next = metadata.continue;
  return {
    items,
    resourceVersion,
    ...(typeof next === "string" && next !== "" ? { continue: next } : {}),
    rejected,
  };
}
