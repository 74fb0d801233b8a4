import assert from "node:assert/strict";
import type { JsonMap } from "../support/fake_apiserver/json.ts";
import { KINDS } from "../support/fake_apiserver/kinds.ts";
import { FakeApiError } from "../support/fake_apiserver/status.ts";
import { type KindStore, Store, type StoreEvent } from "../support/fake_apiserver/store.ts";
import { CONFIGMAP_MAX_BYTES } from "../support/fake_apiserver/validation.ts";

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

function newStore(historyLimit = 1000): Store {
  let uid = 0;
  return new Store({
    kinds: KINDS,
    historyLimit,
    now: () => T0,
    newUid: () => `uid-${++uid}`,
    random: () => 0.5,
  });
}

function kindOf(store: Store, apiVersion: string, kind: string): KindStore {
  const found = store.byKind(apiVersion, kind);
  assert.ok(found, `${apiVersion} ${kind} is served`);
  return found;
}

function meta(object: JsonMap): JsonMap {
  return object.metadata as JsonMap;
}

/** The Status a store call fails with. */
function statusOf(call: () => unknown): { code: number; reason: string; message: string } {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof FakeApiError, `expected a FakeApiError, got ${String(error)}`);
    return error.body;
  }
  assert.fail("expected the call to fail");
}

function recorder(kind: KindStore): StoreEvent[] {
  const events: StoreEvent[] = [];
  kind.subscribe((event) => events.push(event));
  return events;
}

Deno.test("create sets uid, creationTimestamp and a resourceVersion from one global counter", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const ingresses = kindOf(store, "networking.k8s.io/v1", "Ingress");
  const start = store.resourceVersion;
  const a = store.create(configMaps, "x", { metadata: { name: "a" }, data: { k: "v" } });
  const b = store.create(ingresses, "x", { metadata: { name: "b" }, spec: {} });
  assert.equal(a.rv, start + 1);
  assert.equal(b.rv, start + 2, "the counter is shared by every resource type");
  assert.equal(store.resourceVersion, start + 2);
  assert.deepEqual(meta(a.object), {
    name: "a",
    namespace: "x",
    uid: "uid-1",
    resourceVersion: String(start + 1),
    creationTimestamp: "2025-01-02T03:04:05Z",
  });
  assert.equal(a.object.apiVersion, "v1");
  assert.equal(a.object.kind, "ConfigMap");
  assert.equal(meta(b.object).generation, 1, "Ingress keeps a generation");
  assert.equal(meta(a.object).generation, undefined, "ConfigMap has none, as on a real server");
  assert.equal(JSON.parse(a.json).metadata.uid, "uid-1", "the serialised form is the stored object");
});

Deno.test("create refuses a taken name with 409 AlreadyExists, and a resourceVersion in the body with 400", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  store.create(configMaps, "x", { metadata: { name: "a" } });
  const status = statusOf(() => store.create(configMaps, "x", { metadata: { name: "a" } }));
  assert.deepEqual(status, {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: 'configmaps "a" already exists',
    reason: "AlreadyExists",
    details: { name: "a", kind: "configmaps" },
    code: 409,
  });
  store.create(configMaps, "y", { metadata: { name: "a" } }); // same name, other namespace
  assert.equal(
    statusOf(() => store.create(configMaps, "x", { metadata: { name: "b", resourceVersion: "5" } })).code,
    400,
  );
  assert.equal(
    store.create(configMaps, "x", { metadata: { name: "b", resourceVersion: "5" } }, { direct: true }).name,
    "b",
  );
});

Deno.test("create fills generateName, and refuses invalid names with 422", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const generated = store.create(configMaps, "x", { metadata: { generateName: "cm-" } });
  assert.match(generated.name, /^cm-[a-z0-9]{5}$/);
  const status = statusOf(() => store.create(configMaps, "x", { metadata: { name: "Not_Valid" } }));
  assert.equal(status.code, 422);
  assert.equal(status.reason, "Invalid");
  assert.match(status.message, /^ConfigMap "Not_Valid" is invalid: metadata.name: Invalid value/);
  assert.equal(statusOf(() => store.create(configMaps, "x", { metadata: {} })).code, 422);
});

