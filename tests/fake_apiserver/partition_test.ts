import assert from "node:assert/strict";
import { type AuditEntry, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FaultPlan } from "../support/fake_apiserver/faults.ts";
import { PartitionTable } from "../support/fake_apiserver/partition.ts";
import { waitFor } from "../support/wait.ts";
import { call, openWatch } from "./wire.ts";

const CM = "/api/v1/namespaces/x/configmaps";
const USERS = { "tok-a": "a", "tok-b": "b" };
const AS_A = { authorization: "Bearer tok-a" };
const AS_B = { authorization: "Bearer tok-b" };

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "x" }, data: {} };
}

/** A request that is expected to hang: it can be checked for having settled, and aborted. */
function pending(url: string, init: RequestInit) {
  const abort = new AbortController();
  let settled = false;
  const response = fetch(url, { ...init, signal: abort.signal }).finally(() => {
    settled = true;
  });
  return { response, settled: () => settled, abort: () => abort.abort() };
}

function heldBy(audit: readonly AuditEntry[], user: string): AuditEntry[] {
  return audit.filter((entry) => entry.user === user && entry.status === 0);
}

Deno.test("PartitionTable: a cut user's reads wait for heal, its writes only for the server stopping", async () => {
  const table = new PartitionTable();
  const stopping = new AbortController();
  table.cut("a");
  table.cut("b");
  assert.deepEqual(table.users(), ["a", "b"]);
  assert.equal(table.isCut("a"), true);
  assert.equal(table.isCut("c"), false);
  const read = table.hold("a", { method: "GET", signal: stopping.signal });
  const write = table.hold("a", { method: "PUT", signal: stopping.signal });
  const otherRead = table.hold("b", { method: "GET", signal: stopping.signal });
  let writeSettled = false;
  void write.then(() => writeSettled = true);
  table.heal("a");
  assert.equal(await read, true, "the read is served after heal");
  assert.deepEqual(table.users(), ["b"]);
  stopping.abort();
  assert.equal(await otherRead, false, "a read still cut off gives up when the server stops");
  assert.equal(await write, false, "the write was never to be served");
  assert.ok(writeSettled);
  assert.equal(await table.hold("c", { method: "GET", signal: stopping.signal }), true, "c is not cut off");
});

Deno.test("a partitioned user's requests are never answered while other users are served; the audit log records them with status 0", async () => {
  await using server = await startFakeApiServer({ users: USERS });
  server.partition("a");
  assert.deepEqual(server.partitioned(), ["a"]);
  const list = pending(`${server.url}${CM}`, { headers: AS_A });
  const create = pending(`${server.url}${CM}`, {
    method: "POST",
    headers: { ...AS_A, "content-type": "application/json" },
    body: JSON.stringify(configMap("from-a")),
  });
  await waitFor("both requests of a to reach the fake", () => heldBy(server.audit, "a").length === 2);
  assert.equal((await call(server.url, "GET", CM, { headers: AS_B })).status, 200, "b is served");
  assert.equal(
    (await call(server.url, "POST", CM, { headers: AS_B, body: configMap("from-b") })).status,
    201,
  );
  assert.equal(list.settled() || create.settled(), false, "a's requests were overtaken and are still open");
  assert.deepEqual(
    server.list("v1", "ConfigMap", "x").map((item) => (item.metadata as { name: string }).name),
    [
      "from-b",
    ],
  );
  list.abort();
  create.abort();
  await assert.rejects(list.response);
  await assert.rejects(create.response);
  assert.deepEqual(
    server.audit.map(({ method, user, status }) => [method, user, status]),
    [["GET", "a", 0], ["POST", "a", 0], ["GET", "b", 200], ["POST", "b", 201]],
  );
});

Deno.test("partition breaks the user's open watches at once, while another user's watch keeps receiving events", async () => {
  await using server = await startFakeApiServer({ users: USERS, bookmarkIntervalMs: 0 });
  const rv = server.resourceVersion();
  await using watchA = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`, {
    headers: AS_A,
  });
  await using watchB = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`, {
    headers: AS_B,
  });
  await waitFor("both watches to be open", () => server.openWatches() === 2);
  server.partition("a");
  assert.equal(server.openWatches(), 1, "a's watch is gone from the server at once");
  await assert.rejects(watchA.next(), "a's stream breaks: no clean end, no event");
  server.create(configMap("later"));
  const event = await watchB.event();
  assert.deepEqual([event.type, event.object.metadata?.name], ["ADDED", "later"]);
});

