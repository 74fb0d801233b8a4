/**
 * Every client verb against the fake API server (tests/support/fake_apiserver), including its
 * failure modes: conflicts, validation, expired continue tokens, 410 on watch, in-stream ERROR
 * events, cut and malformed streams, token rotation, throttling, stalls and black holes.
 *
 * Malformed watch lines are surfaced as an ERROR event (500 InternalError) that ends the
 * stream, as client-go does; the reflector then re-watches from the last complete event.
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import type { Credential, CredentialSource } from "../../lib/kube/credentials.ts";
import {
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isTooManyRequests,
  KubeApiError,
  KubeTransportError,
  retryAfterMs,
} from "../../lib/kube/errors.ts";
import type { WatchEvent } from "../../lib/kube/list_watch.ts";
import { TokenFileSource } from "../../lib/kube/token_file.ts";
import { USER_AGENT } from "../../lib/kube/transport.ts";
import { CONFIG_MAP, type ConfigMap } from "../../lib/resources/config_map.ts";
import { DEPLOYMENT } from "../../lib/resources/deployment.ts";
import { INGRESS } from "../../lib/resources/ingress.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { tempDir } from "../support/temp_dir.ts";

const configMap = (name: string, data: Record<string, string> = {}, labels: Record<string, string> = {}) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", labels },
  data,
});

const ingress = (name: string, host: string) => ({
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  metadata: { name, namespace: "shop" },
  spec: { ingressClassName: "nginx", rules: [{ host }] },
});

function summary(events: readonly WatchEvent<ConfigMap>[]): string[] {
  return events.map((event) => {
    switch (event.type) {
      case "ADDED":
      case "MODIFIED":
      case "DELETED":
        return `${event.type} ${event.object.metadata.name}`;
      case "BOOKMARK":
        return "BOOKMARK";
      case "ERROR":
        return `ERROR ${event.status.code} ${event.status.reason}`;
      case "REJECTED":
        return `REJECTED ${event.failure.key}`;
    }
  });
}

async function collect<T>(events: AsyncIterable<WatchEvent<T>>): Promise<WatchEvent<T>[]> {
  const all: WatchEvent<T>[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const failure = <T>(promise: Promise<T>): Promise<unknown> => promise.then(() => undefined, (error) => error);

const watchFrom = (resourceVersion: string, signal: AbortSignal) => ({
  resourceVersion,
  allowWatchBookmarks: true,
  timeoutSeconds: 300,
  namespace: "ns",
  signal,
});

Deno.test("create, get, update, merge patch and delete round-trip through the fake API server", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const ref = { namespace: "ns", name: "coredns" };

  const created = await client.create(CONFIG_MAP, configMap("coredns", { Corefile: "a", extra: "x" }));
  assert.equal(created.metadata.resourceVersion, server.resourceVersion());
  assert.notEqual(created.metadata.uid, "");
  assert.ok(isAlreadyExists(await failure(client.create(CONFIG_MAP, configMap("coredns")))));

  const got = await client.get(CONFIG_MAP, ref);
  assert.deepEqual(got, created);

  const updated = await client.update(CONFIG_MAP, {
    ...configMap("coredns", { Corefile: "b" }),
    metadata: { ...configMap("coredns").metadata, resourceVersion: got.metadata.resourceVersion },
  });
  assert.deepEqual(updated.data, { Corefile: "b" });
  assert.notEqual(updated.metadata.resourceVersion, got.metadata.resourceVersion);

  // A writer that read before the update is refused: nothing is overwritten.
  const stale = await failure(client.update(CONFIG_MAP, {
    ...configMap("coredns", { Corefile: "stale" }),
    metadata: { ...configMap("coredns").metadata, resourceVersion: got.metadata.resourceVersion },
  }));
  assert.ok(isConflict(stale), String(stale));
  assert.deepEqual((server.get("v1", "ConfigMap", "ns", "coredns") as { data: unknown }).data, {
    Corefile: "b",
  });

  const patched = await client.mergePatch(CONFIG_MAP, ref, {
    data: { hosts: "h" },
    metadata: { labels: { a: "1" } },
  });
  assert.deepEqual(patched.data, { Corefile: "b", hosts: "h" });
  assert.deepEqual(patched.metadata.labels, { a: "1" });
  const removedKey = await client.mergePatch(CONFIG_MAP, ref, { data: { hosts: null } }, {
    resourceVersion: patched.metadata.resourceVersion,
  });
  assert.deepEqual(removedKey.data, { Corefile: "b" });
  const stalePatch = await failure(
    client.mergePatch(CONFIG_MAP, ref, { data: { x: "y" } }, {
      resourceVersion: patched.metadata.resourceVersion,
    }),
  );
  assert.ok(isConflict(stalePatch), String(stalePatch));

  await client.delete(CONFIG_MAP, ref);
  assert.equal(server.get("v1", "ConfigMap", "ns", "coredns"), undefined);
  assert.ok(isNotFound(await failure(client.get(CONFIG_MAP, ref))));
  assert.ok(isNotFound(await failure(client.delete(CONFIG_MAP, ref))));

  assert.ok(server.audit.length > 0);
  assert.ok(server.audit.every((entry) => entry.userAgent === USER_AGENT));
});

Deno.test("scale sets a Deployment's replicas through its scale subresource; a missing one is NotFound", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  const labels = { app: "x" };
  server.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "ns", name: "web", labels },
    spec: {
      replicas: 3,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "c", image: "i" }] } },
    },
  });
  await client.scale(DEPLOYMENT, { namespace: "ns", name: "web" }, 0);
  assert.equal((server.get("apps/v1", "Deployment", "ns", "web")!.spec as { replicas: number }).replicas, 0);
  assert.ok(
    server.audit.some((entry) => entry.method === "PATCH" && entry.path.endsWith("/deployments/web/scale")),
  );
  await assert.rejects(client.scale(DEPLOYMENT, { namespace: "ns", name: "gone" }, 0), isNotFound);
});

Deno.test("the fake's validation errors arrive as 422 Invalid", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const tooBig = await failure(
    client.create(CONFIG_MAP, configMap("big", { Corefile: "x".repeat(1_048_577) })),
  );
  assert.ok(isInvalid(tooBig), String(tooBig));
  const badName = await failure(client.create(CONFIG_MAP, configMap("Not_A_Name")));
  assert.ok(isInvalid(badName), String(badName));
  assert.equal(server.list("v1", "ConfigMap").length, 0);
});

Deno.test("list filters by label; listAll pages through a collection with limit and continue", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  for (let i = 0; i < 7; i++) server.create(ingress(`web-${i}`, `h${i}.example.com`));
  server.create(configMap("a", {}, { app: "dns" }));
  server.create(configMap("b", {}, { app: "web" }));

  const labelled = await client.list(CONFIG_MAP, { namespace: "ns", labelSelector: "app=dns" });
  assert.deepEqual(labelled.items.map((item) => item.metadata.name), ["a"]);

  const before = server.audit.length;
  const all = await client.listAll(INGRESS, { pageSize: 3 });
  assert.deepEqual(all.items.map((item) => item.spec.rules[0]?.host).sort(), [
    "h0.example.com",
    "h1.example.com",
    "h2.example.com",
    "h3.example.com",
    "h4.example.com",
    "h5.example.com",
    "h6.example.com",
  ]);
  assert.equal(all.resourceVersion, server.resourceVersion());
  const pages = server.audit.slice(before);
  assert.deepEqual(pages.map((entry) => [entry.query.limit, entry.query.continue !== undefined]), [
    ["3", false],
    ["3", true],
    ["3", true],
  ]);
});

/** Token-free credentials that run `hook` before the request numbered `at` (1-based). */
function hookBefore(at: number, hook: () => void): CredentialSource {
  let calls = 0;
  return {
    description: "test hook",
    current(): Promise<Credential> {
      calls++;
      if (calls === at) hook();
      return Promise.resolve({});
    },
    invalidate() {},
  };
}

