import assert from "node:assert/strict";
import { KubeTransportError } from "../../lib/kube/errors.ts";
import { apiError, Harness } from "./reflector_harness.ts";
import { thing, versions } from "./things.ts";
import { settle } from "../support/fake_clock.ts";
import { BookmarkPace } from "../../lib/reflector/watch_handle.ts";

const refused = () =>
  new KubeTransportError("WATCH things", "refused", new Error("Connection refused (os error 111)"));

Deno.test("T-1.14: a stalled watch is aborted at timeoutSeconds + 30 s of silence and reopened from the last RV", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  const idleMs = 450_000 + 30_000;
  await h.clock.advance(200_000);
  watch.send({ type: "MODIFIED", object: thing("a", 11) });
  await watch.idle();
  // From here the connection is silent: no bytes, no FIN.
  await h.clock.advance(idleMs - 1);
  assert.equal(watch.end, undefined, "an event restarts the idle timer");
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted", "aborted exactly one idle period after the last event");
  assert.equal(h.state?.kind, "backoff");
  await h.passBackoff();
  watch = await h.source.nextWatch();
  assert.deepEqual(h.watchedFrom(), ["10", "11"]);
  assert.equal(h.source.lists.length, 1, "a stall does not relist");
  assert.equal(h.reflector.status().restarts["idle-timeout"], 1);
  assert.deepEqual(h.messages("info"), ["watch stalled: no event within the idle timeout; reopening"]);
});

Deno.test("T-1.14: once bookmarks show the server's pace, three of its gaps of silence are a stall", async () => {
  const pace = new BookmarkPace();
  await using h = new Harness({ pace });
  let watch = await h.sync([thing("a", 1)], "10");
  await h.clock.advance(5_000);
  watch.send({ type: "BOOKMARK", resourceVersion: "11" });
  await watch.idle();
  await h.clock.advance(60_000);
  watch.send({ type: "BOOKMARK", resourceVersion: "12" });
  await watch.idle();
  // The bound is now 3 × 60 s, not the 480 s idle timeout the watchdog was sleeping on.
  await h.clock.advance(179_999);
  assert.equal(watch.end, undefined, "a silence shorter than three bookmark gaps is not a stall");
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted", "caught three bookmark gaps after the last event");
  await h.passBackoff();
  watch = await h.source.nextWatch();
  assert.deepEqual(h.watchedFrom(), ["10", "12"], "reopened from the last bookmark, no relist");
  assert.equal(h.source.lists.length, 1);
  assert.deepEqual(h.log.find("info", "watch stalled").map((entry) => entry.properties.silentSeconds), [180]);
  // That stream had bookmarked, so the pace stands: the next one is judged by it from its opening.
  await h.clock.advance(179_999);
  assert.equal(watch.end, undefined);
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted", "a silent new stream is caught at three gaps too");
  // But that one never bookmarked: it may only have been young for the server, so the next
  // streams without a bookmark of their own get twice its silence.
  await h.passBackoff();
  watch = await h.source.nextWatch();
  await h.clock.advance(359_999);
  assert.equal(pace.youngAllowanceMs, 360_000);
  assert.equal(watch.end, undefined, "a young stream gets the allowance, 2 × 180 s");
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted");
  await h.passBackoff();
  watch = await h.source.nextWatch();
  // A young stream whose first bookmark comes within the pace's bound clears the allowance; from
  // that bookmark on the stream is judged by the pace.
  await h.clock.advance(30_000);
  watch.send({ type: "BOOKMARK", resourceVersion: "13" });
  await watch.idle();
  assert.equal(pace.youngAllowanceMs, 0);
  await h.clock.advance(179_999);
  assert.equal(watch.end, undefined);
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted");
});

