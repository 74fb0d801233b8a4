import assert from "node:assert/strict";
import { KubeTransportError } from "../../lib/kube/errors.ts";
import type { WatchEvent } from "../../lib/kube/list_watch.ts";
import { apiError, errorEvent, Harness } from "./reflector_harness.ts";
import { type Thing, thing, versions } from "./things.ts";
import { settle } from "../support/fake_clock.ts";

Deno.test("T-1.1 baseline: one list at RV 0, then a watch from the list's RV; the cache follows every event", async () => {
  await using h = new Harness();
  const list = await h.source.nextList();
  assert.equal(list.options.resourceVersion, "0", "first list is served from the watch cache");
  assert.equal(list.options.limit, 500);
  assert.equal(list.options.continue, undefined);
  assert.ok(!h.store.synced, "not synced before the list arrives");
  list.respond({ items: [thing("a", 1), thing("b", 2), thing("c", 3)], resourceVersion: "10" });

  const watch = await h.source.nextWatch();
  assert.equal(watch.options.resourceVersion, "10");
  assert.equal(watch.options.allowWatchBookmarks, true);
  assert.equal(watch.options.timeoutSeconds, 450, "300 + 0.5 × 301, drawn from [300, 600]");
  assert.ok(h.store.synced);
  assert.deepEqual(versions(h.store.list()), { "default/a": "1", "default/b": "2", "default/c": "3" });

  const steps: readonly { event: WatchEvent<Thing>; expect: Record<string, string> }[] = [
    {
      event: { type: "ADDED", object: thing("d", 11) },
      expect: { "default/a": "1", "default/b": "2", "default/c": "3", "default/d": "11" },
    },
    {
      event: { type: "MODIFIED", object: thing("a", 12) },
      expect: { "default/a": "12", "default/b": "2", "default/c": "3", "default/d": "11" },
    },
    {
      event: { type: "DELETED", object: thing("b", 13) },
      expect: { "default/a": "12", "default/c": "3", "default/d": "11" },
    },
  ];
  for (const step of steps) {
    watch.send(step.event);
    await watch.idle();
    assert.deepEqual(versions(h.store.list()), step.expect, `after ${step.event.type}`);
  }
  assert.equal(h.source.lists.length, 1, "no second list");
  assert.equal(h.reflector.status().phase, "watching");
  assert.equal(h.reflector.status().resourceVersion, "13");
});

Deno.test("the watch timeout is drawn from [300, 600] seconds per watch", async (t) => {
  for (const [random, seconds] of [[0, 300], [0.999, 600], [0.25, 375]] as const) {
    await t.step(`random ${random} → ${seconds} s`, async () => {
      await using h = new Harness({ random: () => random });
      const watch = await h.sync([], "1");
      assert.equal(watch.options.timeoutSeconds, seconds);
    });
  }
});

Deno.test("initial list: pages are buffered, the store syncs only with the last page", async () => {
  await using h = new Harness({ pageSize: 2 });
  const first = await h.source.nextList();
  assert.deepEqual([first.options.resourceVersion, first.options.limit], ["0", 2]);
  first.respond({ items: [thing("a", 1), thing("b", 2)], resourceVersion: "9", continue: "page-2" });

  const second = await h.source.nextList();
  assert.equal(second.options.continue, "page-2");
  assert.equal(
    second.options.resourceVersion,
    undefined,
    "the API server refuses an RV with a continue token",
  );
  assert.equal(second.options.limit, 2);
  assert.ok(!h.store.synced, "a partial list is never visible");
  assert.equal(h.store.size, 0);
  second.respond({ items: [thing("c", 3)], resourceVersion: "9" });

  const watch = await h.source.nextWatch();
  assert.equal(watch.options.resourceVersion, "9");
  assert.deepEqual(versions(h.store.list()), { "default/a": "1", "default/b": "2", "default/c": "3" });
  assert.equal(h.changes.length, 1, "one notification for the whole list");
  assert.ok(h.reflector.status().lastSyncAt !== undefined);
});

