/**
 * One list-watcher over several versions of the same resource type (TLSRoute at `v1`,
 * `v1alpha3`, `v1alpha2`): each fresh list tries the versions in order and keeps the first one
 * the API server serves; a 404 (that version is not served) moves on to the next, any other
 * failure is the answer. When no version is served, the last 404 is rethrown, so the reflector
 * sees an ordinary "type not served" and retries slowly, as for any missing CRD.
 *
 * Decisions: trying beats asking discovery first: the list is the request the reflector makes
 * anyway, so a cluster that serves the newest version pays nothing extra, and the choice is made
 * again on every fresh list (a CRD bundle upgraded from `v1alpha2` to `v1` is followed at the
 * next relist). Continuation pages and watches go to the version that answered the last fresh
 * list: versions of one CRD share its storage, so their resourceVersions are interchangeable.
 *
 * Effects: none of its own; it calls the wrapped list-watchers.
 *
 * @module
 */

import type { KubeObject } from "../resources/kube_object.ts";
import { isNotFound } from "./errors.ts";
import type { ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from "./list_watch.ts";

/**
 * A list-watcher that uses the first of `versions` the server serves (see the module doc).
 * `versions` must name the same kind and scope, newest first, and hold at least one.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "./client.ts";
 * import { firstServedListWatcher } from "./first_served_list_watcher.ts";
 * import { TLS_ROUTE_VERSIONS } from "../resources/tls_route.ts";
 *
 * declare const client: KubeClient;
 * const tlsRoutes = firstServedListWatcher(TLS_ROUTE_VERSIONS.map((type) => client.listWatcher(type)));
 * tlsRoutes.description;
 * // "gateway.networking.k8s.io/v1 tlsroutes, else gateway.networking.k8s.io/v1alpha3 tlsroutes, else …"
 * ```
 */
export function firstServedListWatcher<T extends KubeObject>(
  versions: readonly ListWatcher<T>[],
): ListWatcher<T> {
  const first = versions[0];
  if (first === undefined) throw new Error("firstServedListWatcher needs at least one version");
  let current: ListWatcher<T> = first;
  return {
    description: versions.map((version) => version.description).join(", else "),
    async list(options: ListOptions): Promise<ListPage<T>> {
      if (options.continue !== undefined) return await current.list(options);
      let notServed: unknown;
      for (const version of versions) {
        try {
          const page = await version.list(options);
          current = version;
          return page;
        } catch (error) {
          if (!isNotFound(error)) throw error;
          notServed = error;
        }
      }
      throw notServed;
    },
    watch(options: WatchOptions): AsyncIterable<WatchEvent<T>> {
      return current.watch(options);
    },
  };
}
