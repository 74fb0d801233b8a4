import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";
import { call, openWatch, type WatchLine } from "./wire.ts";

const CM = "/api/v1/namespaces/x/configmaps";
const ALL_CM = "/api/v1/configmaps";

function configMap(
  name: string,
  namespace = "x",
  labels: Record<string, string> = {},
  data: Record<string, string> = {},
) {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace, labels }, data };
}

function summary(line: WatchLine): [string, unknown] {
  return [line.type, line.object.metadata?.name];
}

Deno.test("kubectl-style list then watch from the list's resourceVersion sees every later change, in order", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(configMap("before"));
  const list = await call(server.url, "GET", CM);
  const listRv = (list.body.metadata as { resourceVersion: string }).resourceVersion;
  await using watch = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${listRv}`);
  assert.equal(watch.status, 200);
  assert.equal(watch.headers.get("content-type"), "application/json");
  server.create(configMap("a"));
  server.update(configMap("a", "x", {}, { k: "v" }));
  server.remove("v1", "ConfigMap", "x", "a");
  const events = [await watch.event(), await watch.event(), await watch.event()];
  assert.deepEqual(events.map(summary), [["ADDED", "a"], ["MODIFIED", "a"], ["DELETED", "a"]]);
  const versions = events.map((event) => Number(event.object.metadata?.resourceVersion));
  assert.deepEqual(versions, [...versions].sort((p, q) => p - q));
  assert.equal(
    String(versions[2]),
    server.resourceVersion(),
    "the DELETED event carries the deletion's version",
  );
  assert.equal(events[1]!.object.kind, "ConfigMap");
  assert.deepEqual(events[1]!.object.data, { k: "v" });
});

Deno.test("a watch from an older resourceVersion replays the history after it before live events", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const start = server.resourceVersion();
  server.create(configMap("a"));
  server.create(configMap("b"));
  await using watch = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${start}`);
  server.create(configMap("c"));
  assert.deepEqual([await watch.event(), await watch.event(), await watch.event()].map(summary), [
    ["ADDED", "a"],
    ["ADDED", "b"],
    ["ADDED", "c"],
  ]);
});

Deno.test("a watch from 0 or without a version starts with the current objects as ADDED", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(configMap("a"));
  server.create(configMap("b"));
  server.update(configMap("a", "x", {}, { changed: "yes" }));
  for (const query of ["watch=true&resourceVersion=0", "watch=true"]) {
    await using watch = await openWatch(server.url, `${CM}?${query}`);
    const first = [await watch.event(), await watch.event()];
    assert.deepEqual(first.map(summary), [["ADDED", "a"], ["ADDED", "b"]], query);
    assert.deepEqual(first[0]!.object.data, { changed: "yes" }, "the current state, not the history");
  }
});

Deno.test("a namespace watch sees only its namespace; an all-namespaces watch sees all", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const rv = server.resourceVersion();
  await using one = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  await using all = await openWatch(server.url, `${ALL_CM}?watch=true&resourceVersion=${rv}`);
  server.create(configMap("elsewhere", "y"));
  server.create(configMap("here", "x"));
  assert.deepEqual(summary(await one.event()), ["ADDED", "here"]);
  assert.deepEqual([await all.event(), await all.event()].map(summary), [["ADDED", "elsewhere"], [
    "ADDED",
    "here",
  ]]);
});

Deno.test("a label-selector watch turns objects entering the selector into ADDED and leaving it into DELETED", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(configMap("a", "x", { app: "other" }));
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&labelSelector=app%3Dweb&resourceVersion=${server.resourceVersion()}`,
  );
  server.update(configMap("a", "x", { app: "web" }));
  server.update(configMap("a", "x", { app: "web" }, { k: "v" }));
  server.update(configMap("a", "x", { app: "gone" }, { k: "v" }));
  server.create(configMap("z", "x", { app: "other" }));
  server.create(configMap("w", "x", { app: "web" }));
  const events = [await watch.event(), await watch.event(), await watch.event(), await watch.event()];
  assert.deepEqual(events.map(summary), [["ADDED", "a"], ["MODIFIED", "a"], ["DELETED", "a"], [
    "ADDED",
    "w",
  ]]);
  assert.deepEqual(
    events[2]!.object.metadata?.labels,
    { app: "web" },
    "DELETED carries the last matching state",
  );
});

Deno.test("a single-object watch (fieldSelector metadata.name, or the legacy /watch/ path) sees only that object", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const rv = server.resourceVersion();
  await using byField = await openWatch(
    server.url,
    `${CM}?watch=true&fieldSelector=metadata.name%3Dtarget&resourceVersion=${rv}`,
  );
  await using legacy = await openWatch(
    server.url,
    `/api/v1/watch/namespaces/x/configmaps/target?resourceVersion=${rv}`,
  );
  server.create(configMap("noise"));
  server.create(configMap("target"));
  assert.deepEqual(summary(await byField.event()), ["ADDED", "target"]);
  assert.deepEqual(summary(await legacy.event()), ["ADDED", "target"]);
});

Deno.test("bookmarks carry only kind, apiVersion and the current resourceVersion, and only for watches that allow them", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 20 });
  server.create(configMap("a"));
  const rv = server.resourceVersion();
  await using allowed = await openWatch(
    server.url,
    `${CM}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
  );
  await using plain = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  const bookmarks: WatchLine[] = [];
  while (bookmarks.length < 3) bookmarks.push(await allowed.event());
  for (const bookmark of bookmarks) {
    assert.deepEqual(bookmark, {
      type: "BOOKMARK",
      object: { kind: "ConfigMap", apiVersion: "v1", metadata: { resourceVersion: rv } },
    });
  }
  server.create(configMap("b", "other-namespace"));
  let next = await allowed.event();
  assert.equal(next.type, "BOOKMARK");
  while (next.object.metadata?.resourceVersion === rv) next = await allowed.event();
  assert.equal(
    next.object.metadata?.resourceVersion,
    server.resourceVersion(),
    "bookmarks advance with writes elsewhere",
  );
  server.create(configMap("c"));
  assert.deepEqual(
    summary(await plain.event()),
    ["ADDED", "c"],
    "no bookmark reached the watch that did not ask",
  );
});