Deno.test("a ConfigMap over 1 MiB of data and binaryData is 422 Invalid; exactly 1 MiB is accepted", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const key = "k";
  const exact = "a".repeat(CONFIGMAP_MAX_BYTES - key.length);
  assert.equal(
    store.create(configMaps, "x", { metadata: { name: "fits" }, data: { [key]: exact } }).name,
    "fits",
  );
  const status = statusOf(() =>
    store.create(configMaps, "x", { metadata: { name: "big" }, data: { [key]: exact + "a" } })
  );
  assert.equal(status.code, 422);
  assert.match(status.message, /Too long: must have at most 1048576 bytes/);
  // binaryData counts its decoded size: 4 base64 characters are 3 bytes.
  const half = "a".repeat(CONFIGMAP_MAX_BYTES / 2);
  const binary = btoa("b".repeat(CONFIGMAP_MAX_BYTES / 2));
  assert.equal(
    statusOf(() =>
      store.create(configMaps, "x", {
        metadata: { name: "mixed" },
        data: { t: half },
        binaryData: { b: binary },
      })
    ).code,
    422,
  );
});

Deno.test("update with a stale resourceVersion is 409 Conflict worded like the real server", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const first = store.create(configMaps, "x", { metadata: { name: "a" }, data: { k: "1" } });
  store.update(configMaps, "x", "a", {
    metadata: { name: "a", resourceVersion: String(first.rv) },
    data: { k: "2" },
  });
  const status = statusOf(() =>
    store.update(configMaps, "x", "a", {
      metadata: { name: "a", resourceVersion: String(first.rv) },
      data: { k: "3" },
    })
  );
  assert.equal(status.code, 409);
  assert.equal(status.reason, "Conflict");
  assert.equal(
    status.message,
    'Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again',
  );
  assert.deepEqual(
    store.get(configMaps, "x", "a")!.object.data as JsonMap,
    { k: "2" },
    "the stale write did not land",
  );
});

Deno.test("update without a resourceVersion: last write wins for built-in kinds, 422 for custom resources", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const routes = kindOf(store, "gateway.networking.k8s.io/v1", "HTTPRoute");
  store.create(configMaps, "x", { metadata: { name: "a" }, data: { k: "1" } });
  const written = store.update(configMaps, "x", "a", { metadata: { name: "a" }, data: { k: "2" } });
  assert.deepEqual(written.object.data, { k: "2" });
  store.create(routes, "x", { metadata: { name: "r" }, spec: { hostnames: ["a.example"] } });
  const status = statusOf(() => store.update(routes, "x", "r", { metadata: { name: "r" }, spec: {} }));
  assert.equal(status.code, 422);
  assert.match(
    status.message,
    /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/,
  );
  assert.deepEqual(
    store.update(routes, "x", "r", { metadata: { name: "r" }, spec: {} }, { direct: true }).object.spec,
    {},
  );
});

Deno.test("generation moves with the spec only; labels, annotations and status leave it", () => {
  const store = newStore();
  const ingresses = kindOf(store, "networking.k8s.io/v1", "Ingress");
  store.create(ingresses, "x", { metadata: { name: "web" }, spec: { rules: [{ host: "a.example" }] } });
  const put = (body: JsonMap, options = {}) => store.update(ingresses, "x", "web", body, options);
  const labelled = put({
    metadata: { name: "web", labels: { a: "b" } },
    spec: { rules: [{ host: "a.example" }] },
  });
  assert.equal(meta(labelled.object).generation, 1);
  const respec = put({
    metadata: { name: "web", labels: { a: "b" } },
    spec: { rules: [{ host: "b.example" }] },
  });
  assert.equal(meta(respec.object).generation, 2);
  const status = put({
    metadata: { name: "web", labels: { a: "b" } },
    spec: { rules: [{ host: "b.example" }] },
    status: { loadBalancer: { ingress: [{ ip: "10.0.0.1" }] } },
  }, { subresource: "status" });
  assert.equal(meta(status.object).generation, 2);
  assert.deepEqual(status.object.status, { loadBalancer: { ingress: [{ ip: "10.0.0.1" }] } });
  assert.ok(status.rv > respec.rv);
});

Deno.test("status is the status subresource's: a main-resource PUT keeps it, a /status PUT changes only it", () => {
  const store = newStore();
  const ingresses = kindOf(store, "networking.k8s.io/v1", "Ingress");
  store.create(ingresses, "x", { metadata: { name: "web" }, spec: { rules: [] }, status: { s: 1 } }, {
    direct: true,
  });
  const main = store.update(ingresses, "x", "web", {
    metadata: { name: "web" },
    spec: { rules: [1] },
    status: { s: 2 },
  });
  assert.deepEqual(main.object.status, { s: 1 }, "the main resource ignores status");
  assert.deepEqual(main.object.spec, { rules: [1] });
  const viaStatus = store.update(ingresses, "x", "web", {
    metadata: { name: "web", labels: { ignored: "yes" } },
    spec: { rules: [2] },
    status: { s: 3 },
  }, { subresource: "status" });
  assert.deepEqual(viaStatus.object.status, { s: 3 });
  assert.deepEqual(viaStatus.object.spec, { rules: [1] }, "/status ignores the spec");
  assert.equal(meta(viaStatus.object).labels, undefined, "/status ignores metadata");
  const created = store.create(ingresses, "x", { metadata: { name: "api" }, spec: {}, status: { s: 9 } });
  assert.equal(created.object.status, undefined, "a create over HTTP drops status, like the real server");
});

