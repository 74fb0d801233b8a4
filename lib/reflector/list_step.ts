/**
 * The reflector's `listing` step: read one list page, and on the last one swap the whole list
 * into the store; on a failure, decide between relisting at once, waiting, and treating the type
 * as not served.
 *
 * The list's resourceVersion follows client-go's `relistResourceVersion()`: `"0"` for the first
 * list (served from the API server's watch cache, cheap), the last seen version for a relist
 * after a watch's 410 (the server answers with data at least that new), and `""` (a consistent
 * read from etcd) once a list at a version failed with Expired or "too large resource
 * version". Lists at `"0"` and `""` are requested in pages (`limit`) with their objects buffered;
 * only the last page hands the whole list to the store in one swap, so readers never see half a
 * list. A relist at a version is one request without `limit`, as client-go's reflector does: the
 * API server then answers from its watch cache with data at least that new, whereas with a
 * `limit` it answers at exactly that version. After an apiserver restart that exact version is
 * older than the new watch cache's window, so the watch from it failed with 410 again: a relist
 * loop that ended only at etcd's next compaction (found by the real-component suite).
 *
 * @module
 */

import { KubeTransportError } from "../kube/errors.ts";
import type { ListOptions, ListPage } from "../kube/list_watch.ts";
import { type KubeObject, objectKey } from "../resources/kube_object.ts";
import { classifyFailure, type Failure } from "./failure.ts";
import { type ListingState, listingState, type ReflectorState } from "./reflector_state.ts";
import type { StepContext } from "./step_context.ts";

/**
 * Reads the page `state` asks for (bounded by the list deadline and by the context's signal)
 * and returns the next state: the next page, `listed` after the last one, or what a failure
 * leads to.
 *
 * @example
 * ```ts
 * import type { Ingress } from "../resources/ingress.ts";
 * import { listStep } from "./list_step.ts";
 * import { listingState, type ReflectorState } from "./reflector_state.ts";
 * import type { StepContext } from "./step_context.ts";
 *
 * declare const context: StepContext<Ingress>; // the reflector's
 * let state: ReflectorState<Ingress> = listingState("0");
 * while (state.kind === "listing") state = await listStep(state, context);
 * // state: `listed` after the last page, or where a failure leads (`backoff`, `missing`, `stopped`)
 * ```
 */
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

/**
 * One LIST request with its own deadline on top of the client's; a request the deadline cut
 * rejects with a `timeout` transport error.
 */
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
    // The continue token outlived the server's history: start over in one unpaged request,
    // never mixing pages of two snapshots (client-go pager's full-list fallback).
    context.restart(failure);
    context.log.debug("list continue token expired; listing without pages", { resource });
    return listingState(state.from, false);
  }
  if ((failure.reason === "expired" || failure.reason === "too-large") && state.from !== "") {
    // The version we listed at is unavailable: retry at once with a consistent read.
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
    // Never synced: an absent type has no objects, and consumers must not wait for it. Synced
    // before: keep the cache through one 404 (an API server starting up serves CRDs late)
    // and drop it only when the next slow retry confirms the type is gone.
    if (!context.store.synced || confirmed) context.store.replace([]);
    return {
      kind: "missing",
      retryInMs: context.settings.missingRetryMs,
      then: { ...listingState<T>(state.from), retryOfMissing: true },
    };
  }
  return context.backOff(failure, listingState(state.from));
}
