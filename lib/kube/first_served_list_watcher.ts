/**
 * One list-watcher over several versions of a type (TLSRoute `v1`, `v1alpha3`, …): each fresh list
 * tries them in order, a 404 moving on, so a CRD upgrade is followed at the next relist with no
 * discovery call. Pages and watches use the version that answered (they share resourceVersions).
 *
 * Effects: none of its own; it calls the wrapped list-watchers.
 *
 * @module
 */

import type { KubeObject } from "../resources/kube_object.ts";
import { isNotFound } from "./errors.ts";
import type { ListOptions, ListPage, ListWatcher, WatchEvent, WatchOptions } from "./list_watch.ts";

/** The first of `versions` (newest first) served; if none, the last 404, as for a missing CRD. */
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