Deno.test("T-1.14: the pace outlives a stream that ended otherwise: a stall right after a reconnect is caught as soon", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  for (const rv of ["11", "12", "13"]) {
    watch.send({ type: "BOOKMARK", resourceVersion: rv });
    await watch.idle();
    await h.clock.advance(rv === "12" ? 60_000 : 40_000);
  }
  // The gaps were 40 s and 60 s: the longest counts. The server cuts the stream; it is reopened.
  watch.fail(apiError(500, "InternalError"));
  await h.passBackoff();
  watch = await h.source.nextWatch();
  assert.deepEqual(h.watchedFrom(), ["10", "13"]);
  // The new stream says nothing at all from its opening.
  await h.clock.advance(179_999);
  assert.equal(watch.end, undefined);
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted", "three of the server's gaps after the reopening, not its idle timeout");
});

Deno.test("T-1.14: reflectors sharing a pace: what one learnt judges the other's streams", async () => {
  const pace = new BookmarkPace();
  await using learner = new Harness({ pace });
  await using other = new Harness({ pace });
  const quiet = await other.sync([thing("b", 1)], "5");
  const watch = await learner.sync([thing("a", 1)], "10");
  for (const rv of ["11", "12"]) {
    watch.send({ type: "BOOKMARK", resourceVersion: rv });
    await watch.idle();
    await learner.clock.advance(30_000);
  }
  assert.equal(pace.gapMs, 30_000);
  // The other reflector's stream has been silent since it opened (its own clock): 90 s is a stall.
  await other.clock.advance(89_999);
  assert.equal(quiet.end, undefined);
  await other.clock.advance(1);
  assert.equal(quiet.end, "aborted");
  assert.equal(pace.youngAllowanceMs, 180_000, "that stream had no bookmark: young ones get more");
  // A stall of every stream at once: the one that bookmarked is still caught at the pace's bound
  // (90 s after its last bookmark, 30 s ago), not at the young streams' allowance.
  await learner.clock.advance(59_999);
  assert.equal(watch.end, undefined);
  await learner.clock.advance(1);
  assert.equal(watch.end, "aborted");
});

Deno.test("T-1.14: a fast bookmark pace never makes the stall bound shorter than its 10 s floor", async () => {
  await using h = new Harness();
  const watch = await h.sync([thing("a", 1)], "10");
  for (const rv of ["11", "12", "13"]) {
    watch.send({ type: "BOOKMARK", resourceVersion: rv });
    await watch.idle();
    await h.clock.advance(1_000);
  }
  // The longest gap is 1 s (3 s by the factor): the floor holds at 10 s after the last bookmark.
  await h.clock.advance(8_999);
  assert.equal(watch.end, undefined);
  await h.clock.advance(1);
  assert.equal(watch.end, "aborted");
});

Deno.test("a list that never answers is abandoned at its deadline and retried", async () => {
  await using h = new Harness({ listTimeoutMs: 60_000 });
  const list = await h.source.nextList();
  await h.clock.advance(59_999);
  assert.ok(!list.aborted);
  await h.clock.advance(1);
  assert.ok(list.aborted);
  assert.equal(h.reflector.status().restarts.transport, 1);
  await h.passBackoff();
  (await h.source.nextList()).respond({ items: [thing("a", 1)], resourceVersion: "3" });
  await h.source.nextWatch();
  assert.ok(h.store.synced);
});

Deno.test("T-1.19: refused connections back off 0.8 s → 30 s (full jitter) and resume from the last RV", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  watch.send({ type: "ADDED", object: thing("b", 11) });
  await watch.idle();
  watch.fail(refused());
  for (let i = 0; i < 8; i++) {
    const delay = await h.passBackoff();
    assert.equal(h.source.untaken.watches, 1, `retry ${i + 1} waits for its whole delay (${delay} ms)`);
    watch = await h.source.nextWatch();
    watch.fail(refused());
  }
  await settle();
  // random() is fixed at 0.5: every delay is half its ceiling 0.8, 1.6, 3.2, 6.4, 12.8, 25.6, 30, 30, 30 s.
  assert.deepEqual(h.backoffs(), [400, 800, 1_600, 3_200, 6_400, 12_800, 15_000, 15_000, 15_000]);
  assert.ok(h.watchedFrom().slice(1).every((rv) => rv === "11"), "every retry resumes from RV 11");
  assert.equal(h.source.lists.length, 1, "the cache is kept: no relist");
  assert.deepEqual(versions(h.store.list()), { "default/a": "1", "default/b": "11" });
  assert.equal(h.reflector.status().restarts.transport, 9);
  assert.equal(h.messages("warn").length, 1, "one WARN once the failures persist, not one per retry");
});

