/**
 * `KubeClient.apply` (server-side apply) against the fake API server: create on first apply, no
 * write on a repeat, fields left out are removed, a conflict with another manager is a 409 that
 * names the field and `force` takes it over, and the write fence stops it like any write.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { isConflict, KubeApiError, WriteFencedError } from "../../lib/kube/errors.ts";
import { CONFIG_MAP } from "../../lib/resources/config_map.ts";
import { SERVICE } from "../../lib/resources/service.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";

const SERVICES = "/api/v1/namespaces/kuberture/services";

/** A headless Service as kuberture writes it. */
function headless(targets: string, extra: Record<string, string> = {}) {
  return {
    metadata: {
      name: "api",
      namespace: "kuberture",
      labels: { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "main" },
      annotations: { "external-dns.alpha.kubernetes.io/target": targets, ...extra },
    },
    spec: { clusterIP: "None" },
  };
}

/** A `managedFields` entry, as far as these tests look. */
type Entry = Record<string, unknown> & { manager: string; operation: string };

function managedFields(object: Record<string, unknown> | undefined): Entry[] {
  return ((object?.metadata as { managedFields?: Entry[] }).managedFields ?? []);
}

const failure = <T>(promise: Promise<T>): Promise<unknown> => promise.then(() => undefined, (error) => error);

Deno.test("apply creates the object, as kuberture's field manager, with only the applied fields owned", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  const created = await client.apply(SERVICE, headless("192.0.2.1"), {
    fieldManager: "kuberture",
    force: true,
  });
  assert.equal(created.metadata.name, "api");
  assert.equal(created.spec.clusterIP, "None");
  assert.equal(created.metadata.annotations["external-dns.alpha.kubernetes.io/target"], "192.0.2.1");

  const request = server.audit.find((entry) => entry.method === "PATCH")!;
  assert.equal(request.path, `${SERVICES}/api`);
  assert.deepEqual(request.query, { fieldManager: "kuberture", force: "true" });
  assert.equal(request.status, 201, "a missing object is created");

  const stored = server.get("v1", "Service", "kuberture", "api");
  assert.equal(stored?.kind, "Service", "apiVersion and kind default to the type's");
  const [entry, ...others] = managedFields(stored);
  assert.deepEqual(others, []);
  assert.deepEqual({ ...entry, time: "" }, {
    manager: "kuberture",
    operation: "Apply",
    apiVersion: "v1",
    time: "",
    fieldsType: "FieldsV1",
    fieldsV1: {
      "f:metadata": {
        "f:annotations": { "f:external-dns.alpha.kubernetes.io/target": {} },
        "f:labels": { "f:app.kubernetes.io/managed-by": {}, "f:kuberture/instance": {} },
      },
      "f:spec": { "f:clusterIP": {} },
    },
  });
});

Deno.test("applying the same manifest again writes nothing; a field left out is removed", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  const options = { fieldManager: "kuberture", force: true };
  const first = await client.apply(
    SERVICE,
    headless("192.0.2.1", { "external-dns.alpha.kubernetes.io/ttl": "60" }),
    options,
  );
  const again = await client.apply(
    SERVICE,
    headless("192.0.2.1", { "external-dns.alpha.kubernetes.io/ttl": "60" }),
    options,
  );
  assert.equal(again.metadata.resourceVersion, first.metadata.resourceVersion, "no change, no write");

  const changed = await client.apply(SERVICE, headless("192.0.2.2"), options);
  assert.notEqual(changed.metadata.resourceVersion, first.metadata.resourceVersion);
  assert.deepEqual(changed.metadata.annotations, { "external-dns.alpha.kubernetes.io/target": "192.0.2.2" });
});

Deno.test("a field another manager set differently is a Conflict naming it; force takes it over", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  await client.apply(SERVICE, headless("192.0.2.1"), { fieldManager: "kuberture" });
  await client.mergePatch(
    SERVICE,
    { namespace: "kuberture", name: "api" },
    { metadata: { annotations: { "external-dns.alpha.kubernetes.io/target": "198.51.100.7" } } },
    { fieldManager: "someone" },
  );

  const refused = await failure(client.apply(SERVICE, headless("192.0.2.1"), { fieldManager: "kuberture" }));
  assert.ok(refused instanceof KubeApiError && isConflict(refused), String(refused));
  assert.equal(
    refused.status.message,
    'Apply failed with 1 conflict: conflict with "someone" using v1: ' +
      ".metadata.annotations.external-dns.alpha.kubernetes.io/target",
  );
  assert.deepEqual(refused.status.causes, ["FieldManagerConflict"]);
  const stored = server.get("v1", "Service", "kuberture", "api")!.metadata as {
    annotations: Record<string, string>;
  };
  assert.equal(
    stored.annotations["external-dns.alpha.kubernetes.io/target"],
    "198.51.100.7",
    "the refused apply changed nothing",
  );

  const forced = await client.apply(SERVICE, headless("192.0.2.1"), {
    fieldManager: "kuberture",
    force: true,
  });
  assert.equal(forced.metadata.annotations["external-dns.alpha.kubernetes.io/target"], "192.0.2.1");
  const managers = managedFields(server.get("v1", "Service", "kuberture", "api")).map((entry) =>
    `${entry.manager}/${entry.operation}`
  );
  assert.deepEqual(managers, ["kuberture/Apply"], "someone's only field moved to kuberture");
});

Deno.test("a field set to the value it already has is shared, not a conflict", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  await client.create(CONFIG_MAP, {
    metadata: { name: "shared", namespace: "x" },
    data: { k: "v" },
  }, { fieldManager: "kubectl-create" });
  const applied = await client.apply(CONFIG_MAP, {
    metadata: { name: "shared", namespace: "x" },
    data: { k: "v" },
  }, { fieldManager: "kuberture" });
  assert.deepEqual(applied.data, { k: "v" });
  const owners = managedFields(server.get("v1", "ConfigMap", "x", "shared")).map((entry) => [
    entry.manager,
    entry.operation,
    entry.fieldsV1,
  ]);
  assert.deepEqual(owners, [
    ["kuberture", "Apply", { "f:data": { "f:k": {} } }],
    ["kubectl-create", "Update", { "f:data": { ".": {}, "f:k": {} } }],
  ]);
});

Deno.test("apply goes through the write fence: a fenced client sends nothing", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({
    server: server.url,
    writeFence: (request) => {
      throw new WriteFencedError(request, "not the leader");
    },
  });
  const fenced = await failure(client.apply(SERVICE, headless("192.0.2.1"), { fieldManager: "kuberture" }));
  assert.ok(fenced instanceof WriteFencedError);
  assert.equal(fenced.request, `APPLY ${SERVICES}/api`);
  assert.deepEqual(server.audit, []);
});

Deno.test("apply refuses a manifest without a name and an empty field manager before sending", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  await assert.rejects(
    () => client.apply(SERVICE, { metadata: { namespace: "kuberture" } }, { fieldManager: "kuberture" }),
    (error: unknown) =>
      error instanceof TypeError && /needs metadata.name and a fieldManager/.test(error.message),
  );
  await assert.rejects(
    () => client.apply(SERVICE, headless("192.0.2.1"), { fieldManager: "" }),
    (error: unknown) =>
      error instanceof TypeError && /needs metadata.name and a fieldManager/.test(error.message),
  );
  assert.deepEqual(server.audit, []);
});
