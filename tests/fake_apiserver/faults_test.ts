import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";
import { call, openWatch } from "./wire.ts";

const CM = "/api/v1/namespaces/x/configmaps";

function configMap(name: string) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: "x" }, data: {} };
}

Deno.test("a status fault answers the next N matching requests with that Status and Retry-After, then stops", async () => {
  await using server = await startFakeApiServer();
  server.faults.inject(
    "list",
    { type: "status", code: 429, reason: "TooManyRequests", retryAfterSeconds: 3 },
    {
      count: 2,
    },
  );
  const get = await call(server.url, "GET", `${CM}/missing`);
  assert.equal(get.status, 404, "a get is not a list");
  for (let i = 0; i < 2; i++) {
    const answer = await call(server.url, "GET", CM);
    assert.equal(answer.status, 429);
    assert.equal(answer.headers.get("retry-after"), "3");
    assert.deepEqual(
      [answer.body.kind, answer.body.reason, answer.body.code, answer.body.details],
      ["Status", "TooManyRequests", 429, { retryAfterSeconds: 3 }],
    );
  }
  assert.equal((await call(server.url, "GET", CM)).status, 200);
});

Deno.test("a fault can target a path, carry causes, and faults are used in the order injected", async () => {
  await using server = await startFakeApiServer();
  server.faults.inject("any", { type: "status", code: 403, reason: "Forbidden" }, { path: /\/ingresses$/ });
  server.faults.inject("list", {
    type: "status",
    code: 504,
    reason: "Timeout",
    message: "Too large resource version",
    causes: ["ResourceVersionTooLarge"],
  });
  server.faults.inject("list", { type: "status", code: 500, reason: "InternalError" });
  const configMaps = await call(server.url, "GET", CM);
  assert.equal(configMaps.status, 504);
  assert.deepEqual(configMaps.body.details, { causes: [{ reason: "ResourceVersionTooLarge" }] });
  assert.equal((await call(server.url, "GET", "/apis/networking.k8s.io/v1/ingresses")).status, 403);
  assert.equal((await call(server.url, "GET", CM)).status, 500);
  assert.equal((await call(server.url, "GET", CM)).status, 200);
  assert.throws(() => server.faults.inject("lists", { type: "stall" }), /unknown verb/);
});

Deno.test("a fault aimed at one user hits only that user's requests, however many others come first", async () => {
  await using server = await startFakeApiServer({ users: { "tok-a": "a", "tok-b": "b" } });
  const as = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
  server.faults.inject("list", { type: "status", code: 500, reason: "InternalError" }, {
    user: "b",
    count: 2,
  });
  assert.equal((await call(server.url, "GET", CM, as("tok-a"))).status, 200);
  assert.equal((await call(server.url, "GET", CM, as("tok-a"))).status, 200);
  assert.equal((await call(server.url, "GET", CM, as("tok-b"))).status, 500);
  assert.equal((await call(server.url, "GET", CM, as("tok-a"))).status, 200);
  assert.equal((await call(server.url, "GET", CM, as("tok-b"))).status, 500);
  assert.equal((await call(server.url, "GET", CM, as("tok-b"))).status, 200, "both used up");
  assert.deepEqual(
    server.audit.map((entry) => `${entry.user}:${entry.status}`),
    ["a:200", "a:200", "b:500", "a:200", "b:500", "b:200"],
  );
});

Deno.test("clear() forgets faults that were not used yet", async () => {
  await using server = await startFakeApiServer();
  server.faults.inject("any", { type: "status", code: 500, reason: "InternalError" }, { count: 5 });
  server.faults.clear();
  assert.equal((await call(server.url, "GET", CM)).status, 200);
});