Deno.test("T-1.20: watches the server closes at once with no events are backed off (no hot loop)", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  const start = h.clock.now();
  const opened: number[] = [];
  while (h.clock.now() - start < 600_000) {
    opened.push(h.clock.now() - start);
    watch.close();
    await h.passBackoff();
    watch = await h.source.nextWatch();
  }
  const lastFiveMinutes = opened.filter((at) => at >= 300_000).length;
  assert.ok(lastFiveMinutes / 300 <= 0.1, `${lastFiveMinutes} watches in the last 5 minutes`);
  assert.ok(opened.length < 60, `${opened.length} watches in 10 minutes`);
  assert.equal(h.reflector.status().restarts["short-watch"], opened.length);
  assert.equal(h.source.lists.length, 1);
});

Deno.test("T-1.21: the backoff starts over after two healthy minutes, not before", async () => {
  await using h = new Harness();
  let watch = await h.sync([], "10");
  for (let i = 0; i < 5; i++) {
    watch.fail(apiError(503, "ServiceUnavailable"));
    await h.passBackoff();
    watch = await h.source.nextWatch();
  }
  assert.deepEqual(h.backoffs(), [400, 800, 1_600, 3_200, 6_400]);
  // Healthy for one minute only: the next failure keeps escalating.
  await h.clock.advance(60_000);
  watch.send({ type: "BOOKMARK", resourceVersion: "20" });
  await watch.idle();
  watch.fail(apiError(503, "ServiceUnavailable"));
  await h.passBackoff();
  assert.equal(h.backoffs().at(-1), 12_800);
  // Healthy for two minutes: back to the first step.
  watch = await h.source.nextWatch();
  await h.clock.advance(120_000);
  watch.send({ type: "BOOKMARK", resourceVersion: "30" });
  await watch.idle();
  watch.fail(apiError(503, "ServiceUnavailable"));
  await settle();
  assert.equal(h.backoffs().at(-1), 400);
});

Deno.test("T-1.18: 429 waits at least Retry-After and re-watches without relisting", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  watch.fail(apiError(429, "TooManyRequests", { retryAfterSeconds: 3 }));
  await settle();
  assert.equal(h.state?.kind, "backoff");
  assert.deepEqual(h.backoffs(), [3_000], "the jittered 400 ms is raised to the server's 3 s");
  await h.clock.advance(2_999);
  assert.equal(h.source.untaken.watches, 0, "not before Retry-After");
  await h.clock.advance(1);
  watch = await h.source.nextWatch();
  assert.deepEqual(h.watchedFrom(), ["10", "10"]);
  assert.equal(h.source.lists.length, 1);
  assert.ok(h.store.synced);
  assert.deepEqual(versions(h.store.list()), { "default/a": "1" });
});

Deno.test("T-1.17: 403 warns once with an RBAC hint, keeps retrying with backoff, and logs recovery", async () => {
  await using h = new Harness();
  let watch = await h.sync([thing("a", 1)], "10");
  for (let i = 0; i < 4; i++) {
    watch.fail(apiError(403, "Forbidden"));
    await h.passBackoff();
    watch = await h.source.nextWatch();
  }
  const warnings = h.messages("warn");
  assert.equal(warnings.length, 1, warnings.join("\n"));
  assert.match(warnings[0] ?? "", /RBAC/);
  assert.equal(h.reflector.status().condition, "forbidden");
  assert.equal(h.backoffs().length, 4);
  watch.send({ type: "ADDED", object: thing("b", 11) });
  await watch.idle();
  assert.deepEqual(h.messages("info"), ["list and watch recovered"]);
  assert.equal(h.reflector.status().condition, "healthy");
  watch.fail(apiError(403, "Forbidden"));
  await settle();
  assert.equal(h.messages("warn").length, 2, "a new transition into 403 warns again");
  assert.equal(h.source.lists.length, 1);
});