Deno.test("listAll falls back to one unpaged list when compaction expires its continue token", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (let i = 0; i < 5; i++) server.create(ingress(`web-${i}`, `h${i}.example.com`));
  // Compact the server between page 1 and page 2, as etcd compaction would.
  using client = new KubeClient({ server: server.url, credentials: hookBefore(2, () => server.compact()) });
  const all = await client.listAll(INGRESS, { pageSize: 2 });
  assert.deepEqual(all.items.map((item) => item.metadata.name), [
    "web-0",
    "web-1",
    "web-2",
    "web-3",
    "web-4",
  ]);
  assert.deepEqual(
    server.audit.map((entry) => [entry.status, entry.query.limit, entry.query.continue !== undefined]),
    [
      [200, "2", false],
      [410, "2", true],
      [200, undefined, false],
    ],
  );
});

Deno.test("watch delivers ADDED, MODIFIED, DELETED and BOOKMARK events from the fake", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 20 });
  using client = new KubeClient({ server: server.url });
  const start = server.resourceVersion();
  const controller = new AbortController();
  const events: WatchEvent<ConfigMap>[] = [];
  const watching = (async () => {
    for await (const event of client.watch(CONFIG_MAP, watchFrom(start, controller.signal))) {
      events.push(event);
    }
  })();
  await waitFor("the watch to open", () => server.openWatches() === 1);
  server.create(configMap("a"));
  server.update(configMap("a", { k: "v" }));
  server.remove("v1", "ConfigMap", "ns", "a");
  const deletedAt = server.resourceVersion();
  await waitFor(
    "a bookmark after the deletion",
    () => events.some((event) => event.type === "BOOKMARK" && event.resourceVersion === deletedAt),
  );
  controller.abort();
  await watching;
  assert.deepEqual(summary(events).filter((line) => line !== "BOOKMARK"), [
    "ADDED a",
    "MODIFIED a",
    "DELETED a",
  ]);
  const modified = events.find((event) => event.type === "MODIFIED");
  assert.ok(modified?.type === "MODIFIED");
  assert.deepEqual(modified.object.data, { k: "v" });
  await waitFor("the server to see the watch end", () => server.openWatches() === 0);
});

