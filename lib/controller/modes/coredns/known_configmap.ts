/**
 * A {@linkcode ConfigMapApi} that answers reads of the watched target ConfigMap from its last copy
 * while the watch's resourceVersion says that copy is current.
 *
 * Effects: none of its own; calls the wrapped client.
 *
 * Why: each write echoes back as a watch event, and re-reading a 1 MB Corefile only to find our
 * own write was the cost. Any write drops the copy, so a retry after a 409 reads the server.
 *
 * @module
 */

import type { StoreView } from "../../../reflector/store.ts";
import { type KubeObject, objectKey } from "../../../resources/kube_object.ts";
import type { ResourceType } from "../../../resources/resource_type.ts";
import type { ConfigMapApi } from "./corefile_location.ts";

/** What {@linkcode knownConfigMapApi} wraps. */
export interface KnownConfigMapOptions {
  readonly client: ConfigMapApi;
  /** The target's watch cache (metadata is enough): says which version is current. */
  readonly watched: StoreView<KubeObject>;
  readonly ref: { readonly namespace: string; readonly name: string };
}

interface Known {
  readonly type: ResourceType<KubeObject>;
  readonly object: KubeObject;
}

/**
 * A client whose reads of `options.ref` are answered from the last copy while the watch agrees
 * it is current.
 */
export function knownConfigMapApi(options: KnownConfigMapOptions): ConfigMapApi {
  const { client, watched } = options;
  const key = objectKey({ namespace: options.ref.namespace, name: options.ref.name });
  const isTarget = (ref: { readonly namespace?: string; readonly name: string }) =>
    objectKey({ namespace: ref.namespace ?? "", name: ref.name }) === key;
  let known: Known | undefined;
  const remember = <T extends KubeObject>(type: ResourceType<T>, object: T): T => {
    known = { type, object };
    return object;
  };
  return {
    async get<T extends KubeObject>(
      type: ResourceType<T>,
      ref: Parameters<ConfigMapApi["get"]>[1],
      callOptions?: Parameters<ConfigMapApi["get"]>[2],
    ): Promise<T> {
      if (!isTarget(ref)) return await client.get(type, ref, callOptions);
      const current = watched.get(key)?.metadata.resourceVersion;
      // The same type object decoded it, so it is a T.
      if (known !== undefined && known.type === type && known.object.metadata.resourceVersion === current) {
        callOptions?.signal?.throwIfAborted();
        return known.object as T;
      }
      known = undefined;
      return remember(type, await client.get(type, ref, callOptions));
    },
    async mergePatch<T extends KubeObject>(
      type: ResourceType<T>,
      ref: Parameters<ConfigMapApi["mergePatch"]>[1],
      patch: Parameters<ConfigMapApi["mergePatch"]>[2],
      patchOptions?: Parameters<ConfigMapApi["mergePatch"]>[3],
    ): Promise<T> {
      if (!isTarget(ref)) return await client.mergePatch(type, ref, patch, patchOptions);
      // Dropped even if the write fails: after a 409 the retry must read the current object.
      known = undefined;
      return remember(type, await client.mergePatch(type, ref, patch, patchOptions));
    },
  };
}