Deno.test("heal: held reads are served late (a held watch comes to life), held writes are lost, new requests are served", async () => {
  await using server = await startFakeApiServer({ users: USERS, bookmarkIntervalMs: 0 });
  server.create(configMap("existing"));
  const rv = server.resourceVersion();
  server.partition("a");
  const read = pending(`${server.url}${CM}/existing`, { headers: AS_A });
  const write = pending(`${server.url}${CM}`, {
    method: "POST",
    headers: { ...AS_A, "content-type": "application/json" },
    body: JSON.stringify(configMap("lost")),
  });
  const watch = openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`, { headers: AS_A });
  await waitFor("three held requests", () => heldBy(server.audit, "a").length === 3);
  const healedAt = Date.now();
  server.heal("a");
  assert.deepEqual(server.partitioned(), []);
  const answer = await read.response;
  assert.equal(answer.status, 200);
  assert.equal((await answer.json()).metadata.name, "existing");
  await using opened = await watch;
  assert.equal(opened.status, 200);
  server.create(configMap("after-heal"));
  assert.equal((await opened.event()).object.metadata?.name, "after-heal");
  const fresh = await call(server.url, "POST", CM, { headers: AS_A, body: configMap("fresh") });
  assert.equal(fresh.status, 201, "a is served again");
  assert.equal(write.settled(), false, "the held write is never answered");
  assert.equal(server.get("v1", "ConfigMap", "x", "lost"), undefined, "and never applied");
  write.abort();
  await assert.rejects(write.response);
  const served = server.audit.filter((entry) => entry.user === "a" && entry.status === 200);
  assert.deepEqual(
    served.map((entry) => entry.watch),
    [false, true],
    "the late reads are logged when served",
  );
  assert.ok(served.every((entry) => entry.at >= healedAt), "at the time they were served");
});

Deno.test("a request already delayed by a fault when its user is partitioned is held once the delay is over", async () => {
  await using server = await startFakeApiServer({ users: USERS });
  const faults = server.faults;
  assert.ok(faults instanceof FaultPlan);
  faults.inject("get", { type: "delay", ms: 300 }, { user: "a" });
  const read = pending(`${server.url}${CM}/missing`, { headers: AS_A });
  await waitFor("the delayed request to take its fault", () => faults.pending === 0);
  server.partition("a");
  await waitFor("the request to be held after its delay", () => heldBy(server.audit, "a").length === 1);
  assert.equal(read.settled(), false);
  read.abort();
  await assert.rejects(read.response);
});

Deno.test("partition refuses a user the server does not know; without authentication the user is empty", async () => {
  await using secured = await startFakeApiServer({ token: "t", users: USERS });
  assert.throws(() => secured.partition("c"), /unknown user "c" \(known: a, admin, b\)/);
  assert.throws(() => secured.partition(""), /unknown user ""/);
  await using open = await startFakeApiServer();
  open.partition("");
  const held = pending(`${open.url}${CM}`, {});
  await waitFor("the request to be held", () => open.audit.length === 1);
  assert.deepEqual([open.audit[0]!.user, open.audit[0]!.status], ["", 0]);
  held.abort();
  await assert.rejects(held.response);
});

Deno.test("close() releases the held requests of a partition", async () => {
  const server = await startFakeApiServer({ users: USERS });
  server.partition("a");
  const settle = (response: Promise<Response>) =>
    response.then((answer) => answer.body?.cancel(), () => undefined);
  const read = settle(fetch(`${server.url}${CM}`, { headers: AS_A }));
  const write = settle(
    fetch(`${server.url}${CM}`, {
      method: "POST",
      headers: { ...AS_A, "content-type": "application/json" },
      body: JSON.stringify(configMap("x")),
    }),
  );
  await waitFor("both requests to be held", () => heldBy(server.audit, "a").length === 2);
  await server.close();
  await read;
  await write;
  assert.equal(server.get("v1", "ConfigMap", "x", "x"), undefined);
});
