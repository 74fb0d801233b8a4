import assert from "node:assert/strict";
import { decodeWatchLine } from "../../lib/kube/watch_line.ts";
import { decodeConfigMap } from "../../lib/resources/config_map.ts";

const cm = (rv: string, data: unknown = { a: "1" }) => ({
  kind: "ConfigMap",
  apiVersion: "v1",
  metadata: { name: "cm", namespace: "ns", resourceVersion: rv },
  data,
});

Deno.test("decodeWatchLine decodes ADDED, MODIFIED and DELETED objects with the kind's decoder", async (t) => {
  for (const type of ["ADDED", "MODIFIED", "DELETED"] as const) {
    await t.step(type, () => {
      const event = decodeWatchLine(JSON.stringify({ type, object: cm("5") }), decodeConfigMap);
      assert.equal(event.type, type);
      assert.ok(event.type === type);
      assert.deepEqual(event.object.data, { a: "1" });
      assert.equal(event.object.metadata.resourceVersion, "5");
    });
  }
});

Deno.test("decodeWatchLine turns a BOOKMARK into its resourceVersion only", () => {
  const line = JSON.stringify({
    type: "BOOKMARK",
    object: {
      kind: "ConfigMap",
      apiVersion: "v1",
      metadata: { resourceVersion: "812", annotations: { "k8s.io/initial-events-end": "true" } },
    },
  });
  assert.deepEqual(decodeWatchLine(line, decodeConfigMap), { type: "BOOKMARK", resourceVersion: "812" });
});

Deno.test("decodeWatchLine turns an ERROR event into its Status", () => {
  const line = JSON.stringify({
    type: "ERROR",
    object: {
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      message: "too old resource version: 5 (80)",
      reason: "Expired",
      code: 410,
    },
  });
  assert.deepEqual(decodeWatchLine(line, decodeConfigMap), {
    type: "ERROR",
    status: { code: 410, reason: "Expired", message: "too old resource version: 5 (80)" },
  });
});

Deno.test("decodeWatchLine reports an undecodable object as REJECTED with its key and resourceVersion", () => {
  const line = JSON.stringify({ type: "MODIFIED", object: cm("77", { a: 1 }) });
  assert.deepEqual(decodeWatchLine(line, decodeConfigMap), {
    type: "REJECTED",
    resourceVersion: "77",
    failure: { key: "ns/cm", reason: "data.a is a number, not a string" },
  });
  const nameless = JSON.stringify({ type: "ADDED", object: { metadata: { uid: "x" } } });
  assert.deepEqual(decodeWatchLine(nameless, decodeConfigMap), {
    type: "REJECTED",
    resourceVersion: "",
    failure: { key: "?", reason: "metadata.name is missing" },
  });
});

Deno.test("decodeWatchLine reports lines that are not watch events as ERROR 500, never as an object", async (t) => {
  const cases: readonly [string, string, string][] = [
    ["cut JSON", '{"type":"ADDED","object":{"metadata":{"name":"c', "not JSON"],
    ["not JSON at all", "<html>proxy error</html>", "not JSON"],
    ["a JSON list", "[1,2]", "not a JSON object"],
    ["no object", '{"type":"ADDED"}', "event has no object"],
    ["object a string", '{"type":"ADDED","object":"x"}', "event has no object"],
    ["unknown type", JSON.stringify({ type: "SYNC", object: cm("1") }), 'unknown event type "SYNC"'],
    ["no type", JSON.stringify({ object: cm("1") }), "unknown event type undefined"],
    [
      "bookmark without version",
      '{"type":"BOOKMARK","object":{"metadata":{}}}',
      "BOOKMARK without metadata.resourceVersion",
    ],
  ];
  for (const [name, line, problem] of cases) {
    await t.step(name, () => {
      const event = decodeWatchLine(line, decodeConfigMap);
      assert.equal(event.type, "ERROR");
      assert.ok(event.type === "ERROR");
      assert.equal(event.status.code, 500);
      assert.equal(event.status.reason, "InternalError");
      assert.ok(event.status.message.includes(problem), event.status.message);
    });
  }
});