Deno.test("T-1.2–T-1.4: 410 as an ERROR event or as the watch's HTTP status relists at the last RV", async (t) => {
  const cases = [
    { name: "ERROR event, reason Expired", fault: "event", reason: "Expired" },
    { name: "ERROR event, reason Gone (before 1.18)", fault: "event", reason: "Gone" },
    { name: "HTTP 410 Expired on the watch request", fault: "status", reason: "Expired" },
    { name: "HTTP 410 Gone on the watch request", fault: "status", reason: "Gone" },
  ] as const;
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using h = new Harness();
      let watch = await h.sync([thing("a", 1), thing("b", 2)], "10");
      watch.send({ type: "MODIFIED", object: thing("a", 11) });
      await watch.idle();
      watch.close();
      // Reopened from 11; this one fails with 410 before or as its first event.
      watch = await h.source.nextWatch();
      if (c.fault === "event") watch.send(errorEvent(410, c.reason));
      else watch.fail(apiError(410, c.reason));

      const relist = await h.source.nextList();
      assert.equal(relist.options.resourceVersion, "11", "client-go relists at the last seen RV");
      assert.equal(
        relist.options.limit,
        undefined,
        "in one request: with a limit the server lists at exactly that RV, which a restarted watch cache no longer has",
      );
      // Meanwhile b was deleted and c created.
      relist.respond({ items: [thing("a", 11), thing("c", 14)], resourceVersion: "15" });
      watch = await h.source.nextWatch();
      assert.deepEqual(h.watchedFrom(), ["10", "11", "15"], "never re-watches the expired RV");
      assert.deepEqual(versions(h.store.list()), { "default/a": "11", "default/c": "14" });
      assert.deepEqual(h.backoffs(), [], "410 is not a failure to back off from");
      assert.equal(h.reflector.status().restarts.expired, 1);
    });
  }
});

Deno.test("T-1.5: a relist whose RV is unavailable (Expired / too large) retries at once as a consistent read", async (t) => {
  const cases = [
    { name: "410 Expired", error: apiError(410, "Expired") },
    {
      name: "504 ResourceVersionTooLarge",
      error: apiError(504, "Timeout", { causes: ["ResourceVersionTooLarge"] }),
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using h = new Harness();
      const watch = await h.sync([thing("a", 1)], "10");
      watch.send(errorEvent(410, "Expired"));
      const atLastRv = await h.source.nextList();
      assert.equal(atLastRv.options.resourceVersion, "10");
      atLastRv.fail(c.error);
      const consistent = await h.source.nextList();
      assert.equal(consistent.options.resourceVersion, undefined, "no RV: a quorum read from etcd");
      assert.deepEqual(h.backoffs(), [], "retried at once");
      // If even that fails with 410, it is an ordinary failure: back off, no tight loop.
      consistent.fail(apiError(410, "Expired"));
      await settle();
      assert.equal(h.state?.kind, "backoff");
      await h.passBackoff();
      const retry = await h.source.nextList();
      assert.equal(retry.options.resourceVersion, undefined);
      retry.respond({ items: [thing("b", 20)], resourceVersion: "21" });
      await h.source.nextWatch();
      assert.deepEqual(versions(h.store.list()), { "default/b": "20" });
    });
  }
});

Deno.test("T-1.6: an object deleted while no watch was open is removed and reported as deleted", async () => {
  await using h = new Harness();
  const watch = await h.sync([thing("x", 1), thing("y", 2), thing("z", 3)], "10");
  watch.send(errorEvent(410, "Expired"));
  const relist = await h.source.nextList();
  relist.respond({ items: [thing("x", 1), thing("z", 3)], resourceVersion: "30" });
  await h.source.nextWatch();
  assert.equal(h.store.get("default/y"), undefined);
  const last = h.changes.at(-1);
  assert.ok(last?.kind === "replaced");
  assert.deepEqual(versions(last.deleted), { "default/y": "2" });
  assert.deepEqual([last.added.length, last.updated.length], [0, 0]);
});

