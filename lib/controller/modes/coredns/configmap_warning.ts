/**
 * How both CoreDNS sinks speak on a ConfigMap they will not (or can no longer) edit: a Warning
 * Event on it, so `kubectl describe configmap` shows what to fix next to the object, and, when
 * they refuse, the refusal outcome carrying the same message.
 *
 * Effects: records through the injected recorder (which never rejects), nothing else.
 *
 * @module
 */

import type { EventRecorder } from "../../../kube/event_recorder.ts";
import type { ConfigMap } from "../../../resources/config_map.ts";
import type { SinkOutcome } from "../sink.ts";

/** The ConfigMap a warning is about, and how to record it. */
export interface WarningTarget {
  /** The ConfigMap as read; the Event names its uid. */
  readonly configMap: ConfigMap;
  /** Records the Event; none when absent. */
  readonly recorder: Pick<EventRecorder, "record"> | undefined;
  /** Bounds the Event request. */
  readonly signal: AbortSignal;
}

/** What a Warning Event says: a short CamelCase reason and what to fix. */
export interface WarningText {
  /** e.g. `CorefileMarkersDamaged`. */
  readonly reason: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
}

/** A refusal with its Warning Event: the refusal's code for metrics, and what the Event says. */
export interface WarningRefusal extends WarningText {
  /** e.g. `immutable`. */
  readonly problem: string;
}

/**
 * Records a Warning Event about `on.configMap`. Never rejects.
 *
 * @example
 * ```ts
 * import type { EventRecorder } from "../../../kube/event_recorder.ts";
 * import type { ConfigMap } from "../../../resources/config_map.ts";
 * import { recordWarning } from "./configmap_warning.ts";
 *
 * declare const configMap: ConfigMap; // as read
 * declare const recorder: EventRecorder;
 * declare const signal: AbortSignal;
 * await recordWarning({ configMap, recorder, signal }, {
 *   reason: "CorefileReverted",
 *   message: "another writer …",
 * });
 * ```
 */
export async function recordWarning(on: WarningTarget, text: WarningText): Promise<void> {
  const { metadata } = on.configMap;
  await on.recorder?.record({
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: metadata.namespace,
      name: metadata.name,
      uid: metadata.uid,
    },
    type: "Warning",
    reason: text.reason,
    message: text.message,
  }, on.signal);
}

/**
 * Records the Warning Event and returns the refusal (nothing written) with the same message.
 *
 * @example
 * ```ts
 * import type { EventRecorder } from "../../../kube/event_recorder.ts";
 * import type { ConfigMap } from "../../../resources/config_map.ts";
 * import { refuseWithWarning } from "./configmap_warning.ts";
 *
 * declare const configMap: ConfigMap; // as read
 * declare const recorder: EventRecorder;
 * declare const signal: AbortSignal;
 * const outcome = await refuseWithWarning({ configMap, recorder, signal }, {
 *   problem: "immutable",
 *   reason: "ConfigMapImmutable",
 *   message: "ConfigMap kube-system/coredns is immutable, …",
 * });
 * // { kind: "refused", problem: "immutable", message: "ConfigMap …", scope: "nothing-written" }
 * ```
 */
export async function refuseWithWarning(on: WarningTarget, refusal: WarningRefusal): Promise<SinkOutcome> {
  await recordWarning(on, refusal);
  return { kind: "refused", problem: refusal.problem, message: refusal.message, scope: "nothing-written" };
}