Deno.test("an update that changes nothing is no write: same resourceVersion, no event", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const created = store.create(configMaps, "x", {
    metadata: { name: "a", labels: { l: "1" } },
    data: { k: "v" },
  });
  const events = recorder(configMaps);
  const same = store.update(configMaps, "x", "a", {
    data: { k: "v" },
    metadata: { labels: { l: "1" }, name: "a", resourceVersion: String(created.rv) },
  });
  assert.equal(same.rv, created.rv);
  assert.equal(store.resourceVersion, created.rv);
  assert.equal(events.length, 0);
  store.update(configMaps, "x", "a", { metadata: { name: "a" }, data: { k: "w" } });
  assert.deepEqual(events.map((event) => event.type), ["MODIFIED"]);
});

Deno.test("server-owned metadata survives an update: uid, creationTimestamp, namespace", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  store.create(configMaps, "x", { metadata: { name: "a" } });
  const updated = store.update(configMaps, "x", "a", {
    metadata: { name: "a", creationTimestamp: "1999-01-01T00:00:00Z" },
    data: { k: "v" },
  });
  assert.equal(meta(updated.object).uid, "uid-1");
  assert.equal(meta(updated.object).creationTimestamp, "2025-01-02T03:04:05Z");
  assert.equal(meta(updated.object).namespace, "x");
  assert.equal(statusOf(() => store.update(configMaps, "x", "b", { metadata: { name: "b" } })).code, 404);
  assert.equal(statusOf(() => store.update(configMaps, "x", "a", { metadata: { name: "other" } })).code, 400);
  assert.equal(
    statusOf(() => store.update(configMaps, "x", "a", { metadata: { name: "a", uid: "someone-else" } })).code,
    409,
  );
});

Deno.test("delete emits DELETED with a new resourceVersion and honours preconditions", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const created = store.create(configMaps, "x", { metadata: { name: "a" } });
  const events = recorder(configMaps);
  assert.equal(statusOf(() => store.remove(configMaps, "x", "a", { resourceVersion: "1" })).code, 409);
  assert.equal(statusOf(() => store.remove(configMaps, "x", "a", { uid: "nope" })).code, 409);
  const deleted = store.remove(configMaps, "x", "a", {
    resourceVersion: String(created.rv),
    uid: created.uid,
  });
  assert.equal(deleted.rv, created.rv + 1);
  assert.equal(meta(deleted.object).resourceVersion, String(created.rv + 1));
  assert.equal(store.get(configMaps, "x", "a"), undefined);
  assert.deepEqual(events.map((event) => [event.type, event.rv]), [["DELETED", created.rv + 1]]);
  assert.equal(statusOf(() => store.remove(configMaps, "x", "a", {})).code, 404);
});

Deno.test("dry runs compute the answer without storing anything or emitting events", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const events = recorder(configMaps);
  const rv = store.resourceVersion;
  store.create(configMaps, "x", { metadata: { name: "a" } }, { dryRun: true });
  assert.equal(store.get(configMaps, "x", "a"), undefined);
  store.create(configMaps, "x", { metadata: { name: "a" } });
  store.update(configMaps, "x", "a", { metadata: { name: "a" }, data: { k: "v" } }, { dryRun: true });
  store.remove(configMaps, "x", "a", {}, { dryRun: true });
  assert.equal(store.resourceVersion, rv + 1);
  assert.equal(events.length, 1);
  assert.deepEqual(store.get(configMaps, "x", "a")!.object.data, undefined);
});