Deno.test("T-1.7: a slow 5-page relist is invisible until its last page, then lands in one change", async () => {
  await using h = new Harness({ pageSize: 2 });
  const before = [thing("a", 1), thing("b", 2), thing("c", 3), thing("d", 4), thing("e", 5)];
  const watch = await h.sync(before, "10");
  const snapshot = versions(h.store.list());
  const version = h.store.version;
  const seen: Record<string, string>[] = [];
  h.store.subscribe(() => seen.push(versions(h.store.list())));
  watch.send(errorEvent(410, "Expired"));

  // After: a and e deleted, b updated, f…l added: 9 objects over 5 pages.
  const after = [
    thing("b", 20),
    thing("c", 3),
    thing("d", 4),
    thing("f", 21),
    thing("g", 22),
    thing("h", 23),
    thing("i", 24),
    thing("j", 25),
    thing("l", 26),
  ];
  for (let page = 0; page < 5; page++) {
    const call = await h.source.nextList();
    assert.deepEqual(
      versions(h.store.list()),
      snapshot,
      `readers still see the old cache before page ${page + 1}`,
    );
    assert.equal(h.store.version, version);
    await h.clock.advance(200); // a slow server
    const items = after.slice(page * 2, page * 2 + 2);
    call.respond({ items, resourceVersion: "30", ...(page < 4 ? { continue: `p${page + 2}` } : {}) });
  }
  await h.source.nextWatch();
  assert.deepEqual(seen, [versions(after)], "exactly one notification, carrying the complete new list");
  assert.equal(h.store.version, version + 1);
});

Deno.test("T-1.8: an expired continue token restarts the list unpaged and never mixes snapshots", async () => {
  await using h = new Harness({ pageSize: 2 });
  const first = await h.source.nextList();
  first.respond({ items: [thing("a", 1), thing("gone", 2)], resourceVersion: "10", continue: "p2" });
  const second = await h.source.nextList();
  second.fail(apiError(410, "Expired"));

  const full = await h.source.nextList();
  assert.equal(full.options.continue, undefined);
  assert.equal(full.options.limit, undefined, "the retry lists everything in one request");
  assert.equal(full.options.resourceVersion, "0");
  full.respond({ items: [thing("a", 5), thing("b", 6), thing("c", 7)], resourceVersion: "20" });
  const watch = await h.source.nextWatch();
  assert.equal(watch.options.resourceVersion, "20");
  assert.deepEqual(versions(h.store.list()), { "default/a": "5", "default/b": "6", "default/c": "7" });
  assert.deepEqual(h.backoffs(), []);

  // A relist at the last RV is one request (served from the watch cache); when that version is
  // unavailable, the consistent read that follows is paged again.
  watch.send(errorEvent(410, "Expired"));
  const atVersion = await h.source.nextList();
  assert.deepEqual([atVersion.options.resourceVersion, atVersion.options.limit], ["20", undefined]);
  atVersion.fail(apiError(410, "Expired"));
  const consistent = await h.source.nextList();
  assert.deepEqual([consistent.options.resourceVersion, consistent.options.limit], [undefined, 2]);
});

Deno.test("T-1.9: a failed first list backs off and retries from the first page", async () => {
  await using h = new Harness({ pageSize: 1 });
  const first = await h.source.nextList();
  first.respond({ items: [thing("a", 1)], resourceVersion: "10", continue: "p2" });
  (await h.source.nextList()).fail(apiError(500, "InternalError"));
  await settle();
  assert.equal(h.state?.kind, "backoff");
  assert.equal(h.source.untaken.lists, 0, "no retry before the delay");
  await h.passBackoff();
  const retry = await h.source.nextList();
  assert.deepEqual([retry.options.resourceVersion, retry.options.continue], ["0", undefined]);
  retry.respond({ items: [thing("b", 2)], resourceVersion: "12" });
  await h.source.nextWatch();
  assert.deepEqual(
    versions(h.store.list()),
    { "default/b": "2" },
    "nothing of the abandoned attempt leaks in",
  );
});

