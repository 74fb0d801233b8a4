/**
 * The Event recorder against the fake API server: what `kubectl describe` would show (one
 * Event per problem, with its count), de-duplication in a window on a fake clock, and the
 * failure paths that must stay quiet and quick (403, 404, a black-holed API server, abort).
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { type EventNotice, EventRecorder } from "../../lib/kube/event_recorder.ts";
import type { InvolvedObject } from "../../lib/resources/event.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { captureLogs } from "../support/log_capture.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { FakeClock } from "../support/fake_clock.ts";

const WALL = new Date("2026-03-01T12:00:00.000Z");

const CONFIGMAP: InvolvedObject = {
  apiVersion: "v1",
  kind: "ConfigMap",
  namespace: "kube-system",
  name: "coredns",
  uid: "6f1c1a52-0000-4000-8000-000000000001",
};

function notice(message: string, reason = "CorefileMarkersDamaged"): EventNotice {
  return { object: CONFIGMAP, type: "Warning", reason, message };
}

interface Fixture extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly client: KubeClient;
  readonly clock: FakeClock;
  readonly recorder: EventRecorder;
  /** What the client and the recorder logged. */
  readonly log: LogRecorder;
  events(): Record<string, unknown>[];
  posts(): number;
  patches(): number;
}

async function fixture(options: { timeoutMs?: number; maxEntries?: number } = {}): Promise<Fixture> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const log = new LogRecorder();
  const client = new KubeClient({ server: server.url, log });
  const clock = new FakeClock();
  const recorder = new EventRecorder({
    client,
    instance: "ouroboros-controller-0",
    clock,
    log,
    wallClock: () => new Date(WALL.getTime() + clock.now() - 1_000_000),
    ...options,
  });
  const count = (method: string) =>
    server.audit.filter((entry) => entry.method === method && entry.path.includes("/events")).length;
  return {
    server,
    client,
    clock,
    recorder,
    log,
    events: () => server.list("v1", "Event", "kube-system"),
    posts: () => count("POST"),
    patches: () => count("PATCH"),
    async [Symbol.asyncDispose]() {
      client.close();
      await server.close();
    },
  };
}

Deno.test("an Event about the object carries type, reason, message, reporter and a reference kubectl resolves", async () => {
  await using f = await fixture();
  const result = await f.recorder.record(notice("line 7: END before BEGIN"));
  assert.equal(result.kind, "created");
  const [event, ...more] = f.events();
  assert.equal(more.length, 0);
  assert.ok(event !== undefined);
  assert.deepEqual(event.involvedObject, {
    apiVersion: "v1",
    kind: "ConfigMap",
    name: "coredns",
    namespace: "kube-system",
    uid: CONFIGMAP.uid,
  });
  assert.equal(event.type, "Warning");
  assert.equal(event.reason, "CorefileMarkersDamaged");
  assert.equal(event.message, "line 7: END before BEGIN");
  assert.equal(event.count, 1);
  assert.deepEqual(event.source, { component: "ouroboros" });
  assert.equal(event.reportingInstance, "ouroboros-controller-0");
  assert.equal(event.firstTimestamp, "2026-03-01T12:00:00Z");
});

Deno.test("repeats within the window send nothing; the first repeat after it raises the stored count", async () => {
  await using f = await fixture();
  assert.equal((await f.recorder.record(notice("damaged"))).kind, "created");
  f.clock.advanceSync(60_000);
  assert.equal((await f.recorder.record(notice("damaged"))).kind, "suppressed");
  f.clock.advanceSync(60_000);
  assert.equal((await f.recorder.record(notice("damaged"))).kind, "suppressed");
  assert.equal(f.posts(), 1);
  assert.equal(f.patches(), 0);

  f.clock.advanceSync(10 * 60_000);
  const later = await f.recorder.record(notice("damaged"));
  assert.deepEqual(later.kind, "counted");
  assert.equal(f.posts(), 1, "no second Event");
  const [event] = f.events();
  assert.equal(event?.count, 4, "the first, two held back, and this one");
  assert.equal(event?.lastTimestamp, "2026-03-01T12:12:00Z");

  // The window starts again from the count update.
  f.clock.advanceSync(60_000);
  assert.equal((await f.recorder.record(notice("damaged"))).kind, "suppressed");
  assert.equal(f.patches(), 1);
});