Deno.test("T-1.27: a type the server does not serve is reported once, counts as synced-empty, and is retried every 60 s", async () => {
  const other = new Harness();
  await using h = new Harness();
  // Another reflector is unaffected and syncs meanwhile.
  await other.sync([thing("ingress", 1)], "5");
  await other.stop();

  (await h.source.nextList()).fail(apiError(404, "NotFound"));
  await settle();
  const status = h.reflector.status();
  assert.deepEqual([status.phase, status.condition, status.synced], ["missing", "missing", true]);
  assert.equal(h.store.size, 0);
  assert.equal(h.messages("warn").length, 1);
  assert.match(h.messages("warn")[0] ?? "", /not served/);

  for (let i = 0; i < 3; i++) {
    await h.clock.advance(59_999);
    assert.equal(h.source.untaken.lists, 0, "slow retry: not before 60 s");
    await h.clock.advance(1);
    const retry = await h.source.nextList();
    if (i < 2) retry.fail(apiError(404, "NotFound"));
    else retry.respond({ items: [thing("gw", 7)], resourceVersion: "8" });
  }
  await h.source.nextWatch();
  assert.equal(h.messages("warn").length, 1, "reported once, not per retry");
  assert.deepEqual(h.messages("info"), ["list and watch recovered"]);
  assert.deepEqual(versions(h.store.list()), { "default/gw": "7" });
  assert.equal(h.reflector.status().phase, "watching");
});

Deno.test("T-1.27: a type removed at runtime keeps the cache through one 404 and empties it when the retry confirms", async () => {
  await using h = new Harness();
  const watch = await h.sync([thing("gw", 1)], "10");
  watch.fail(apiError(404, "NotFound"));
  await h.passBackoff();
  const relist = await h.source.nextList();
  assert.equal(relist.options.resourceVersion, "10");
  relist.fail(apiError(404, "NotFound"));
  await settle();
  assert.equal(h.reflector.status().phase, "missing");
  assert.deepEqual(
    versions(h.store.list()),
    { "default/gw": "1" },
    "one 404 may be an API server starting up",
  );
  await h.clock.advance(60_000);
  (await h.source.nextList()).fail(apiError(404, "NotFound"));
  await settle();
  assert.equal(h.store.size, 0, "confirmed gone: the objects went with their type");
  const last = h.changes.at(-1);
  assert.ok(last?.kind === "replaced");
  assert.deepEqual(versions(last.deleted), { "default/gw": "1" });
});

Deno.test("a stream that ignores its abort is abandoned after the grace period; the reflector carries on", async () => {
  await using h = new Harness({ abandonAfterMs: 10_000 });
  h.source.ignoreAbort = true;
  let watch = await h.sync([thing("a", 1)], "10");
  await h.clock.advance(480_000); // the idle timeout aborts it, but it keeps waiting
  assert.equal(h.state?.kind, "watching");
  assert.equal(watch.end, undefined);
  await h.clock.advance(10_000);
  assert.equal(h.state?.kind, "backoff");
  assert.deepEqual(h.messages("warn"), [
    "a watch stream did not end after it was aborted; abandoned it (a client bug)",
  ]);
  h.source.ignoreAbort = false;
  await h.passBackoff();
  watch = await h.source.nextWatch();
  watch.send({ type: "ADDED", object: thing("b", 11) });
  await watch.idle();
  assert.deepEqual(versions(h.store.list()), { "default/a": "1", "default/b": "11" });
});