Deno.test("a watch from a compacted resourceVersion rejects with an isGone KubeApiError", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const old = server.resourceVersion();
  server.create(configMap("a"));
  server.compact();
  const error = await failure(
    collect(client.watch(CONFIG_MAP, watchFrom(old, new AbortController().signal))),
  );
  assert.ok(error instanceof KubeApiError, String(error));
  assert.ok(isGone(error));
  assert.equal(error.request, "WATCH /api/v1/namespaces/ns/configmaps");
});

Deno.test("an in-stream ERROR event is delivered and ends the stream", async (t) => {
  for (const [code, reason] of [[410, "Expired"], [500, "InternalError"]] as const) {
    await t.step(`${code} ${reason}`, async () => {
      await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
      using client = new KubeClient({ server: server.url });
      server.faults.inject("watch", { type: "watch-error-event", code, reason });
      const events = await collect(
        client.watch(CONFIG_MAP, watchFrom(server.resourceVersion(), new AbortController().signal)),
      );
      assert.deepEqual(summary(events), [`ERROR ${code} ${reason}`]);
    });
  }
});

Deno.test("a stream cut in the middle of a JSON line ends cleanly; watching again gets the event", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const start = server.resourceVersion();
  server.create(configMap("a"));
  server.faults.inject("watch", { type: "cut-mid-json" });
  assert.deepEqual(
    await collect(client.watch(CONFIG_MAP, watchFrom(start, new AbortController().signal))),
    [],
  );

  const controller = new AbortController();
  const again: WatchEvent<ConfigMap>[] = [];
  for await (const event of client.watch(CONFIG_MAP, watchFrom(start, controller.signal))) {
    again.push(event);
    break;
  }
  assert.deepEqual(summary(again), ["ADDED a"]);
});