Deno.test("a different message, reason or object is a different Event, also within the same millisecond", async () => {
  await using f = await fixture();
  await f.recorder.record(notice("first problem"));
  await f.recorder.record(notice("second problem"));
  await f.recorder.record(notice("first problem", "CorefileNotEditable"));
  await f.recorder.record({ ...notice("first problem"), object: { ...CONFIGMAP, name: "coredns-custom" } });
  const events = f.events();
  assert.equal(events.length, 4);
  const names = new Set(events.map((event) => (event.metadata as { name: string }).name));
  assert.equal(names.size, 4, "names are unique although the wall clock did not move");
});

Deno.test("an Event that expired on the server is created afresh after the window", async () => {
  await using f = await fixture();
  const first = await f.recorder.record(notice("damaged"));
  assert.ok(first.kind === "created");
  f.server.remove("v1", "Event", "kube-system", first.name);
  f.clock.advanceSync(11 * 60_000);
  const again = await f.recorder.record(notice("damaged"));
  assert.equal(again.kind, "created");
  assert.equal(f.events().length, 1);
  assert.equal(f.events()[0]?.count, 1);
});

for (
  const [code, reason, kind] of [[403, "Forbidden", "forbidden"], [404, "NotFound", "not-found"]] as const
) {
  Deno.test(`${code} on create is one DEBUG line, no error, and repeats stay quiet`, async () => {
    await using f = await fixture();
    f.server.faults.inject("create", { type: "status", code, reason }, { path: /\/events$/, count: 5 });
    const result = await f.recorder.record(notice("damaged"));
    assert.deepEqual(result, { kind: "failed", reason: kind });
    assert.equal((await f.recorder.record(notice("damaged"))).kind, "suppressed");
    assert.equal(f.posts(), 1);
    assert.equal(f.log.entries.length, 1);
    assert.equal(f.log.entries[0]?.level, "debug");
    assert.match(f.log.entries[0]?.message ?? "", /^cannot record a Kubernetes Event: /);
    assert.equal(f.log.entries[0]?.properties.reason, "CorefileMarkersDamaged");
  });
}

Deno.test("a black-holed API server costs the caller at most the deadline, and the next call tries again", async () => {
  await using f = await fixture({ timeoutMs: 300 });
  f.server.faults.inject("create", { type: "blackhole" }, { path: /\/events$/ });
  const started = performance.now();
  const result = await f.recorder.record(notice("damaged"));
  const took = performance.now() - started;
  assert.deepEqual(result, { kind: "failed", reason: "error" });
  assert.ok(took < 3_000, `record took ${Math.round(took)} ms`);
  assert.deepEqual(f.log.entries.map((entry) => [entry.level, entry.message]), [
    ["debug", "cannot record a Kubernetes Event; will try again next time"],
  ]);
  assert.equal((await f.recorder.record(notice("damaged"))).kind, "created");
});

Deno.test("an aborted caller gets 'aborted' without a log line, and nothing is remembered", async () => {
  await using f = await fixture();
  const controller = new AbortController();
  controller.abort(new Error("shutting down"));
  assert.deepEqual(await f.recorder.record(notice("damaged"), controller.signal), {
    kind: "failed",
    reason: "aborted",
  });
  assert.deepEqual(f.log.entries, []);
  assert.equal(f.recorder.size, 0);
  assert.equal((await f.recorder.record(notice("damaged"))).kind, "created");
});

Deno.test("memory is bounded: old keys are dropped past maxEntries", async () => {
  await using f = await fixture({ maxEntries: 3 });
  for (let i = 0; i < 6; i++) await f.recorder.record(notice(`problem ${i}`));
  assert.equal(f.recorder.size, 3);
  // The oldest was forgotten, so it is sent again; a recent one is still suppressed.
  assert.equal((await f.recorder.record(notice("problem 0"))).kind, "created");
  assert.equal((await f.recorder.record(notice("problem 5"))).kind, "suppressed");
});

Deno.test("without an injected log the recorder's lines go to the kube category", async () => {
  using logs = captureLogs("debug");
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  server.faults.inject("create", { type: "status", code: 403, reason: "Forbidden" }, { path: /\/events$/ });
  const recorder = new EventRecorder({ client, instance: "ouroboros-controller-0" });
  assert.deepEqual(await recorder.record(notice("damaged")), { kind: "failed", reason: "forbidden" });
  assert.deepEqual(logs.lines.map((line) => [line.logger, line.level]), [["ouroboros.kube", "DEBUG"]]);
});