Deno.test("watch replay: every event after the requested version, in order; the future is 504, forgotten history 410", () => {
  const store = newStore(3);
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const start = store.resourceVersion;
  store.create(configMaps, "x", { metadata: { name: "a" } }); // start+1
  store.create(configMaps, "x", { metadata: { name: "b" } }); // start+2
  store.update(configMaps, "x", "a", { metadata: { name: "a" }, data: { k: "v" } }); // start+3
  assert.deepEqual(
    store.replayAfter(configMaps, start + 1).map((event) => [event.type, event.current.name, event.rv]),
    [["ADDED", "b", start + 2], ["MODIFIED", "a", start + 3]],
  );
  assert.deepEqual(store.replayAfter(configMaps, start + 3), []);
  const future = statusOf(() => store.replayAfter(configMaps, start + 10));
  assert.equal(future.code, 504);
  assert.deepEqual((future as { details?: unknown }).details, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds: 1,
  });
  store.remove(configMaps, "x", "b", {}); // start+4: the history of 3 forgets start+1
  assert.equal(configMaps.floor, start + 1);
  assert.equal(
    store.replayAfter(configMaps, start + 1).length,
    3,
    "resuming at the floor still sees everything",
  );
  const gone = statusOf(() => store.replayAfter(configMaps, start));
  assert.equal(gone.code, 410);
  assert.equal(gone.reason, "Expired");
  assert.equal(gone.message, `too old resource version: ${start} (${start + 1})`);
});

Deno.test("compact forgets every older version; resuming from now still works", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  const ingresses = kindOf(store, "networking.k8s.io/v1", "Ingress");
  const created = store.create(configMaps, "x", { metadata: { name: "a" } });
  store.compact();
  assert.equal(statusOf(() => store.replayAfter(configMaps, created.rv - 1)).code, 410);
  assert.equal(
    statusOf(() => store.replayAfter(ingresses, created.rv - 1)).code,
    410,
    "compaction is global",
  );
  assert.deepEqual(store.replayAfter(configMaps, store.resourceVersion), []);
  const later = store.update(configMaps, "x", "a", { metadata: { name: "a" }, data: { k: "v" } });
  assert.deepEqual(store.replayAfter(configMaps, created.rv).map((event) => event.rv), [later.rv]);
});

Deno.test("snapshots at an older version are rebuilt from history: creates undone, updates and deletes restored", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  store.create(configMaps, "x", { metadata: { name: "b" }, data: { v: "1" } });
  store.create(configMaps, "x", { metadata: { name: "c" } });
  const before = store.resourceVersion;
  store.update(configMaps, "x", "b", { metadata: { name: "b" }, data: { v: "2" } });
  store.remove(configMaps, "x", "c", {});
  store.create(configMaps, "x", { metadata: { name: "a" } });
  const past = store.snapshot(configMaps, {}, before);
  assert.equal(past.rv, before);
  assert.deepEqual(past.items.map((item) => [item.name, item.object.data ?? null]), [["b", { v: "1" }], [
    "c",
    null,
  ]]);
  const now = store.snapshot(configMaps, {});
  assert.deepEqual(now.items.map((item) => [item.name, item.object.data ?? null]), [["a", null], ["b", {
    v: "2",
  }]]);
  assert.equal(now.rv, store.resourceVersion);
});

Deno.test("snapshots filter by namespace and list in namespace/name order", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  for (const [namespace, name] of [["b", "z"], ["a", "y"], ["b", "a"], ["a", "x"]] as const) {
    store.create(configMaps, namespace, { metadata: { name } });
  }
  assert.deepEqual(store.snapshot(configMaps, {}).items.map((item) => item.key), [
    "a/x",
    "a/y",
    "b/a",
    "b/z",
  ]);
  assert.deepEqual(store.snapshot(configMaps, { namespace: "b" }).items.map((item) => item.key), [
    "b/a",
    "b/z",
  ]);
});

Deno.test("cluster-scoped kinds drop the namespace; Namespaces start Active", () => {
  const store = newStore();
  const namespaces = kindOf(store, "v1", "Namespace");
  const created = store.create(namespaces, "ignored", {
    metadata: { name: "team-a", namespace: "whatever" },
  });
  assert.equal(created.key, "team-a");
  assert.equal(meta(created.object).namespace, undefined);
  assert.deepEqual(created.object.status, { phase: "Active" });
});

Deno.test("an object leaving a selector reaches that watcher as DELETED carrying its previous state", () => {
  const store = newStore();
  const configMaps = kindOf(store, "v1", "ConfigMap");
  store.create(configMaps, "x", { metadata: { name: "a", labels: { app: "web" } } });
  const events = recorder(configMaps);
  store.update(configMaps, "x", "a", { metadata: { name: "a", labels: { app: "db" } } });
  const left = Store.retyped(events[0]!, "DELETED");
  const line = JSON.parse(left.line());
  assert.equal(line.type, "DELETED");
  assert.deepEqual(line.object.metadata.labels, { app: "web" }, "the state the watcher last saw");
  assert.equal(line.object.metadata.resourceVersion, String(events[0]!.rv), "at the change's version");
});