Deno.test("a malformed watch line is surfaced as ERROR 500 InternalError and ends the stream", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const start = server.resourceVersion();
  server.create(configMap("a"));
  server.faults.inject("watch", { type: "malformed-line" });
  const events = await collect(client.watch(CONFIG_MAP, watchFrom(start, new AbortController().signal)));
  assert.deepEqual(summary(events), ["ERROR 500 InternalError"]);
  const error = events[0];
  assert.ok(error?.type === "ERROR");
  assert.match(error.status.message, /unable to decode an event from the watch stream: not JSON/);
  await waitFor("the server to see the watch end", () => server.openWatches() === 0);
});

Deno.test("a rotated token is picked up after a 401 and the request succeeds", async () => {
  await using temp = await tempDir("ouroboros-token-");
  const dir = temp.path;
  await Deno.writeTextFile(`${dir}/token`, "token-1");
  await using server = await startFakeApiServer({ token: "token-1", bookmarkIntervalMs: 0 });
  server.create(configMap("a"));
  using client = new KubeClient({
    server: server.url,
    credentials: new TokenFileSource(`${dir}/token`, { clock: new FakeClock() }),
  });
  await client.get(CONFIG_MAP, { namespace: "ns", name: "a" });
  await Deno.writeTextFile(`${dir}/token`, "token-2");
  server.setToken("token-2");
  const got = await client.get(CONFIG_MAP, { namespace: "ns", name: "a" });
  assert.equal(got.metadata.name, "a");
  assert.deepEqual(server.audit.map((entry) => entry.status), [200, 401, 200]);
});

Deno.test("429 with Retry-After is an isTooManyRequests error carrying the wait", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  server.faults.inject("list", {
    type: "status",
    code: 429,
    reason: "TooManyRequests",
    retryAfterSeconds: 4,
  });
  const error = await failure(client.list(CONFIG_MAP, { namespace: "ns" }));
  assert.ok(isTooManyRequests(error), String(error));
  assert.equal(retryAfterMs(error), 4000);
});

Deno.test("a request the server never answers fails at its deadline; a stalled watch ends on abort", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const clock = new FakeClock();
  using client = new KubeClient({ server: server.url, clock, timeoutMs: 10_000 });
  server.faults.inject("get", { type: "blackhole" });
  const pending = failure(client.get(CONFIG_MAP, { namespace: "ns", name: "a" }));
  await waitFor("the request to reach the server", () => server.audit.length === 1);
  clock.advanceSync(10_000);
  const error = await pending;
  assert.ok(error instanceof KubeTransportError, String(error));
  assert.equal(error.kind, "timeout");

  server.faults.inject("watch", { type: "stall" });
  const controller = new AbortController();
  const watching = collect(client.watch(CONFIG_MAP, watchFrom(server.resourceVersion(), controller.signal)));
  await waitFor("the stalled watch to open", () => server.audit.some((entry) => entry.watch));
  controller.abort();
  assert.deepEqual(await watching, []);
});

Deno.test("a list watcher with a label selector sees objects that start matching as ADDED", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  server.create(configMap("a", {}, { app: "other" }));
  const watcher = client.listWatcher(CONFIG_MAP, { namespace: "ns", labelSelector: "app=dns" });
  const listed = await watcher.list({});
  assert.deepEqual(listed.items, []);
  const controller = new AbortController();
  const iterator = watcher.watch({
    resourceVersion: listed.resourceVersion,
    allowWatchBookmarks: false,
    timeoutSeconds: 60,
    signal: controller.signal,
  })[Symbol.asyncIterator]();
  const next = iterator.next();
  await waitFor("the watch to open", () => server.openWatches() === 1);
  server.update(configMap("a", {}, { app: "dns" }));
  const first = await next;
  assert.equal(first.done, false);
  assert.deepEqual(summary([first.value as WatchEvent<ConfigMap>]), ["ADDED a"]);
  await iterator.return?.();
});
