import assert from "node:assert/strict";
import {
  buildEvent,
  decodeEvent,
  EVENT,
  EVENT_MESSAGE_LIMIT,
  type EventSpec,
} from "../../lib/resources/event.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const spec: EventSpec = {
  involvedObject: {
    apiVersion: "v1",
    kind: "ConfigMap",
    namespace: "kube-system",
    name: "coredns",
    uid: "u-7",
  },
  type: "Normal",
  reason: "CorefileUpdated",
  message: "rewrote 3 hostnames",
  component: "ouroboros",
  instance: "ouroboros-7d9f-abc",
};

Deno.test("buildEvent makes a v1 Event about the object, named and timed like client-go's recorder", () => {
  const now = new Date("2026-03-01T12:00:00.123Z");
  const event = buildEvent(spec, now);
  assert.deepEqual(event, {
    apiVersion: "v1",
    kind: "Event",
    metadata: {
      name: `coredns.${(BigInt(now.getTime()) * 1_000_000n).toString(16)}`,
      namespace: "kube-system",
    },
    involvedObject: {
      apiVersion: "v1",
      kind: "ConfigMap",
      name: "coredns",
      namespace: "kube-system",
      uid: "u-7",
    },
    reason: "CorefileUpdated",
    message: "rewrote 3 hostnames",
    type: "Normal",
    count: 1,
    firstTimestamp: "2026-03-01T12:00:00Z",
    lastTimestamp: "2026-03-01T12:00:00Z",
    source: { component: "ouroboros" },
    reportingComponent: "ouroboros",
    reportingInstance: "ouroboros-7d9f-abc",
  });
});

Deno.test("buildEvent puts events about cluster-scoped objects in default and cuts long messages", () => {
  const event = buildEvent({
    ...spec,
    involvedObject: { apiVersion: "v1", kind: "Node", namespace: "", name: "node-1", uid: "" },
    message: "x".repeat(5000),
  }, new Date(0));
  const metadata = event.metadata as { namespace: string };
  assert.equal(metadata.namespace, "default");
  assert.deepEqual(event.involvedObject, { apiVersion: "v1", kind: "Node", name: "node-1" });
  assert.equal((event.message as string).length, EVENT_MESSAGE_LIMIT);
  assert.ok((event.message as string).endsWith("..."));
});

Deno.test("decodeEvent reads back what buildEvent wrote (once the server added a resourceVersion)", () => {
  const written = buildEvent(spec, new Date("2026-03-01T12:00:00Z"));
  const stored = {
    ...written,
    metadata: { ...(written.metadata as object), resourceVersion: "100", uid: "e-1" },
  };
  const decoded = decodeEvent(stored);
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(
    {
      involvedObject: decoded.value.involvedObject,
      reason: decoded.value.reason,
      message: decoded.value.message,
      type: decoded.value.type,
      count: decoded.value.count,
      component: decoded.value.component,
    },
    {
      involvedObject: spec.involvedObject,
      reason: "CorefileUpdated",
      message: "rewrote 3 hostnames",
      type: "Normal",
      count: 1,
      component: "ouroboros",
    },
  );
});

Deno.test("decodeEvent takes the component from reportingComponent when source is empty", () => {
  const decoded = decodeEvent({
    metadata: { name: "e", namespace: "n", resourceVersion: "1" },
    involvedObject: { kind: "Pod", name: "p" },
    reportingComponent: "kubelet",
  });
  assert.ok(decoded.ok);
  assert.equal(decoded.value.component, "kubelet");
  assert.equal(decoded.value.count, 1);
});

Deno.test("decodeEvent refuses malformed fields, naming the field", async (t) => {
  const meta = { name: "e", namespace: "n", resourceVersion: "1" };
  const cases: readonly [string, unknown, string][] = [
    ["no involvedObject", { metadata: meta }, "involvedObject.kind is missing"],
    [
      "involved name a number",
      { metadata: meta, involvedObject: { kind: "Pod", name: 1 } },
      "involvedObject.name is a number, not a string",
    ],
    [
      "count a string",
      { metadata: meta, involvedObject: { kind: "Pod", name: "p" }, count: "2" },
      "count is a string, not a whole number",
    ],
    [
      "message an object",
      { metadata: meta, involvedObject: { kind: "Pod", name: "p" }, message: {} },
      "message is an object, not a string",
    ],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeEvent(raw), { ok: false, reason }));
  }
});

Deno.test("EVENT is the core v1 events resource", () => {
  assert.equal(resourcePath(EVENT, { namespace: "kube-system" }), "/api/v1/namespaces/kube-system/events");
  assert.equal(EVENT.decode, decodeEvent);
});
