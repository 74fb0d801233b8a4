/**
 * The reflector's `listing` step: read one list page, swap the whole list into the store on the
 * last one, and decide where a failure leads.
 *
 * resourceVersion as client-go's `relistResourceVersion()`: `"0"` first (watch cache), the last
 * seen version after a watch's 410, `""` (consistent read) after Expired or too-large. Only `"0"`
 * and `""` are paged: with `limit` the server answers at exactly that version, which after an
 * apiserver restart is outside its watch cache, so the next watch 410s again in a loop.
 *
 * @module
 */

import { KubeTransportError } from "../kube/errors.ts";
import type { ListOptions, ListPage } from "../kube/list_watch.ts";
import { type KubeObject, objectKey } from "../resources/kube_object.ts";
import { classifyFailure, type Failure } from "./failure.ts";
import { type ListingState, listingState, type ReflectorState } from "./reflector_state.ts";
import type { StepContext } from "./step_context.ts";

/** Reads the page `state` asks for within the list deadline; returns the next state. */
export async function listStep<T extends KubeObject>(
  state: ListingState<T>,
  context: StepContext<T>,
): Promise<ReflectorState<T>> {
  try {
    return pageRead(state, context, await listPage(state, context));
  } catch (error) {
    if (context.signal.aborted) return { kind: "stopped" };
    return listFailed(state, context, classifyFailure(error));
  }
}

/** Buffers a page; the last one is swapped into the store. */
function pageRead<T extends KubeObject>(
  state: ListingState<T>,
  context: StepContext<T>,
  page: ListPage<T>,
): ReflectorState<T> {
  const resource = context.listWatcher.description;
  for (const item of page.items) state.buffer.set(objectKey(item.metadata), item);
  context.rejected(page.rejected, page.resourceVersion);
  if (page.continue !== undefined && page.continue !== "") return { ...state, continue: page.continue };
  if (page.resourceVersion === "") {
    return context.backOff(
      { reason: "error", message: `LIST ${resource}: the list has no resourceVersion` },
      listingState(""),
    );
  }
  context.swapIn(state.buffer.values());
  context.report({ ok: true });
  context.log.debug("listed", {
    resource,
    objects: state.buffer.size,
    resourceVersion: page.resourceVersion,
  });
  return { kind: "listed", resourceVersion: page.resourceVersion };
}

/** One LIST request with its own deadline; a cut request rejects as a `timeout` transport error. */
async function listPage<T extends KubeObject>(
  state: ListingState<T>,
  context: StepContext<T>,
): Promise<ListPage<T>> {
  const signal = context.signal;
  const request = new AbortController();
  const onAbort = () => request.abort(signal.reason);
  signal.addEventListener("abort", onAbort, { once: true });
  const deadline = new AbortController();
  let timedOut = false;
  const timer = context.clock.sleep(context.settings.listTimeoutMs, deadline.signal).then((expired) => {
    if (!expired) return;
    timedOut = true;
    request.abort(new DOMException("list deadline passed", "TimeoutError"));
  });
  const pageSize = context.settings.pageSize;
  const options: ListOptions = {
    // The API server refuses a resourceVersion together with a continue token.
    ...(state.continue === undefined && state.from !== "" ? { resourceVersion: state.from } : {}),
    ...(state.paged && pageSize > 0 && (state.from === "0" || state.from === "") ? { limit: pageSize } : {}),
    ...(state.continue === undefined ? {} : { continue: state.continue }),
    ...context.selectors,
    signal: request.signal,
  };
  try {
    return await context.listWatcher.list(options);
  } catch (error) {
    if (!timedOut) throw error;
    throw new KubeTransportError(`LIST ${context.listWatcher.description}`, "timeout", error);
  } finally {
    deadline.abort();
    await timer;
    signal.removeEventListener("abort", onAbort);
  }
}

/** Where a failed list leads. */
function listFailed<T extends KubeObject>(
  state: ListingState<T>,
  context: StepContext<T>,
  failure: Failure,
): ReflectorState<T> {
  const resource = context.listWatcher.description;
  if (failure.reason === "expired" && state.continue !== undefined) {
    // Start over unpaged rather than mix pages of two snapshots (client-go pager's fallback).
    context.restart(failure);
    context.log.debug("list continue token expired; listing without pages", { resource });
    return listingState(state.from, false);
  }
  if ((failure.reason === "expired" || failure.reason === "too-large") && state.from !== "") {
    context.restart(failure);
    context.log.debug("list resourceVersion unavailable; listing from etcd", {
      resource,
      from: state.from,
      reason: failure.reason,
    });
    return listingState("");
  }
  if (failure.reason === "not-found") {
    const confirmed = state.retryOfMissing === true;
    context.restart(failure);
    context.report({ ok: false, failure });
    // Unsynced: empty, so consumers do not wait. Synced: keep the cache through one 404 (a
    // starting API server serves CRDs late) until the slow retry confirms the type is gone.
    if (!context.store.synced || confirmed) context.store.replace([]);
    return {
      kind: "missing",
      retryInMs: context.settings.missingRetryMs,
      then: { ...listingState<T>(state.from), retryOfMissing: true },
    };
  }
  return context.backOff(failure, listingState(state.from));
}
