import assert from "node:assert/strict";
import { applyConfiguration, type ApplyOptions } from "../support/fake_apiserver/apply.ts";
import type { JsonMap } from "../support/fake_apiserver/json.ts";
import { encodeManagedFields } from "../support/fake_apiserver/managed_fields.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FakeApiError } from "../support/fake_apiserver/status.ts";
import { call } from "./wire.ts";

const T0 = "2026-01-02T03:04:00Z";
const NOW = "2026-01-02T03:04:05Z";

const as = (manager: string, extra: Partial<ApplyOptions> = {}): ApplyOptions => ({
  manager,
  force: false,
  apiVersion: "v1",
  time: NOW,
  statusSubresource: false,
  ...extra,
});

function entry(manager: string, operation: string, fieldsV1: JsonMap, time = T0): JsonMap {
  return { manager, operation, apiVersion: "v1", time, fieldsType: "FieldsV1", fieldsV1 };
}

/** A ConfigMap owned as `managedFields` says. */
function live(data: Record<string, string>, managedFields: JsonMap[]): JsonMap {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c", namespace: "x", managedFields },
    data,
  };
}

function conflictOf(run: () => unknown): FakeApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof FakeApiError) return error;
    throw error;
  }
  assert.fail("expected a conflict");
}

Deno.test("apply onto a new object: the applier owns exactly the configuration's leaves", () => {
  const applied = applyConfiguration(
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", namespace: "x" } },
    { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c", labels: { a: "1" } }, data: { k: "v" } },
    as("kuberture"),
  );
  assert.deepEqual(applied.object, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c", namespace: "x", labels: { a: "1" } },
    data: { k: "v" },
  });
  assert.deepEqual(encodeManagedFields(applied.entries), [
    entry(
      "kuberture",
      "Apply",
      { "f:data": { "f:k": {} }, "f:metadata": { "f:labels": { "f:a": {} } } },
      NOW,
    ),
  ]);
});

Deno.test("a changed value another manager owns is a conflict; the same value is shared; force takes it over", () => {
  const object = live({ a: "1", b: "2" }, [
    entry("creator", "Update", { "f:data": { ".": {}, "f:a": {}, "f:b": {} } }),
  ]);
  const config = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "c" },
    data: { a: "1", b: "changed" },
  };

  const refused = conflictOf(() => applyConfiguration(object, config, as("kuberture")));
  assert.deepEqual(refused.body, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'Apply failed with 1 conflict: conflict with "creator" using v1: .data.b',
    reason: "Conflict",
    details: {
      causes: [{
        reason: "FieldManagerConflict",
        message: 'conflict with "creator" using v1',
        field: ".data.b",
      }],
    },
    code: 409,
  });

  const forced = applyConfiguration(object, config, as("kuberture", { force: true }));
  assert.deepEqual(forced.object.data, { a: "1", b: "changed" });
  assert.deepEqual(encodeManagedFields(forced.entries), [
    entry("kuberture", "Apply", { "f:data": { "f:a": {}, "f:b": {} } }, NOW),
    entry("creator", "Update", { "f:data": { ".": {}, "f:a": {} } }),
  ], "b moved; a is shared");
});

Deno.test("several conflicts: counted, grouped by manager in the real server's order and wording", () => {
  const object = live({ x: "1", y: "1", z: "1" }, [
    entry("zeta", "Update", { "f:data": { "f:z": {} } }),
    entry("alpha", "Apply", { "f:data": { "f:y": {}, "f:x": {} } }),
  ]);
  const config = { apiVersion: "v1", kind: "ConfigMap", data: { x: "2", y: "2", z: "2" } };
  const refused = conflictOf(() => applyConfiguration(object, config, as("kuberture")));
  assert.equal(
    refused.body.message,
    'Apply failed with 3 conflicts: conflicts with "alpha":\n- .data.x\n- .data.y\n' +
      'conflicts with "zeta" using v1:\n- .data.z',
  );
  assert.equal(refused.body.details?.causes?.length, 3);
});

