import assert from "node:assert/strict";
import type { Json, JsonMap } from "../support/fake_apiserver/json.ts";
import {
  decodeManagedFields,
  managerFromUserAgent,
  managerLabel,
  updatedManagedFields,
} from "../support/fake_apiserver/managed_fields.ts";
import { call } from "./wire.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";

const T1 = "2026-01-02T03:04:05Z";
const T2 = "2026-01-02T03:04:09Z";

function update(before: JsonMap | undefined, after: JsonMap, manager: string, time = T2): Json[] | undefined {
  return updatedManagedFields(before, after, { writer: { manager }, apiVersion: "v1", time });
}

function entry(manager: string, operation: string, fieldsV1: JsonMap, time = T1): JsonMap {
  return { manager, operation, apiVersion: "v1", time, fieldsType: "FieldsV1", fieldsV1 };
}

Deno.test("a create records every field it set as its writer's, maps marked with `.`", () => {
  assert.deepEqual(
    update(
      undefined,
      { metadata: { name: "a", labels: { app: "x" } }, data: { k: "v" } },
      "kubectl-create",
      T1,
    ),
    [entry("kubectl-create", "Update", {
      "f:data": { ".": {}, "f:k": {} },
      "f:metadata": { "f:labels": { ".": {}, "f:app": {} } },
    })],
  );
});

Deno.test("an update takes what it changed from the others, removals leave every entry, a no-op keeps them as they were", () => {
  const managedFields = [
    entry("kubectl", "Apply", { "f:data": { "f:a": {}, "f:b": {} } }),
    entry("creator", "Update", { "f:data": { ".": {}, "f:c": {} } }),
  ];
  const data = { a: "1", b: "2", c: "3" };
  const before: JsonMap = { metadata: { name: "x", managedFields }, data };

  assert.deepEqual(
    update(before, { metadata: { name: "x" }, data: { a: "changed", c: "3" } }, "editor"),
    [
      entry("creator", "Update", { "f:data": { ".": {}, "f:c": {} } }),
      entry("editor", "Update", { "f:data": { "f:a": {} } }, T2),
    ],
    "a moved to editor and b left kubectl's entry, which is dropped empty; creator kept c",
  );

  const same = { metadata: { name: "x" }, data };
  assert.equal(update(before, same, "editor"), managedFields, "nothing changed: the very same entries");

  const own = [entry("only", "Update", { "f:data": {} })];
  assert.deepEqual(
    update(before, { metadata: { name: "x", managedFields: own }, data }, "editor"),
    own,
    "a body's own entries replace the stored ones",
  );
});

Deno.test("entries sort by operation, then time, then manager; malformed ones are dropped", () => {
  const managedFields = [
    entry("b", "Update", { "f:data": { "f:y": {} } }, T1),
    entry("a", "Update", { "f:data": { "f:z": {} } }, T2),
    entry("z", "Apply", { "f:data": { "f:x": {} } }, T2),
    { manager: 7, operation: "Update" },
    { manager: "n", operation: "Delete" },
  ];
  assert.deepEqual(decodeManagedFields(managedFields).map((e) => e.manager), ["b", "a", "z"]);
  const written = update(
    { metadata: { managedFields }, data: { x: "1", y: "2", z: "3" } },
    { metadata: {}, data: { x: "1", y: "2", z: "3", w: "4" } },
    "c",
  ) as JsonMap[];
  assert.deepEqual(written.map((e) => `${e.operation} ${e.manager}`), [
    "Apply z",
    "Update b",
    "Update a",
    "Update c",
  ]);
});

Deno.test("managers are named as the real server names them in conflicts", () => {
  const cases: [Parameters<typeof managerLabel>[0], string][] = [
    [{ manager: "kubectl", operation: "Apply", apiVersion: "v1" }, '"kubectl"'],
    [{ manager: "kubectl-create", operation: "Update", apiVersion: "v1" }, '"kubectl-create" using v1'],
    [
      { manager: "kubelet", operation: "Update", apiVersion: "v1", subresource: "status" },
      '"kubelet" with subresource "status" using v1',
    ],
  ];
  for (const [entry, label] of cases) assert.equal(managerLabel(entry), label);
});

Deno.test("a write without fieldManager is recorded under its user agent's product name", () => {
  const cases: [string, string][] = [
    ["kubectl/v1.35.0 (linux/amd64) kubernetes/abc", "kubectl"],
    ["ouroboros", "ouroboros"],
    ["", ""],
    ["a\u0007b/1", "ab"],
    ["x".repeat(200), "x".repeat(128)],
  ];
  for (const [agent, manager] of cases) assert.equal(managerFromUserAgent(agent), manager, agent);
});

Deno.test("over HTTP: POST, PUT, merge patch and /status each record their field manager, never for fields they cannot write", async () => {
  await using server = await startFakeApiServer();
  const path = "/api/v1/namespaces/x/configmaps";
  const created = await call(server.url, "POST", `${path}?fieldManager=maker`, {
    body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" }, data: { k: "1" } },
  });
  assert.equal(created.status, 201);
  await call(server.url, "PATCH", `${path}/a`, {
    body: { data: { j: "2" } },
    headers: { "content-type": "application/merge-patch+json", "user-agent": "patcher/1.0" },
  });
  const stored = server.get("v1", "ConfigMap", "x", "a")!;
  const owners = (stored.metadata as { managedFields: JsonMap[] }).managedFields.map((
    e,
  ) => [e.manager, e.fieldsV1]);
  assert.deepEqual(owners, [
    ["maker", { "f:data": { ".": {}, "f:k": {} } }],
    ["patcher", { "f:data": { "f:j": {} } }],
  ]);

  const deployments = "/apis/apps/v1/namespaces/x/deployments";
  await call(server.url, "POST", `${deployments}?fieldManager=maker`, {
    body: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      spec: { replicas: 1 },
      status: { replicas: 7 },
    },
  });
  await call(server.url, "PUT", `${deployments}/d/status?fieldManager=kubelet`, {
    body: {
      apiVersion: "apps/v1",
      kind: "Deployment",
      metadata: { name: "d" },
      status: { readyReplicas: 1 },
    },
  });
  const deployment = server.get("apps/v1", "Deployment", "x", "d")!;
  const entries = (deployment.metadata as { managedFields: JsonMap[] }).managedFields;
  assert.deepEqual(entries.map((e) => [e.manager, e.subresource, e.fieldsV1]).sort(), [
    ["kubelet", "status", { "f:status": { "f:readyReplicas": {} } }],
    ["maker", undefined, { "f:spec": { "f:replicas": {} } }],
  ]);
});
