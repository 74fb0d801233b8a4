/**
 * The owned-object writer driven as kuberture drives it: annotated headless Services, one per
 * output, under kuberture's own ownership labels, names, annotation prefixes and owner reference,
 * against the fake API server, by create and merge patch and by server-side apply. Nothing here is
 * external-dns mode's: the writer takes desired objects plus an ownership definition.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { SERVICE } from "../../lib/resources/service.ts";
import {
  externalDnsAnnotations,
  headlessService,
  observeHeadlessService,
} from "../../lib/publisher/headless_service.ts";
import type { ObjectOwnership } from "../../lib/publisher/object_ownership.ts";
import { ownedObjectApi, type OwnedObjectClient } from "../../lib/publisher/owned_object_api.ts";
import type { DesiredGroup, ObservedObject } from "../../lib/publisher/owned_object_plan.ts";
import {
  notDeletedMessage,
  OwnedObjectWriter,
  type WriteResult,
} from "../../lib/publisher/owned_object_writer.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";

const NAMESPACE = "cozy-kuberture";
const never = new AbortController().signal;
type Json = Record<string, unknown>;

/** kuberture's ownership, spelled out as its README states it. */
const KUBERTURE: ObjectOwnership = {
  managedBy: { label: "app.kubernetes.io/managed-by", value: "kuberture" },
  instance: { label: "kuberture/instance", value: "main" },
};
const LABELS = { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "main" };
const OWNER = {
  apiVersion: "apps/v1",
  kind: "Deployment",
  name: "kuberture",
  uid: "d-1",
  controller: true,
};

/** One kuberture output: its Service name, annotation prefix and hostnames. */
interface Output {
  readonly name: string;
  readonly serviceName: string;
  readonly prefix: string;
  readonly hostnames: readonly string[];
}

const PUBLIC: Output = {
  name: "public",
  serviceName: "kuberture-public",
  prefix: "external-dns.alpha.kubernetes.io/",
  hostnames: ["api.k8s.example.com"],
};
const INTERNAL: Output = {
  name: "internal",
  serviceName: "kuberture-internal",
  prefix: "internal-dns.example.com/",
  hostnames: ["api-internal.k8s.example.internal"],
};

/** The group of one output: its headless Service for `targets`, or none when it has no address. */
function group(output: Output, targets: readonly string[]): DesiredGroup {
  const annotations = externalDnsAnnotations({
    prefix: output.prefix,
    hostnames: output.hostnames,
    targets: [...targets].sort(),
    ttl: 60,
  });
  return {
    key: output.name,
    names: [output.serviceName],
    objects: targets.length === 0 ? undefined : [
      headlessService({
        name: output.serviceName,
        namespace: NAMESPACE,
        labels: LABELS,
        annotations,
        ownerReferences: [OWNER],
      }),
    ],
  };
}

function setup(
  server: FakeApiServer,
  options: {
    readonly dryRun?: boolean;
    readonly serverSideApply?: boolean;
    readonly wrap?: (client: KubeClient) => OwnedObjectClient;
  } = {},
): { writer: OwnedObjectWriter<ObservedObject>; client: KubeClient } {
  const client = new KubeClient({ server: server.url });
  const api = ownedObjectApi({
    client: options.wrap?.(client) ?? client,
    type: SERVICE,
    namespace: NAMESPACE,
    ownership: KUBERTURE,
    observe: observeHeadlessService,
    fieldManager: "kuberture",
    serverSideApply: options.serverSideApply ?? false,
  });
  return { writer: new OwnedObjectWriter(api, options), client };
}

function applied(
  result: WriteResult<ObservedObject>,
): Extract<WriteResult<ObservedObject>, { kind: "applied" }> {
  assert.equal(result.kind, "applied", JSON.stringify(result));
  return result as Extract<WriteResult<ObservedObject>, { kind: "applied" }>;
}

function services(server: FakeApiServer): Map<string, Json> {
  return new Map(
    server.list("v1", "Service", NAMESPACE).map((
      object,
    ) => [(object.metadata as Json).name as string, object]),
  );
}

function metaOf(object: Json | undefined): Json {
  return (object?.metadata ?? {}) as Json;
}

