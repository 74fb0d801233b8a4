/**
 * Reads a whole collection in pages, as client-go's pager does: if the `continue` token expires
 * (410 after page 1), it starts over unpaged; a 410 on page 1 is an error (version too old).
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

/** One page, or everything at once for the unpaged fallback (no `limit`). */
export interface PageRequest {
  /** On the first page and the fallback only. */
  readonly resourceVersion?: string;
  readonly limit?: number;
  readonly continue?: string;
}

/** Reads one page of the collection (a `LIST` request). */
export type PageReader<T> = (request: PageRequest) => Promise<ListPage<T>>;

/** Options for {@linkcode pagedList}. */
export interface PagedListOptions {
  /** `"0"` for the watch cache, a version for "at least this new", absent for a consistent read. */
  readonly resourceVersion?: string;
  readonly pageSize?: number;
  /** For the log line: `v1 configmaps`. */
  readonly resource: string;
  readonly log: Log;
}

/** Reads every page with `readPage` and joins them, rejected items included, into one page. */
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
