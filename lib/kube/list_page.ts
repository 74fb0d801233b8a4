/**
 * Decodes a list answer (`{metadata: {resourceVersion, continue}, items}`) into a
 * {@linkcode ListPage}. Items that fail to decode are reported in `rejected` with why, never
 * thrown, so one bad object cannot stop a sync; an answer that is not a list at all is a
 * {@linkcode KubeDecodeError}, as nothing in it can be trusted.
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
  /** The item kind's decoder. */
  readonly decode: Decoder<T>;
  /** `LIST /api/v1/…`, for the error message. */
  readonly request: string;
}

/**
 * The page in a list answer. Throws {@linkcode KubeDecodeError} when the answer is not an
 * object, has no `metadata.resourceVersion` (nothing could be watched from it) or its `items`
 * is not a list.
 *
 * @example
 * ```ts
 * import { decodeConfigMap } from "../resources/config_map.ts";
 * import { decodeListPage } from "./list_page.ts";
 *
 * const raw = {
 *   metadata: { resourceVersion: "7" },
 *   items: [{ metadata: { name: "bad", namespace: "ns", resourceVersion: "6" }, data: { n: 1 } }],
 * };
 * const page = decodeListPage(raw, { decode: decodeConfigMap, request: "LIST /api/v1/configmaps" });
 * page.items; // [], the ConfigMaps that decoded
 * page.rejected; // [{ key: "ns/bad", reason: "data.n is a number, not a string" }]
 * ```
 */
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
