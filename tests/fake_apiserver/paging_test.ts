import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { decodeContinue, encodeContinue, page } from "../support/fake_apiserver/paging.ts";
import { FakeApiError } from "../support/fake_apiserver/status.ts";
import { call, openWatch } from "./wire.ts";

const ING = "/apis/networking.k8s.io/v1/ingresses";

function ingress(name: string, namespace = "shop", labels: Record<string, string> = {}) {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { name, namespace, labels },
    spec: {},
  };
}

interface ListBody {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { metadata: { name: string; namespace: string; resourceVersion: string } }[];
}

async function listPage(
  url: string,
  query: string,
): Promise<{ status: number; body: ListBody; raw: Record<string, unknown> }> {
  const answer = await call(url, "GET", `${ING}?${query}`);
  return { status: answer.status, body: answer.body as unknown as ListBody, raw: answer.body };
}

Deno.test("continue tokens round-trip and malformed ones are 400, not a silent restart", () => {
  const token = { rv: 1234, offset: 500, epoch: 2 };
  assert.deepEqual(decodeContinue(encodeContinue(token)), token);
  assert.match(encodeContinue(token), /^[A-Za-z0-9_-]+$/, "URL-safe without escaping");
  for (
    const bad of ["", "not-base64!", btoa("{}"), btoa('{"v":"fake.k8s.io/v1","rv":1,"offset":-1,"epoch":0}')]
  ) {
    assert.throws(
      () => decodeContinue(bad),
      (error: unknown) => error instanceof FakeApiError && error.code === 400,
    );
  }
});

Deno.test("page cuts at the limit and reports where the next page starts", () => {
  const items = [1, 2, 3, 4, 5];
  assert.deepEqual(page(items, 0, 2), { items: [1, 2], next: 2, remaining: 3 });
  assert.deepEqual(page(items, 4, 2), { items: [5], next: undefined, remaining: 0 });
  assert.deepEqual(page(items, 3, 2), { items: [4, 5], next: undefined, remaining: 0 });
  assert.deepEqual(page(items, 0, undefined), { items, next: undefined, remaining: 0 });
});

Deno.test("a paged list returns every object exactly once, and every page carries the same list resourceVersion", async () => {
  await using server = await startFakeApiServer();
  for (let i = 0; i < 25; i++) {
    server.create(ingress(`web-${String(i).padStart(2, "0")}`, i % 2 === 0 ? "a" : "b"));
  }
  const names: string[] = [];
  const versions = new Set<string>();
  const remaining: (number | undefined)[] = [];
  let token: string | undefined;
  do {
    const { status, body } = await listPage(server.url, `limit=10${token ? `&continue=${token}` : ""}`);
    assert.equal(status, 200);
    names.push(...body.items.map((item) => `${item.metadata.namespace}/${item.metadata.name}`));
    versions.add(body.metadata.resourceVersion);
    remaining.push(body.metadata.remainingItemCount);
    token = body.metadata.continue;
  } while (token !== undefined);
  assert.equal(names.length, 25);
  assert.equal(new Set(names).size, 25);
  assert.deepEqual(names, [...names].sort(), "namespace/name order, like etcd keys");
  assert.deepEqual([...versions], [server.resourceVersion()]);
  assert.deepEqual(remaining, [15, 5, undefined]);
});

Deno.test("pages after the first show the first page's snapshot even when objects change in between", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const name of ["a", "b", "c", "d"]) server.create(ingress(name));
  const first = await listPage(server.url, "limit=2");
  const listRv = first.body.metadata.resourceVersion;
  assert.deepEqual(first.body.items.map((item) => item.metadata.name), ["a", "b"]);
  // Between pages: c is deleted, d is changed, e is created.
  server.remove("networking.k8s.io/v1", "Ingress", "shop", "c");
  const changedD = server.update({ ...ingress("d"), spec: { rules: [{ host: "d.example" }] } });
  server.create(ingress("e"));
  const second = await listPage(server.url, `limit=2&continue=${first.body.metadata.continue}`);
  assert.equal(second.body.metadata.resourceVersion, listRv);
  assert.deepEqual(second.body.items.map((item) => item.metadata.name), ["c", "d"]);
  assert.notEqual(
    second.body.items[1]!.metadata.resourceVersion,
    (changedD.metadata as { resourceVersion: string }).resourceVersion,
    "d as it was at the snapshot",
  );
  assert.equal(second.body.metadata.continue, undefined);
  // The changes arrive through a watch from the list's resourceVersion, in order.
  await using watch = await openWatch(server.url, `${ING}?watch=true&resourceVersion=${listRv}`);
  const events = [await watch.event(), await watch.event(), await watch.event()];
  assert.deepEqual(events.map((event) => [event.type, event.object.metadata?.name]), [
    ["DELETED", "c"],
    ["MODIFIED", "d"],
    ["ADDED", "e"],
  ]);
});

Deno.test("compact() expires continue tokens with 410 Expired; a fresh list then works", async () => {
  await using server = await startFakeApiServer();
  for (const name of ["a", "b", "c"]) server.create(ingress(name));
  const first = await listPage(server.url, "limit=1");
  server.compact();
  const expired = await listPage(server.url, `limit=1&continue=${first.body.metadata.continue}`);
  assert.equal(expired.status, 410);
  assert.equal(expired.raw.kind, "Status");
  assert.equal(expired.raw.reason, "Expired");
  assert.equal(expired.raw.code, 410);
  assert.match(String(expired.raw.message), /continue parameter is too old/);
  const fresh = await listPage(server.url, "limit=10");
  assert.equal(fresh.status, 200);
  assert.equal(fresh.body.items.length, 3);
});

Deno.test("a continue token expires once the history no longer reaches back to its snapshot", async () => {
  await using server = await startFakeApiServer({ historyLimit: 2 });
  for (const name of ["a", "b", "c"]) server.create(ingress(name));
  const first = await listPage(server.url, "limit=1");
  const second = await listPage(server.url, `limit=1&continue=${first.body.metadata.continue}`);
  assert.equal(second.status, 200, "within the window the token works");
  for (const name of ["x", "y", "z"]) server.create(ingress(name, "other"));
  const third = await listPage(server.url, `limit=1&continue=${second.body.metadata.continue}`);
  assert.equal(third.status, 410);
});

Deno.test("paging works over a label-filtered list, page by page, without gaps", async () => {
  await using server = await startFakeApiServer();
  for (let i = 0; i < 9; i++) server.create(ingress(`i${i}`, "shop", { pick: i % 3 === 0 ? "yes" : "no" }));
  const names: string[] = [];
  let token: string | undefined;
  do {
    const { body } = await listPage(
      server.url,
      `labelSelector=pick%3Dyes&limit=2${token ? `&continue=${token}` : ""}`,
    );
    names.push(...body.items.map((item) => item.metadata.name));
    assert.equal(body.metadata.remainingItemCount, undefined, "no count when a selector filters");
    token = body.metadata.continue;
  } while (token !== undefined);
  assert.deepEqual(names, ["i0", "i3", "i6"]);
});
