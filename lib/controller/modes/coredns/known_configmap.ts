/**
 * The target ConfigMap read once per version: a {@linkcode ConfigMapApi} that answers a read of
 * the watched ConfigMap from the copy it last read or wrote while the watch says that copy is
 * still current, instead of fetching the whole Corefile again.
 *
 * Why: with 20,000 hosts the Corefile is about 1 MB. Each of our writes comes back as a watch
 * event on the target, which calls the sink; the sink read the ConfigMap again (1 MB over the
 * wire, parsed, decoded) only to find its own write. Now the watch keeps metadata only, and the
 * text is kept once, here, as the API server answered our last GET or PATCH.
 *
 * Decisions:
 * - The copy is used only when the watch's cached object has the same resourceVersion; an edit
 *   by someone else changes it, so the next read goes to the API server. Before the watch has
 *   listed (or when RBAC forbids watching) every read goes to the API server.
 * - A write drops the copy, and a successful one keeps what the API server answered: after a
 *   409 the retry reads the current object, as the watch may lag behind the API server.
 * - Only the one object is remembered; every other call passes straight through.
 *
 * Effects: none of its own; calls the wrapped client.
 *
 * @module
 */

import type { StoreView } from "../../../reflector/store.ts";
import { type KubeObject, objectKey } from "../../../resources/kube_object.ts";
import type { ResourceType } from "../../../resources/resource_type.ts";
import type { ConfigMapApi } from "./corefile_location.ts";

/** What {@linkcode knownConfigMapApi} wraps. */
export interface KnownConfigMapOptions {
  /** The client that does the calls. */
  readonly client: ConfigMapApi;
  /** The watched ConfigMap's cache (metadata is enough) that says which version is current. */
  readonly watched: StoreView<KubeObject>;
  /** The ConfigMap's namespace and name. */
  readonly ref: { readonly namespace: string; readonly name: string };
}

/** The last copy read or written, with the type it was decoded as. */
interface Known {
  readonly type: ResourceType<KubeObject>;
  readonly object: KubeObject;
}

/**
 * A client whose reads of `options.ref` are answered from the last copy while the watch agrees
 * it is current.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../../kube/client.ts";
 * import type { StoreView } from "../../../reflector/store.ts";
 * import { CONFIG_MAP } from "../../../resources/config_map.ts";
 * import type { KubeObject } from "../../../resources/kube_object.ts";
 * import { knownConfigMapApi } from "./known_configmap.ts";
 *
 * declare const client: KubeClient;
 * declare const watched: StoreView<KubeObject>; // the target's watch, metadata only
 * const ref = { namespace: "kube-system", name: "coredns" };
 * const api = knownConfigMapApi({ client, watched, ref });
 * const first = await api.get(CONFIG_MAP, ref); // from the API server
 * const again = await api.get(CONFIG_MAP, ref); // the same copy, while the watch shows its version
 * ```
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
      // Any write, failed or not, drops the copy: after a 409 the retry must read the current object.
      known = undefined;
      return remember(type, await client.mergePatch(type, ref, patch, patchOptions));
    },
  };
}
