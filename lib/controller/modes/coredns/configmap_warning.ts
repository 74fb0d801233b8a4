/**
 * How both CoreDNS sinks speak about a ConfigMap they will not edit: a Warning Event on it (seen in
 * `kubectl describe`) and, when refusing, a refusal outcome with the same message.
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
  /** As read; the Event names its uid. */
  readonly configMap: ConfigMap;
  /** No Event when absent. */
  readonly recorder: Pick<EventRecorder, "record"> | undefined;
  readonly signal: AbortSignal;
}

/** What a Warning Event says: a short CamelCase reason and what to fix. */
export interface WarningText {
  readonly reason: string;
  readonly message: string;
}

/** A refusal with its Warning Event: the refusal's code for metrics, and what the Event says. */
export interface WarningRefusal extends WarningText {
  readonly problem: string;
}

/** Records a Warning Event about `on.configMap`. Never rejects. */
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

/** Records the Warning Event and returns the refusal (nothing written) with the same message. */
export async function refuseWithWarning(on: WarningTarget, refusal: WarningRefusal): Promise<SinkOutcome> {
  await recordWarning(on, refusal);
  return { kind: "refused", problem: refusal.problem, message: refusal.message, scope: "nothing-written" };
}
