/**
 * Reading a whole collection in pages, as client-go's pager does: every page comes from the
 * same snapshot, and if the `continue` token expires mid-way (410 on page 2 or later) the pages
 * read are dropped and the collection is read again in one unpaged request. A 410 on the first
 * page is an error: the `resourceVersion` asked for is too old.
 *
 * Effects: only through the injected page reader and log.
 *
 * @module
 */

import type { Log } from "../util/logging.ts";
import { isGone } from "./errors.ts";
import type { DecodeFailure, ListPage } from "./list_watch.ts";

/** The page size when none is given (kube-rs' and kubectl's). */
export const DEFAULT_PAGE_SIZE = 500;

/** What {@linkcode pagedList} asks its reader for: one page, or (fallback) everything at once. */
export interface PageRequest {
  /** On the first page (and the unpaged fallback) only: the version asked for. */
  readonly resourceVersion?: string;
  /** Absent on the unpaged fallback. */
  readonly limit?: number;
  /** The token of the page before; absent on the first page. */
  readonly continue?: string;
}

/** Reads one page of the collection (a `LIST` request). */
export type PageReader<T> = (request: PageRequest) => Promise<ListPage<T>>;

/** Options for {@linkcode pagedList}. */
export interface PagedListOptions {
  /** `"0"` for the watch cache, a version for "at least this new", absent for a consistent read. */
  readonly resourceVersion?: string;
  /** Items per page. @default {DEFAULT_PAGE_SIZE} */
  readonly pageSize?: number;
  /** What is listed, for the log line: `v1 configmaps`. */
  readonly resource: string;
  /** Told (at debug) when an expired token makes the list start over unpaged. */
  readonly log: Log;
}

/**
 * Reads every page with `readPage` and joins them into one page (without `continue`), carrying
 * the rejected items of every page. Rejects with what `readPage` rejects with, except a 410 on a
 * later page, which is answered by the unpaged fallback.
 *
 * @example
 * ```ts
 * import { CONFIG_MAP } from "../resources/config_map.ts";
 * import { logger } from "../util/logging.ts";
 * import type { KubeClient } from "./client.ts";
 * import { pagedList } from "./paged_list.ts";
 *
 * declare const client: KubeClient;
 * const all = await pagedList(
 *   (request) => client.list(CONFIG_MAP, { ...request, namespace: "kube-system" }),
 *   { resource: "v1 configmaps", pageSize: 100, log: logger("kube") },
 * );
 * ```
 */
export async function pagedList<T>(readPage: PageReader<T>, options: PagedListOptions): Promise<ListPage<T>> {
  const first: PageRequest = options.resourceVersion === undefined
    ? {}
    : { resourceVersion: options.resourceVersion };
  const limit = options.pageSize ?? DEFAULT_PAGE_SIZE;
  const items: T[] = [];
  const rejected: DecodeFailure[] = [];
  let page = await readPage({ ...first, limit });
  let pagesRead = 1;
  while (true) {
    items.push(...page.items);
    rejected.push(...page.rejected);
    if (page.continue === undefined) return { items, resourceVersion: page.resourceVersion, rejected };
    try {
      page = await readPage({ limit, continue: page.continue });
      pagesRead++;
    } catch (error) {
      if (!isGone(error)) throw error;
      options.log.debug("list continue token expired; reading the collection without pages", {
        resource: options.resource,
        pagesRead,
      });
      return await readPage(first);
    }
  }
}