Deno.test("T-1.11: a bookmark only advances the RV: no cache entry, no notification; reconnect uses it", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  const version = h.store.version;
  const changes = h.changes.length;
  watch.send({ type: "BOOKMARK", resourceVersion: "40" });
  await watch.idle();
  assert.equal(h.store.version, version);
  assert.equal(h.changes.length, changes);
  assert.deepEqual(versions(h.store.list()), { "default/a": "1" });
  assert.equal(h.reflector.status().resourceVersion, "40");
  await h.clock.advance(450_000);
  watch.close();
  watch = await h.source.nextWatch();
  assert.deepEqual(h.watchedFrom(), ["10", "40"]);
  assert.equal(h.source.lists.length, 1);
});

Deno.test("T-1.12/T-1.13: the server's timeout re-watches from the last event at once: no list, no backoff", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  watch.send({ type: "MODIFIED", object: thing("a", 11) }, { type: "ADDED", object: thing("b", 12) });
  await watch.idle();
  await h.clock.advance(450_000);
  watch.close();
  watch = await h.source.nextWatch();
  assert.equal(watch.options.resourceVersion, "12");
  // An event the server emitted right at the close arrives on the new watch.
  watch.send({ type: "DELETED", object: thing("a", 13) });
  await watch.idle();
  assert.deepEqual(versions(h.store.list()), { "default/b": "12" });
  assert.equal(h.source.lists.length, 1);
  assert.deepEqual(h.backoffs(), []);
  assert.equal(h.reflector.status().restarts["server-timeout"], 1);

  // A watch with no events at all that the server ends after its timeout is not a failure either.
  await h.clock.advance(450_000);
  watch.close();
  assert.equal((await h.source.nextWatch()).options.resourceVersion, "13");
  assert.deepEqual(h.backoffs(), []);
});

Deno.test("T-1.16: a stream that breaks mid-way backs off and resumes after the last applied event", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  watch.send({ type: "MODIFIED", object: thing("a", 11) });
  watch.fail(new KubeTransportError("WATCH things", "reset", new Error("connection reset mid-line")));
  await h.passBackoff();
  watch = await h.source.nextWatch();
  assert.equal(watch.options.resourceVersion, "11");
  const before = h.changes.length;
  // The server re-sends the event it was cutting, then a new one.
  watch.send({ type: "MODIFIED", object: thing("a", 11) }, { type: "ADDED", object: thing("b", 12) });
  await watch.idle();
  assert.equal(h.changes.length, before + 1, "the re-delivered event is applied once");
  assert.deepEqual(versions(h.store.list()), { "default/a": "11", "default/b": "12" });
  assert.equal(h.source.lists.length, 1);
});

Deno.test("T-1.17: an ERROR event with 500 backs off and re-watches from the same RV without relisting", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  watch.send({ type: "ADDED", object: thing("b", 11) }, errorEvent(500, "InternalError"));
  await settle();
  assert.equal(watch.end, "aborted", "the stream is closed after an ERROR");
  assert.equal(h.state?.kind, "backoff");
  await h.passBackoff();
  watch = await h.source.nextWatch();
  assert.deepEqual(h.watchedFrom(), ["10", "11"]);
  assert.equal(h.source.lists.length, 1);
  assert.deepEqual(versions(h.store.list()), { "default/a": "1", "default/b": "11" });
  assert.equal(h.reflector.status().restarts["server-error"], 1);
});