Deno.test("watch-error-event: 200, then one ERROR event with the Status, then the end of the stream", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" });
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&resourceVersion=${server.resourceVersion()}`,
  );
  assert.equal(watch.status, 200);
  const lines = await watch.rest();
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.type, "ERROR");
  assert.deepEqual(
    [lines[0]!.object.kind, lines[0]!.object.status, lines[0]!.object.code, lines[0]!.object.reason],
    ["Status", "Failure", 410, "Expired"],
  );
});

Deno.test("close-immediately: a watch gets 200 and ends with zero events", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(configMap("a"));
  server.faults.inject("watch", { type: "close-immediately" });
  await using watch = await openWatch(server.url, `${CM}?watch=true&resourceVersion=0`);
  assert.equal(watch.status, 200);
  assert.deepEqual(await watch.next(), { type: "end", rest: "" });
});

Deno.test("cut-mid-json: the watch sends half of the next event's line and then closes", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const rv = server.resourceVersion();
  server.faults.inject("watch", { type: "cut-mid-json" });
  await using watch = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  const created = server.create(configMap("a"));
  const end = await watch.next();
  assert.equal(end.type, "end");
  if (end.type !== "end") return;
  assert.ok(end.rest.length > 0, "something was sent");
  assert.throws(() => JSON.parse(end.rest), "the line is incomplete");
  assert.ok(
    `{"type":"ADDED","object":${JSON.stringify(created)}}`.startsWith(end.rest),
    "a prefix of the event",
  );
  // The event is not lost: a new watch from the same version delivers it whole.
  await using again = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  assert.equal((await again.event()).object.metadata?.name, "a");
});

Deno.test("cut-mid-json on a list: the body is a truncated JSON document", async () => {
  await using server = await startFakeApiServer();
  server.create(configMap("a"));
  server.faults.inject("list", { type: "cut-mid-json" });
  const answer = await call(server.url, "GET", CM);
  assert.equal(answer.status, 200);
  assert.throws(() => JSON.parse(answer.text));
  assert.ok(answer.text.startsWith('{"kind":"ConfigMapList"'));
});

Deno.test("malformed-line: the watch sends a line that is not JSON, then the events as usual", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.faults.inject("watch", { type: "malformed-line" });
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&resourceVersion=${server.resourceVersion()}`,
  );
  server.create(configMap("a"));
  const first = await watch.next();
  assert.equal(first.type, "line");
  assert.equal(first.type === "line" ? first.json : "n/a", undefined, "not JSON");
  assert.equal((await watch.event()).object.metadata?.name, "a");
});

Deno.test("stall: headers arrive, the body never does, until the client gives up", async () => {
  await using server = await startFakeApiServer();
  server.faults.inject("list", { type: "stall" });
  const abort = new AbortController();
  const response = await fetch(`${server.url}${CM}`, { signal: abort.signal });
  assert.equal(response.status, 200);
  const body = response.text();
  // Another request completes while the stalled body is still open.
  assert.equal((await call(server.url, "GET", CM)).status, 200);
  abort.abort();
  await assert.rejects(body);
});

Deno.test("delay: the answer comes after the delay, while other requests are answered meanwhile", async () => {
  await using server = await startFakeApiServer();
  server.faults.inject("get", { type: "delay", ms: 500 }, { path: /slow$/ });
  server.create(configMap("slow"));
  let delayedDone = false;
  const delayed = call(server.url, "GET", `${CM}/slow`).then((answer) => {
    delayedDone = true;
    return answer;
  });
  assert.equal((await call(server.url, "GET", CM)).status, 200);
  assert.equal(delayedDone, false, "the delayed request was overtaken");
  const answer = await delayed;
  assert.equal(answer.status, 200);
  assert.equal((answer.body.metadata as { name: string }).name, "slow");
});

Deno.test("blackhole: the request is accepted and never answered; the audit log shows it with status 0", async () => {
  await using server = await startFakeApiServer();
  server.faults.inject("list", { type: "blackhole" });
  const abort = new AbortController();
  const pending = fetch(`${server.url}${CM}`, { signal: abort.signal });
  await waitFor("the blackholed request to reach the server", () => server.audit.length === 1);
  assert.deepEqual([server.audit[0]!.path, server.audit[0]!.status], [CM, 0]);
  assert.equal((await call(server.url, "GET", CM)).status, 200, "the server still answers others");
  abort.abort();
  await assert.rejects(pending);
});

Deno.test("close() releases blackholed and stalled requests so nothing is left open", async () => {
  const server = await startFakeApiServer();
  server.faults.inject("list", { type: "blackhole" });
  server.faults.inject("get", { type: "stall" });
  const blackholed = fetch(`${server.url}${CM}`).then((response) => response.body?.cancel(), () => undefined);
  const stalled = await fetch(`${server.url}${CM}/a`);
  await waitFor("both requests to arrive", () => server.audit.length === 2);
  await server.close();
  await blackholed;
  assert.equal(await stalled.text(), "");
});

Deno.test("stop() refuses connections and breaks open watches; restart() serves the same state on the same port", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const created = server.create(configMap("a"));
  const rv = (created.metadata as { resourceVersion: string }).resourceVersion;
  const port = server.port;
  const watch = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  try {
    await waitFor("the watch to be open", () => server.openWatches() === 1);
    await server.stop();
    const broken = await watch.next().then((read) => read.type, (error: unknown) => String(error));
    assert.notEqual(broken, "line", "no data after stop");
  } finally {
    await watch.close();
  }
  await assert.rejects(fetch(`${server.url}${CM}`), "connections are refused while stopped");
  server.create(configMap("while-down"));
  await server.restart();
  assert.equal(server.port, port);
  const list = await call(server.url, "GET", CM);
  assert.deepEqual((list.body.items as { metadata: { name: string } }[]).map((item) => item.metadata.name), [
    "a",
    "while-down",
  ]);
  await using resumed = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  assert.equal(
    (await resumed.event()).object.metadata?.name,
    "while-down",
    "the history survived the restart",
  );
});
