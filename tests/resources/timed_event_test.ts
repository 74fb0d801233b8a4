import assert from "node:assert/strict";
import { TIMED_EVENT } from "../../lib/resources/timed_event.ts";
import { COREDNS_WARNING, recordedEvent } from "../support/recorded_event.ts";

Deno.test("TIMED_EVENT reads back what the recorder writes, with its last time", () => {
  const { metadata: _, ...rest } = recordedEvent(COREDNS_WARNING, "2026-05-01T11:50:00Z");
  const { component: __, instance: ___, ...spec } = COREDNS_WARNING;
  assert.deepEqual(rest, { ...spec, count: 1, component: "ouroboros", lastSeen: "2026-05-01T11:50:00Z" });
});

Deno.test("TIMED_EVENT: newer writers' eventTime and reportingComponent; else the creation time", () => {
  const base = { apiVersion: "v1", kind: "Event", involvedObject: { kind: "Pod", name: "p" } };
  const newer = TIMED_EVENT.decode({
    ...base,
    metadata: { name: "e", namespace: "n", resourceVersion: "1" },
    eventTime: "2026-05-01T11:00:00.123456Z",
    reportingComponent: "ouroboros",
  });
  assert.ok(newer.ok);
  assert.equal(newer.value.lastSeen, "2026-05-01T11:00:00.123456Z");
  assert.equal(newer.value.component, "ouroboros");
  const bare = TIMED_EVENT.decode({
    ...base,
    metadata: { name: "e", namespace: "n", resourceVersion: "1", creationTimestamp: "2026-05-01T10:00:00Z" },
  });
  assert.ok(bare.ok);
  assert.equal(bare.value.lastSeen, "2026-05-01T10:00:00Z");
});