Deno.test("owned-object writer: kuberture's two outputs become two headless Services of its own", async () => {
  await using server = await startFakeApiServer();
  const { writer, client } = setup(server);
  using _client = client;
  const result = applied(
    await writer.write([group(PUBLIC, ["192.0.2.2", "192.0.2.1"]), group(INTERNAL, ["10.0.0.1"])], never),
  );
  assert.deepEqual([result.groups, result.added, result.removed], [2, 2, 0]);
  assert.deepEqual(result.actions, [
    { kind: "created", name: "kuberture-internal", group: "internal" },
    { kind: "created", name: "kuberture-public", group: "public" },
  ]);
  const stored = services(server).get("kuberture-public");
  assert.deepEqual(stored?.spec, { type: "ClusterIP", clusterIP: "None" });
  assert.equal(metaOf(stored).namespace, NAMESPACE);
  assert.deepEqual(metaOf(stored).labels, LABELS);
  assert.deepEqual(metaOf(stored).annotations, {
    "external-dns.alpha.kubernetes.io/hostname": "api.k8s.example.com",
    "external-dns.alpha.kubernetes.io/target": "192.0.2.1,192.0.2.2",
    "external-dns.alpha.kubernetes.io/ttl": "60",
  });
  assert.deepEqual(metaOf(stored).ownerReferences, [OWNER], "the owner rides in the manifest");
  assert.equal(metaOf(services(server).get("kuberture-internal")).namespace, NAMESPACE);
  assert.deepEqual(
    server.audit.filter((entry) => entry.method === "POST").map((entry) => entry.query.fieldManager),
    ["kuberture", "kuberture"],
  );
  assert.deepEqual(
    server.audit.find((entry) => entry.method === "GET" && entry.path.endsWith("/services"))?.query
      .labelSelector,
    "app.kubernetes.io/managed-by=kuberture,kuberture/instance=main",
  );

  const again = applied(
    await writer.write([group(PUBLIC, ["192.0.2.1", "192.0.2.2"]), group(INTERNAL, ["10.0.0.1"])], never),
  );
  assert.deepEqual(again.actions, [], "nothing differs");
});

Deno.test("owned-object writer: a foreign Service of an output's name is refused and untouched; ouroboros' records are not kuberture's", async () => {
  await using server = await startFakeApiServer();
  const foreign = server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kuberture-internal", namespace: NAMESPACE, labels: { app: "web" } },
    spec: { type: "ClusterIP", clusterIP: "10.0.0.99", ports: [{ port: 80 }] },
  });
  const ouroboros = server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      name: "ouroboros-shop-example-com-951623a26f8b",
      namespace: NAMESPACE,
      labels: { "app.kubernetes.io/managed-by": "ouroboros", "ouroboros.lexfrei.tech/instance": "main" },
    },
    spec: { type: "ClusterIP", clusterIP: "None" },
  });
  const { writer, client } = setup(server);
  using _client = client;
  const result = applied(
    await writer.write([group(PUBLIC, ["192.0.2.1"]), group(INTERNAL, ["10.0.0.1"])], never),
  );
  assert.deepEqual(result.refused, [{
    group: "internal",
    name: "kuberture-internal",
    problem: "foreign-object",
    uid: (foreign.metadata as Json).uid,
  }]);
  assert.deepEqual(writer.reference("kuberture-internal", result.refused[0]?.uid), {
    apiVersion: "v1",
    kind: "Service",
    namespace: NAMESPACE,
    name: "kuberture-internal",
    uid: (foreign.metadata as Json).uid,
  }, "what an Event on the object in the way needs");
  assert.deepEqual(result.actions, [{ kind: "created", name: "kuberture-public", group: "public" }]);
  assert.equal(JSON.stringify(services(server).get("kuberture-internal")), JSON.stringify(foreign));
  assert.equal(
    JSON.stringify(services(server).get("ouroboros-shop-example-com-951623a26f8b")),
    JSON.stringify(ouroboros),
  );

  const removed = applied(await writer.write([group(PUBLIC, ["192.0.2.1"])], never));
  assert.deepEqual(removed.actions, [], "the internal output is gone, but its name was never kuberture's");
  assert.ok(services(server).has("kuberture-internal"));
});

