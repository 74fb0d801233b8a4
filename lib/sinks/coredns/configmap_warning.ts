/**
 * How both CoreDNS sinks refuse to edit a ConfigMap that exists: a Warning Event on it, so
 * `kubectl describe configmap` shows what to fix next to the object, and the refusal outcome
 * carrying the same message.
 *
 * Pure: `configMapWarning`. Effects: `refuseWithWarning` records through the injected recorder
 * (which never rejects) and does nothing else.
 *
 * @module
 */

import type { EventNotice, EventRecorder } from "../../kube/event_recorder.ts";
import type { ConfigMap } from "../../resources/config_map.ts";
import type { SinkOutcome } from "../sink.ts";

/** What a Warning Event says: a short CamelCase reason and what to fix. */
export interface WarningText {
  /** e.g. `CorefileMarkersDamaged`. */
  readonly reason: string;
  /** What is wrong and how to fix it. */
  readonly message: string;
}

/**
 * A Warning Event about `configMap`.
 *
 * @example
 * ```ts
 * configMapWarning(configMap, { reason: "CorefileMarkersDamaged", message: "END before BEGIN on line 12 …" });
 * ```
 */
export function configMapWarning(configMap: ConfigMap, text: WarningText): EventNotice {
  return {
    object: {
      apiVersion: "v1",
      kind: "ConfigMap",
      namespace: configMap.metadata.namespace,
      name: configMap.metadata.name,
      uid: configMap.metadata.uid,
    },
    type: "Warning",
    reason: text.reason,
    message: text.message,
  };
}

/** Options of {@linkcode refuseWithWarning}. */
export interface RefuseWithWarningOptions extends WarningText {
  /** The ConfigMap the sink will not write. */
  readonly configMap: ConfigMap;
  /** The refusal's code, for metrics. */
  readonly problem: string;
  /** Records the Event; none when absent. */
  readonly recorder: Pick<EventRecorder, "record"> | undefined;
  /** Bounds the Event request. */
  readonly signal: AbortSignal;
}

/**
 * Records the Warning Event and returns the refusal (nothing written) with the same message.
 *
 * @example
 * ```ts
 * const outcome = await refuseWithWarning({
 *   configMap,
 *   problem: "immutable",
 *   reason: "ConfigMapImmutable",
 *   message: "ConfigMap kube-system/coredns is immutable, …",
 *   recorder,
 *   signal,
 * });
 * // { kind: "refused", problem: "immutable", message: "ConfigMap …", scope: "nothing-written" }
 * ```
 */
export async function refuseWithWarning(options: RefuseWithWarningOptions): Promise<SinkOutcome> {
  const { configMap, problem, reason, message } = options;
  await options.recorder?.record(configMapWarning(configMap, { reason, message }), options.signal);
  return { kind: "refused", problem, message, scope: "nothing-written" };
}
