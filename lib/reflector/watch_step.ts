/**
 * The reflector's watch session: open a watch ({@linkcode openWatch}), apply its events one at a
 * time ({@linkcode watchStep}), and decide where its end leads: the server's timeout (re-watch), a
 * stall or a drop (back off, re-watch from the last version), or 410 (relist).
 *
 * @module
 */

import { KubeApiError } from "../kube/errors.ts";
import type { WatchEvent } from "../kube/list_watch.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import { classifyFailure, type Failure } from "./failure.ts";
import {
  type ListedState,
  type ListingState,
  listingState,
  type ReflectorState,
  type WatchingState,
} from "./reflector_state.ts";
import type { StepContext } from "./step_context.ts";
import { WatchHandle } from "./watch_handle.ts";
import { toSeconds } from "../util/duration.ts";

/** Opens a watch from `resourceVersion`; never throws (an open error comes as its first event). */
export function openWatch<T extends KubeObject>(
  resourceVersion: string,
  context: StepContext<T>,
): WatchingState<T> {
  const { min, max } = context.settings.watchTimeoutSeconds;
  const timeoutSeconds = min + Math.floor(context.random() * (max - min + 1));
  const watch = WatchHandle.open(context.listWatcher, {
    resourceVersion,
    allowWatchBookmarks: true,
    timeoutSeconds,
    ...context.selectors,
  }, {
    clock: context.clock,
    idleMs: timeoutSeconds * 1000 + context.settings.idleMarginMs,
    bookmarkStall: context.settings.bookmarkStall,
    pace: context.pace,
    abandonAfterMs: context.settings.abandonAfterMs,
    signal: context.signal,
  });
  return { kind: "watching", resourceVersion, watch, events: 0 };
}

/** Reads and applies one event of the watch, or handles its end; returns the next state. */
export async function watchStep<T extends KubeObject>(
  state: WatchingState<T>,
  context: StepContext<T>,
): Promise<ReflectorState<T>> {
  let result: IteratorResult<WatchEvent<T>>;
  try {
    result = await state.watch.next();
  } catch (error) {
    return await watchEnded(state, context, { error });
  }
  if (result.done === true) return await watchEnded(state, context, undefined);
  const event = result.value;
  if (state.events === 0) context.report({ ok: true });
  const events = state.events + 1;
  if (event.type === "ERROR") {
    await state.watch.close();
    const failure = classifyFailure(
      new KubeApiError(`WATCH ${context.listWatcher.description}`, event.status),
    );
    return watchFailed(state.resourceVersion, context, failure);
  }
  return { ...state, resourceVersion: apply(event, context) ?? state.resourceVersion, events };
}

/** Applies a non-ERROR event to the store; returns the resourceVersion it brings, if any. */
function apply<T extends KubeObject>(event: WatchEvent<T>, context: StepContext<T>): string | undefined {
  switch (event.type) {
    case "ADDED":
    case "MODIFIED":
      context.store.apply(event.object);
      return event.object.metadata.resourceVersion;
    case "DELETED":
      context.store.delete(event.object);
      return event.object.metadata.resourceVersion;
    case "BOOKMARK":
      return event.resourceVersion === "" ? undefined : event.resourceVersion;
    case "REJECTED":
      context.rejected([event.failure], event.resourceVersion);
      return event.resourceVersion === "" ? undefined : event.resourceVersion;
    case "ERROR":
      return undefined;
  }
}

/** Closes an ended watch and decides where it leads; `thrown` is `undefined` on a clean end. */
async function watchEnded<T extends KubeObject>(
  state: WatchingState<T>,
  context: StepContext<T>,
  thrown: { readonly error: unknown } | undefined,
): Promise<ReflectorState<T>> {
  const resource = context.listWatcher.description;
  const stop = state.watch.stop;
  if (state.watch.abandoned) {
    context.log.warn("a watch stream did not end after it was aborted; abandoned it (a client bug)", {
      resource,
      reason: stop,
      graceSeconds: toSeconds(context.settings.abandonAfterMs),
    });
  }
  await state.watch.close();
  if (stop === "shutdown" || context.signal.aborted) return { kind: "stopped" };
  const rv = state.resourceVersion;
  const rewatch: ListedState = { kind: "listed", resourceVersion: rv };
  if (stop === "idle-timeout") {
    context.log.info("watch stalled: no event within the idle timeout; reopening", {
      resource,
      resourceVersion: rv,
      silentSeconds: toSeconds(state.watch.stalledAfterMs ?? 0),
    });
    return context.backOff({ reason: "idle-timeout", message: "watch idle timeout" }, rewatch);
  }
  if (thrown !== undefined) return watchFailed(rv, context, classifyFailure(thrown.error));
  const lived = context.clock.now() - state.watch.openedAt;
  if (state.events === 0 && lived < context.settings.shortWatchMs) {
    return context.backOff(
      { reason: "short-watch", message: `watch ended after ${Math.round(lived)} ms without events` },
      rewatch,
    );
  }
  // The server's timeoutSeconds (or a proxy) ended the stream: resume where it stopped.
  context.restart({ reason: "server-timeout", message: "" });
  context.report({ ok: true });
  return rewatch;
}

/** Where a failed watch leads: a relist after 410, otherwise a backoff. */
function watchFailed<T extends KubeObject>(
  resourceVersion: string,
  context: StepContext<T>,
  failure: Failure,
): ReflectorState<T> {
  if (failure.reason === "expired") {
    // Relist at the last version seen (client-go); the swap removes objects deleted meanwhile.
    context.restart(failure);
    context.log.debug("watch expired; relisting", {
      resource: context.listWatcher.description,
      resourceVersion,
    });
    return listingState(resourceVersion);
  }
  // 404 on a watch: the type may have been removed; the list will tell.
  const then: ListingState<T> | ListedState = failure.reason === "not-found"
    ? listingState(resourceVersion)
    : { kind: "listed", resourceVersion };
  return context.backOff(failure, then);
}