Deno.test("owned-object writer: an output without addresses keeps its Service; a removed output's Service is deleted", async () => {
  await using server = await startFakeApiServer();
  const { writer, client } = setup(server);
  using _client = client;
  await writer.write([group(PUBLIC, ["192.0.2.1"]), group(INTERNAL, ["10.0.0.1"])], never);

  const skipped = applied(await writer.write([group(PUBLIC, ["192.0.2.9"]), group(INTERNAL, [])], never));
  assert.deepEqual(skipped.actions, [{ kind: "updated", name: "kuberture-public", group: "public" }]);
  assert.equal(
    (metaOf(services(server).get("kuberture-internal")).annotations as Json)[
      "internal-dns.example.com/target"
    ],
    "10.0.0.1",
    "the split-brain guard: the last good Service stays",
  );
  assert.deepEqual(
    server.audit.filter((entry) => entry.method === "PATCH").map((entry) => entry.query.fieldManager),
    ["kuberture"],
  );

  const gone = applied(await writer.write([group(PUBLIC, ["192.0.2.9"])], never));
  assert.deepEqual(gone.actions, [{ kind: "deleted", name: "kuberture-internal" }]);
  assert.equal(gone.removed, 1);
  assert.deepEqual([...services(server).keys()], ["kuberture-public"]);
});

Deno.test("owned-object writer: the mass-prune guards hold with any groups, and a failed listing is a value", async (t) => {
  await using server = await startFakeApiServer();
  const { writer, client } = setup(server);
  using _client = client;
  await writer.write([group(PUBLIC, ["192.0.2.1"])], never);
  const before = server.audit.length;
  await t.step("no output at all", async () => {
    assert.deepEqual(await writer.write([], never), { kind: "guarded", guard: "empty-desired", owned: 1 });
  });
  await t.step("no output has an address", async () => {
    assert.deepEqual(await writer.write([group(PUBLIC, []), group(INTERNAL, [])], never), {
      kind: "guarded",
      guard: "nothing-built",
    });
  });
  assert.deepEqual(server.audit.slice(before).map((entry) => entry.method), ["GET", "GET"], "lists only");
  await t.step("the listing fails", async () => {
    server.faults.inject("list", { type: "status", code: 503, reason: "ServiceUnavailable" });
    const result = await writer.write([group(PUBLIC, ["192.0.2.1"])], never);
    assert.equal(result.kind, "failed");
  });
  await t.step("an abort rejects", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await assert.rejects(writer.write([group(PUBLIC, ["192.0.2.1"])], controller.signal), /stop/);
  });
  assert.ok(services(server).has("kuberture-public"));
});

Deno.test("owned-object writer, pruneAll: deletes every owned object past the empty-desired guard, nothing foreign", async () => {
  await using server = await startFakeApiServer();
  const { writer, client } = setup(server);
  using _client = client;
  await writer.write([group(PUBLIC, ["192.0.2.1"]), group(INTERNAL, ["192.0.2.2"])], never);
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "foreign", namespace: NAMESPACE },
    spec: {},
  });
  const result = await writer.pruneAll(never);
  assert.ok(result.kind === "pruned", JSON.stringify(result));
  assert.deepEqual([...result.deleted].sort(), ["kuberture-internal", "kuberture-public"]);
  assert.deepEqual(result.failures, []);
  assert.deepEqual([...services(server).keys()], ["foreign"]);
  const again = await writer.pruneAll(never);
  assert.ok(again.kind === "pruned" && again.deleted.length === 0 && again.removed === 0);
  server.faults.inject("list", { type: "status", code: 503, reason: "ServiceUnavailable" });
  assert.equal((await writer.pruneAll(never)).kind, "failed");
});

Deno.test("notDeletedMessage names how many failed and the first, with why", () => {
  const error = new Error("403 Forbidden");
  assert.equal(
    notDeletedMessage([{ name: "a", error }, { name: "b", error }]),
    "2 could not be deleted, such as a: 403 Forbidden",
  );
});

