/**
 * An Event exactly as the controller's recorder writes it (`buildEvent`), as the API server
 * would store it, read back through the doctor's `TIMED_EVENT`: for tests that judge Events.
 *
 * @module
 */

import assert from "node:assert/strict";
import { buildEvent, type EventSpec } from "../../lib/resources/event.ts";
import { TIMED_EVENT, type TimedEvent } from "../../lib/resources/timed_event.ts";

/** A Warning the CoreDNS sink records on the Corefile's ConfigMap. */
export const COREDNS_WARNING: EventSpec = {
  involvedObject: {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: "kube-system",
    name: "coredns",
    uid: "u",
  },
  type: "Warning",
  reason: "CorefileReverted",
  message: "another writer removed our block",
  component: "ouroboros",
  instance: "ctl-1",
};

/** The Event `spec` recorded at `at` (RFC 3339), decoded. */
export function recordedEvent(spec: EventSpec, at: string): TimedEvent {
  const written = buildEvent(spec, new Date(at));
  const decoded = TIMED_EVENT.decode({
    ...written,
    metadata: { ...written.metadata as object, resourceVersion: "1" },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  return decoded.value;
}