Deno.test("sendInitialEvents=true ends the initial objects with a bookmark annotated k8s.io/initial-events-end", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(configMap("a"));
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan`,
  );
  assert.deepEqual(summary(await watch.event()), ["ADDED", "a"]);
  const end = await watch.event();
  assert.equal(end.type, "BOOKMARK");
  assert.deepEqual(end.object.metadata, {
    resourceVersion: server.resourceVersion(),
    annotations: { "k8s.io/initial-events-end": "true" },
  });
});

Deno.test("timeoutSeconds ends the stream cleanly, after delivering what happened before", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&timeoutSeconds=1&resourceVersion=${server.resourceVersion()}`,
  );
  server.create(configMap("a"));
  const lines = await watch.rest();
  assert.deepEqual(lines.map(summary), [["ADDED", "a"]]);
  await waitFor("the ended watch to be forgotten", () => server.openWatches() === 0);
});

Deno.test("a watch from a version older than the history is answered 410 Expired at request time", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0, historyLimit: 2 });
  const start = server.resourceVersion();
  for (const name of ["a", "b", "c"]) server.create(configMap(name));
  const answer = await call(server.url, "GET", `${CM}?watch=true&resourceVersion=${start}`);
  assert.equal(answer.status, 410);
  assert.deepEqual(
    [answer.body.kind, answer.body.status, answer.body.reason, answer.body.code],
    ["Status", "Failure", "Expired", 410],
  );
  assert.match(String(answer.body.message), /^too old resource version: \d+ \(\d+\)$/);
  const future = await call(
    server.url,
    "GET",
    `${CM}?watch=true&resourceVersion=${Number(server.resourceVersion()) + 1}`,
  );
  assert.equal(future.status, 504);
  assert.equal(server.openWatches(), 0);
});

Deno.test("after compact() a watch from before is 410 while a watch from now resumes normally", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const before = server.resourceVersion();
  server.create(configMap("a"));
  server.compact();
  assert.equal((await call(server.url, "GET", `${CM}?watch=true&resourceVersion=${before}`)).status, 410);
  await using watch = await openWatch(
    server.url,
    `${CM}?watch=true&resourceVersion=${server.resourceVersion()}`,
  );
  assert.equal(watch.status, 200);
  server.create(configMap("b"));
  assert.deepEqual(summary(await watch.event()), ["ADDED", "b"]);
});

Deno.test("dropWatches ends every open watch cleanly; a new watch from the last version misses nothing", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const rv = server.resourceVersion();
  await using first = await openWatch(server.url, `${CM}?watch=true&resourceVersion=${rv}`);
  await using second = await openWatch(server.url, `${ALL_CM}?watch=true&resourceVersion=${rv}`);
  await waitFor("both watches to be open", () => server.openWatches() === 2);
  server.create(configMap("a"));
  server.faults.dropWatches();
  const seen = await first.rest();
  assert.deepEqual(seen.map(summary), [["ADDED", "a"]], "queued events go out before the clean end");
  assert.deepEqual((await second.rest()).map(summary), [["ADDED", "a"]]);
  assert.equal(server.openWatches(), 0);
  server.create(configMap("b"));
  await using resumed = await openWatch(
    server.url,
    `${CM}?watch=true&resourceVersion=${seen[0]!.object.metadata?.resourceVersion}`,
  );
  assert.deepEqual(summary(await resumed.event()), ["ADDED", "b"]);
});

Deno.test("stallWatches: an open watch goes silent without closing while new watches still get events", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 10 });
  const rv = server.resourceVersion();
  const stalled = await openWatch(
    server.url,
    `${CM}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
  );
  try {
    assert.equal((await stalled.event()).type, "BOOKMARK", "alive before the stall");
    server.faults.stallWatches();
    // Drain what was already in flight, then keep one read waiting.
    const pending = (async () => {
      while (true) {
        const read = await stalled.pendingRead();
        if (read.type === "end" || read.json?.type !== "BOOKMARK") return read;
      }
    })();
    let settled = false;
    pending.then(() => settled = true, () => settled = true);
    server.create(configMap("a"));
    await using fresh = await openWatch(
      server.url,
      `${CM}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`,
    );
    assert.deepEqual(summary(await fresh.event()), ["ADDED", "a"]);
    while ((await fresh.event()).type !== "BOOKMARK") { /* wait until bookmarks flowed on the fresh watch */ }
    assert.equal(settled, false, "the stalled watch delivered nothing: no event, no bookmark, no end");
    await server.close();
    const last = await pending;
    assert.equal(last.type, "end", "closing the server finally ends the stalled stream");
  } finally {
    await stalled.close();
  }
});