Deno.test("T-1.24: a replayed event with the cached RV changes nothing and notifies nobody", async () => {
  await using h = new Harness();
  const watch = await h.sync([thing("a", 5)], "10");
  const version = h.store.version;
  watch.send(
    { type: "ADDED", object: thing("a", 5) },
    { type: "MODIFIED", object: thing("b", 11) },
    { type: "MODIFIED", object: thing("b", 11) },
  );
  await watch.idle();
  assert.equal(h.store.version, version + 1, "only b's first delivery is a change");
  assert.deepEqual(h.changes.slice(1).map((c) => c.kind), ["upserted"]);
});

Deno.test("T-1.25: DELETED for an unknown object is ignored; MODIFIED for one is an upsert", async () => {
  await using h = new Harness();
  const watch = await h.sync([thing("a", 1)], "10");
  const version = h.store.version;
  watch.send({ type: "DELETED", object: thing("never-seen", 11) });
  await watch.idle();
  assert.equal(h.store.version, version);
  watch.send({ type: "MODIFIED", object: thing("late", 12) });
  await watch.idle();
  assert.deepEqual(versions(h.store.list()), { "default/a": "1", "default/late": "12" });
  assert.equal(h.reflector.status().resourceVersion, "12", "the ignored delete still advanced the RV");
});

Deno.test("REJECTED objects are logged once per object version, skipped, and advance the RV", async () => {
  await using h = new Harness();
  const list = await h.source.nextList();
  list.respond({
    items: [thing("a", 1)],
    resourceVersion: "10",
    rejected: [{ key: "default/bad", reason: "spec.rules is not a list" }],
  });
  let watch = await h.source.nextWatch();
  const rejected = {
    type: "REJECTED",
    resourceVersion: "11",
    failure: { key: "default/worse", reason: "metadata.labels is not a map of strings" },
  } as const;
  watch.send(rejected, rejected, { ...rejected, resourceVersion: "12" });
  await watch.idle();
  assert.deepEqual(versions(h.store.list()), { "default/a": "1" });
  const warned = h.log.find("warn", "").map((l) => `${l.properties.object}@${l.properties.resourceVersion}`);
  assert.deepEqual(warned, ["default/bad@10", "default/worse@11", "default/worse@12"]);
  await h.clock.advance(10_000);
  watch.close();
  watch = await h.source.nextWatch();
  assert.equal(watch.options.resourceVersion, "12");
});

Deno.test("selectors are passed to every list and watch", async () => {
  await using h = new Harness({ fieldSelector: "metadata.name=coredns", labelSelector: "app=dns" });
  const list = await h.source.nextList();
  assert.deepEqual([list.options.fieldSelector, list.options.labelSelector], [
    "metadata.name=coredns",
    "app=dns",
  ]);
  list.respond({ items: [], resourceVersion: "1" });
  const watch = await h.source.nextWatch();
  assert.deepEqual([watch.options.fieldSelector, watch.options.labelSelector], [
    "metadata.name=coredns",
    "app=dns",
  ]);
});

Deno.test("abort: run() returns and closes the open watch", async () => {
  const h = new Harness();
  const watch = await h.sync([thing("a", 1)], "10");
  await h.stop();
  assert.equal(watch.end, "aborted");
  assert.equal(h.reflector.status().phase, "stopped");
  assert.deepEqual(h.clock.pending(), [], "no timer left behind");
});

Deno.test("abort: a pending list is cancelled and run() returns", async () => {
  const h = new Harness();
  const list = await h.source.nextList();
  await h.stop();
  assert.ok(list.aborted);
  assert.deepEqual(h.clock.pending(), []);
  await assert.rejects(() => h.reflector.run(new AbortController().signal), /twice/);
});

Deno.test("abort: during a backoff, run() returns without waiting for the delay", async () => {
  const h = new Harness();
  const watch = await h.sync([], "10");
  watch.fail(apiError(503, "ServiceUnavailable"));
  await settle();
  assert.equal(h.state?.kind, "backoff");
  await h.stop();
  assert.deepEqual(h.clock.pending(), []);
});