Deno.test("a field the applier applied before and leaves out is removed, unless another manager owns it", () => {
  const object = live({ mine: "1", shared: "1", theirs: "1" }, [
    entry("kuberture", "Apply", { "f:data": { "f:mine": {}, "f:shared": {}, "f:keep": {} } }),
    entry("other", "Apply", { "f:data": { "f:shared": {}, "f:theirs": {} } }),
  ]);
  const applied = applyConfiguration(
    object,
    { apiVersion: "v1", kind: "ConfigMap", data: { keep: "1" } },
    as("kuberture"),
  );
  assert.deepEqual(applied.object.data, { keep: "1", shared: "1", theirs: "1" });
  const emptied = applyConfiguration(
    live({ only: "1" }, [entry("kuberture", "Apply", { "f:data": { "f:only": {} } })]),
    { apiVersion: "v1", kind: "ConfigMap" },
    as("kuberture"),
  );
  assert.equal(emptied.object.data, undefined, "a map left empty goes too");
  assert.deepEqual(encodeManagedFields(emptied.entries), undefined, "an applier owning nothing has no entry");
});

Deno.test("a repeated apply changes nothing, its entry's time included; status is out of reach of the main resource", () => {
  const object = live({ a: "1" }, [entry("kuberture", "Apply", { "f:data": { "f:a": {} } })]);
  const again = applyConfiguration(
    object,
    { apiVersion: "v1", kind: "ConfigMap", data: { a: "1" } },
    as("kuberture"),
  );
  const { managedFields: _, ...metadata } = object.metadata as JsonMap;
  assert.deepEqual(again.object, { ...object, metadata });
  assert.deepEqual(
    encodeManagedFields(again.entries),
    object.metadata && (object.metadata as JsonMap).managedFields,
  );

  const deployment = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "d" },
    spec: { replicas: 1 },
  };
  const applied = applyConfiguration(
    deployment,
    { ...deployment, status: { replicas: 5 } },
    as("kuberture", { statusSubresource: true, apiVersion: "apps/v1" }),
  );
  assert.equal(applied.object.status, undefined);
  const onStatus = applyConfiguration(
    deployment,
    { ...deployment, spec: { replicas: 9 }, status: { replicas: 5 } },
    as("kubelet", { statusSubresource: true, apiVersion: "apps/v1", subresource: "status" }),
  );
  assert.deepEqual([onStatus.object.spec, onStatus.object.status], [{ replicas: 1 }, { replicas: 5 }]);
  assert.deepEqual(onStatus.entries.map((e) => e.subresource), ["status"]);
});

const SERVICES = "/api/v1/namespaces/x/services";
const APPLY = { "content-type": "application/apply-patch+yaml" };
const SERVICE_YAML = `apiVersion: v1
kind: Service
metadata:
  name: api
spec:
  clusterIP: None
`;