Deno.test("owned-object writer, dry run: lists and looks up as a pass does, plans the writes, makes none", async () => {
  await using server = await startFakeApiServer();
  {
    const { writer, client } = setup(server);
    using _client = client;
    applied(await writer.write([group(PUBLIC, ["192.0.2.1"]), group(INTERNAL, ["10.0.0.1"])], never));
  }
  const before = JSON.stringify([...services(server)]);
  const mark = server.audit.length;
  const { writer, client } = setup(server, { dryRun: true });
  using _client = client;
  const result = await writer.write([
    group(PUBLIC, ["192.0.2.9"]),
    group({ ...INTERNAL, name: "other", serviceName: "kuberture-other" }, ["10.0.0.2"]),
  ], never);
  assert.equal(result.kind, "planned", JSON.stringify(result));
  if (result.kind !== "planned") return;
  assert.deepEqual(
    {
      creates: result.writes.creates.map((object) => object.name),
      updates: result.writes.updates.map((update) => update.desired.name),
      deletes: result.writes.deletes.map((object) => object.name),
    },
    { creates: ["kuberture-other"], updates: ["kuberture-public"], deletes: ["kuberture-internal"] },
  );
  // kuberture's Services name no group, so every group counts as added (as in a run).
  assert.deepEqual([result.groups, result.added, result.removed], [2, 2, 1]);
  const methods = server.audit.slice(mark).map((entry) => entry.method);
  assert.ok(methods.length > 0 && methods.every((method) => method === "GET"), methods.join(","));
  assert.equal(JSON.stringify([...services(server)]), before);
});

Deno.test("owned-object writer, server-side apply: every write is an apply as the field manager; what others add stays; a stale version is read again", async () => {
  await using server = await startFakeApiServer();
  let raced = false;
  const { writer, client } = setup(server, {
    serverSideApply: true,
    // The first apply of an update finds the Service changed by someone else since the listing.
    wrap: (kube) => ({
      get: (type, ref, options) => kube.get(type, ref, options),
      listAll: (type, options) => kube.listAll(type, options),
      create: (type, manifest, options) => kube.create(type, manifest, options),
      mergePatch: (type, ref, patch, options) => kube.mergePatch(type, ref, patch, options),
      delete: (type, ref, options) => kube.delete(type, ref, options),
      apply: async (type, manifest, options) => {
        if (!raced && manifest.metadata.resourceVersion !== undefined) {
          raced = true;
          await kube.mergePatch(type, { namespace: NAMESPACE, name: manifest.metadata.name! }, {
            metadata: { annotations: { "racing.example.com/touched": "yes" } },
          }, { fieldManager: "racer" });
        }
        return kube.apply(type, manifest, options);
      },
    }),
  });
  using _client = client;
  const first = applied(await writer.write([group(PUBLIC, ["192.0.2.1"])], never));
  assert.deepEqual(first.actions, [{ kind: "created", name: "kuberture-public", group: "public" }]);
  const writes = server.audit.filter((entry) => ["POST", "PUT", "PATCH"].includes(entry.method));
  assert.deepEqual(writes.map((entry) => [entry.method, entry.query.fieldManager, entry.query.force]), [[
    "PATCH",
    "kuberture",
    "true",
  ]]);

  // Someone else adds a label: an apply leaves it (a merge patch of the whole map would not).
  await client.mergePatch(SERVICE, { namespace: NAMESPACE, name: "kuberture-public" }, {
    metadata: { labels: { team: "edge" } },
  }, { fieldManager: "someone" });
  const second = applied(await writer.write([group(PUBLIC, ["192.0.2.1"])], never));
  assert.deepEqual(second.actions, [], "the same intent again stores nothing");
  assert.deepEqual(second.errors, []);
  assert.equal((metaOf(services(server).get("kuberture-public")).labels as Json).team, "edge");
  assert.equal(raced, true, "the update carried the version it was planned from");

  const third = applied(await writer.write([group(PUBLIC, ["192.0.2.7"])], never));
  assert.deepEqual(third.actions, [{ kind: "updated", name: "kuberture-public", group: "public" }]);
  assert.deepEqual(third.errors, []);
  const stored = metaOf(services(server).get("kuberture-public"));
  assert.equal((stored.annotations as Json)["external-dns.alpha.kubernetes.io/target"], "192.0.2.7");
  assert.equal((stored.annotations as Json)["racing.example.com/touched"], "yes");
  const managers = (stored.managedFields as Json[]).map((entry) => `${entry.manager} ${entry.operation}`);
  assert.ok(managers.includes("kuberture Apply"), managers.join(", "));
});