Deno.test("over HTTP: apply creates (201) from YAML, then answers 200; the request's options are checked", async () => {
  await using server = await startFakeApiServer();
  const created = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=kuberture`, {
    body: SERVICE_YAML,
    headers: APPLY,
  });
  assert.equal(created.status, 201, created.text);
  assert.equal((created.body.metadata as JsonMap).namespace, "x");
  const again = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=kuberture&force=false`, {
    body: SERVICE_YAML,
    headers: APPLY,
  });
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, created.body, "nothing written the second time");

  const anonymous = await call(server.url, "PATCH", `${SERVICES}/api`, {
    body: SERVICE_YAML,
    headers: APPLY,
  });
  assert.deepEqual([anonymous.status, anonymous.body], [422, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    reason: "Invalid",
    details: {
      group: "meta.k8s.io",
      kind: "PatchOptions",
      causes: [{
        reason: "FieldValueRequired",
        message: "Required value: is required for apply patch",
        field: "fieldManager",
      }],
    },
    code: 422,
  }]);
  const forcedMerge = await call(server.url, "PATCH", `${SERVICES}/api?force=true`, {
    body: { spec: {} },
    headers: { "content-type": "application/merge-patch+json" },
  });
  assert.equal(forcedMerge.status, 422);
  assert.match(
    String(forcedMerge.body.message),
    /force: Forbidden: may not be specified for non-apply patch/,
  );

  const refusals: [string, string, RegExp][] = [
    [
      SERVICE_YAML.replace("v1", "v2"),
      "api",
      /^Incorrect version specified in apply patch\. Specified patch version: v2, expected: v1$/,
    ],
    [
      SERVICE_YAML.replace("name: api", "name: api\n  managedFields: []"),
      "api",
      /^metadata\.managedFields must be nil$/,
    ],
    [SERVICE_YAML, "other", /^the name of the object \(api\) does not match the name on the URL \(other\)$/],
    ["a: [b", "api", /^error decoding YAML/],
  ];
  for (const [body, name, message] of refusals) {
    const refused = await call(server.url, "PATCH", `${SERVICES}/${name}?fieldManager=k`, {
      body,
      headers: APPLY,
    });
    assert.equal(refused.status, 400, body);
    assert.match(String(refused.body.message), message);
  }
});

Deno.test("over HTTP: unknown patch types are 415 naming the accepted ones; dryRun applies nothing", async () => {
  await using server = await startFakeApiServer();
  const jsonPatch = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=k`, {
    body: [{ op: "add", path: "/spec", value: {} }],
    headers: { "content-type": "application/json-patch+json" },
  });
  assert.equal(jsonPatch.status, 415);
  assert.equal(
    jsonPatch.body.message,
    "the body of the request was in an unknown format - accepted media types include: " +
      "application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml",
  );
  const dry = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=k&dryRun=All`, {
    body: SERVICE_YAML,
    headers: APPLY,
  });
  assert.equal(dry.status, 201);
  assert.equal(server.get("v1", "Service", "x", "api"), undefined);
  const missingStatus = await call(
    server.url,
    "PATCH",
    "/apis/apps/v1/namespaces/x/deployments/d/status?fieldManager=k",
    {
      body: "apiVersion: apps/v1\nkind: Deployment\nstatus: {replicas: 1}\n",
      headers: APPLY,
    },
  );
  assert.equal(missingStatus.status, 404, "an apply to /status does not create");
});

Deno.test("over HTTP: a resourceVersion in an apply is a precondition (409 when stale, 404 for a missing object), never an owned field", async () => {
  await using server = await startFakeApiServer();
  const withVersion = (rv: string) =>
    SERVICE_YAML.replace("name: api", `name: api\n  resourceVersion: "${rv}"`);
  const missing = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=kuberture`, {
    body: withVersion("1"),
    headers: APPLY,
  });
  assert.equal(missing.status, 404, missing.text);
  const created = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=kuberture`, {
    body: SERVICE_YAML,
    headers: APPLY,
  });
  const rv = String((created.body.metadata as JsonMap).resourceVersion);
  const stale = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=kuberture&force=true`, {
    body: withVersion(`${Number(rv) - 1}`).replace("clusterIP: None", "clusterIP: None\n  type: ClusterIP"),
    headers: APPLY,
  });
  assert.equal(stale.status, 409, stale.text);
  const current = await call(server.url, "PATCH", `${SERVICES}/api?fieldManager=kuberture&force=true`, {
    body: withVersion(rv).replace("clusterIP: None", "clusterIP: None\n  type: ClusterIP"),
    headers: APPLY,
  });
  assert.equal(current.status, 200, current.text);
  assert.equal((current.body.spec as JsonMap).type, "ClusterIP");
  const fields = JSON.stringify((current.body.metadata as JsonMap).managedFields);
  assert.match(fields, /"manager":"kuberture"/);
  assert.ok(!fields.includes("resourceVersion"), fields);
});
