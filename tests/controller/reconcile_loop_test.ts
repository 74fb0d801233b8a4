import assert from "node:assert/strict";
import { ingress } from "../hostnames/factories.ts";
import { settle } from "../support/fake_clock.ts";
import { DEBOUNCE_MS, startLoop } from "./loop_harness.ts";
import { controllerReadiness } from "../../lib/controller/readiness.ts";
import type { Ingress } from "../../lib/resources/ingress.ts";
import type { KubeObject } from "../../lib/resources/kube_object.ts";

/** Ingress `ns/<name>` with one TLS host `<host>`. */
function tlsIngress(name: string, host: string, resourceVersion = "1"): Ingress {
  return ingress(`shop/${name}`, { tls: [host], resourceVersion });
}

Deno.test("loop: nothing reaches the sink before every source cache has synced (T-1.31)", async () => {
  const h = startLoop({ gatewayApi: true, resyncMs: 1_000 });
  try {
    await settle();
    assert.equal(h.state(), "waiting-for-sync");
    // Events for a cache that has not listed yet, and time passing, must not cause a write.
    h.ingresses.apply(tlsIngress("a", "a.example.com"));
    h.ingresses.replace([tlsIngress("a", "a.example.com")]);
    h.gateways.replace([]);
    await h.clock.advance(60_000);
    assert.equal(h.sink.calls.length, 0, "a partial picture (HTTPRoutes not listed) is never written");
    const waiting = h.loop.status().state;
    assert.deepEqual(waiting, { kind: "waiting-for-sync", unsynced: ["HTTPRoute"] });

    h.routes.replace([]);
    await h.flush();
    assert.equal(h.sink.calls.length, 1);
    assert.deepEqual(h.sink.calls[0]?.hosts, ["a.example.com"]);
    assert.equal(h.log.find("info", "caches synced").length, 1);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a burst of 1,000 events within the window gives one reconcile with the final set (T-1.30)", async () => {
  const h = startLoop();
  try {
    await h.syncAndSettle();
    assert.equal(h.sink.calls.length, 1, "the first reconcile after sync");
    assert.equal(h.state(), "idle");

    for (let i = 0; i < 1_000; i++) h.ingresses.apply(tlsIngress(`i${i}`, `h${i}.example.com`));
    await settle();
    assert.equal(h.state(), "debouncing");
    await h.flush();

    assert.equal(h.sink.calls.length, 2, "1,000 events, one more sink call");
    assert.equal(h.sink.calls[1]?.hosts.length, 1_000);
    assert.equal(h.sink.writes, 1);
    assert.equal(h.state(), "idle");
    await h.clock.advance(DEBOUNCE_MS * 50);
    assert.equal(h.sink.calls.length, 2, "nothing left over");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a steady storm still reconciles once per window, not never (T-1.30)", async () => {
  const h = startLoop();
  try {
    await h.syncAndSettle();
    // One event every 10 ms for a second: a restarting debounce would never fire.
    for (let i = 0; i < 100; i++) {
      h.ingresses.apply(tlsIngress("storm", `s${i}.example.com`, String(i + 2)));
      await h.clock.advance(10);
    }
    await h.flush();
    const calls = h.sink.calls.length - 1;
    assert.ok(calls >= 9 && calls <= 11, `about one reconcile per 100 ms window, got ${calls}`);
    assert.deepEqual(h.sink.calls.at(-1)?.hosts, ["s99.example.com"]);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: any number of events during a reconcile cause exactly one follow-up", async () => {
  const h = startLoop();
  try {
    h.sink.script({ kind: "block" });
    h.ingresses.replace([tlsIngress("a", "a.example.com")]);
    await h.flush();
    assert.ok(h.sink.blocked, "the first reconcile is in flight");
    assert.equal(h.state(), "reconciling");

    for (let i = 0; i < 50; i++) h.ingresses.apply(tlsIngress(`b${i}`, `b${i}.example.com`));
    await h.clock.advance(DEBOUNCE_MS * 10);
    assert.equal(h.sink.calls.length, 1, "no second call while the first is in flight");

    h.sink.release();
    await settle();
    assert.equal(h.state(), "debouncing", "the events during the call are pending");
    await h.flush();
    assert.equal(h.sink.calls.length, 2);
    assert.equal(h.sink.calls[1]?.hosts.length, 51, "the follow-up sees every change");
    await h.clock.advance(DEBOUNCE_MS * 50);
    assert.equal(h.sink.calls.length, 2, "exactly one follow-up");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a failing sink is retried no sooner than 1 s, doubling; the doubling resets only after 2 min of health (T-2.1)", async () => {
  const h = startLoop({ random: () => 0.5 });
  try {
    const failure = { kind: "fail", error: new Error("connection refused") } as const;
    h.sink.script(failure, failure, failure, failure);
    h.ingresses.replace([tlsIngress("a", "a.example.com")]);
    await h.flush();
    const delays: number[] = [];
    while (h.state() === "backing-off") {
      const state = h.loop.status().state;
      assert.ok(state.kind === "backing-off");
      delays.push(state.delayMs);
      await h.clock.advance(state.delayMs);
      await h.flush();
    }
    // Bases 1 s, 2 s, 4 s, 8 s, each plus a quarter with the jitter draw at 0.5.
    assert.deepEqual(delays, [1_250, 2_500, 5_000, 10_000]);
    assert.equal(h.sink.calls.length, 5);
    assert.equal(h.sink.writes, 1, "the fifth attempt wrote");
    const warned = h.log.find("warn", "reconcile failed; retrying after backoff");
    assert.equal(warned.length, 4, "19 s of failures are transient: WARN, not ERROR");
    assert.equal(warned[0]?.properties.error, "connection refused");
    assert.deepEqual(warned.map((line) => line.properties.attempts), [1, 2, 3, 4]);
    assert.equal(h.log.entries.filter((line) => line.level === "error").length, 0);
    assert.equal(h.log.find("info", "reconcile recovered").length, 1);
    assert.deepEqual(h.observer.results.map((r) => r.kind), ["error", "error", "error", "error", "written"]);

    h.sink.script(failure);
    h.ingresses.apply(tlsIngress("b", "b.example.com"));
    await h.flush();
    let state = h.loop.status().state;
    assert.ok(state.kind === "backing-off");
    assert.equal(state.delayMs, 20_000, "a failure right after a success goes on doubling");
    await h.clock.advance(state.delayMs);
    await h.flush();
    assert.equal(h.state(), "idle");

    await h.clock.advance(120_000);
    h.sink.script(failure);
    h.ingresses.apply(tlsIngress("c", "c.example.com"));
    await h.flush();
    state = h.loop.status().state;
    assert.ok(state.kind === "backing-off");
    assert.equal(state.delayMs, 1_250, "two minutes of health start the sequence over");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a 2-second API outage gives retries at least 1 s apart, WARNs only and one INFO at the recovery (issue 18)", async () => {
  // The worst jitter draw: with full jitter (the old rule) it retried after the debounce alone.
  const h = startLoop({ random: () => 0 });
  try {
    await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
    assert.equal(h.sink.writes, 1);
    const outageEnds = h.clock.now() + 2_000;
    const callTimes: number[] = [];
    const realReconcile = h.sink.reconcile.bind(h.sink);
    h.sink.reconcile = (hosts, signal, context) => {
      callTimes.push(h.clock.now());
      if (h.clock.now() < outageEnds) {
        return Promise.resolve({ kind: "failed", message: "503 Service Unavailable" });
      }
      return realReconcile(hosts, signal, context);
    };
    h.ingresses.apply(tlsIngress("b", "b.example.com"));
    for (let step = 0; step < 100; step++) await h.flush();
    assert.equal(h.sink.writes, 2, "converged after the outage");
    const gaps = callTimes.slice(1).map((at, i) => at - callTimes[i]!);
    assert.ok(gaps.every((gap) => gap >= 1_000), `gaps between attempts: ${gaps.join(", ")} ms`);
    assert.equal(callTimes.length, 3, "two failed attempts, then the one that wrote");
    assert.equal(h.log.find("warn", "reconcile failed").length, 2);
    assert.equal(h.log.entries.filter((line) => line.level === "error").length, 0, "a blip pages nobody");
    const recovered = h.log.find("info", "reconcile recovered");
    assert.equal(recovered.length, 1);
    assert.equal(recovered[0]?.properties.attempts, 2);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: failures past 3 attempts and 30 s are ERRORs and fail readiness; the recovery says so once and is ready again", async () => {
  const h = startLoop({ random: () => 0.5 });
  try {
    await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
    const failed = { kind: "failed", message: "503 Service Unavailable" } as const;
    h.sink.script(...Array.from({ length: 6 }, () => failed));
    h.ingresses.apply(tlsIngress("b", "b.example.com"));
    await h.flush();
    const readiness = () =>
      controllerReadiness({ watched: [], loop: h.loop.status(), stopping: false, now: h.clock.now() });
    const levels: string[] = [];
    while (h.state() === "backing-off") {
      const last = h.log.entries.filter((line) => line.message.includes("retrying after backoff")).at(-1);
      levels.push(`${last?.level}:${last?.properties.attempts}:${readiness().ready}`);
      const state = h.loop.status().state;
      assert.ok(state.kind === "backing-off");
      await h.clock.advance(state.delayMs);
      await h.flush();
    }
    // Failing since 0: attempts at about 0, 1.4, 4, 9.1, 19.2 and 39.3 s; the sixth is past 30 s.
    assert.deepEqual(levels, [
      "warn:1:true",
      "warn:2:true",
      "warn:3:true",
      "warn:4:true",
      "warn:5:true",
      "error:6:false",
    ]);
    assert.equal(h.log.find("error", "reconcile keeps failing").length, 1);
    assert.deepEqual(readiness(), { ready: true }, "the first success makes it ready again");
    assert.equal(h.log.find("info", "reconcile recovered").length, 1);
    assert.equal(h.log.find("info", "reconcile recovered")[0]?.properties.attempts, 6);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a refusal that names when it lifts (a hold-off) calls the sink again then, not at the resync", async () => {
  const h = startLoop({ resyncMs: 600_000 });
  try {
    h.sink.script({ kind: "refuse", problem: "reverted", message: "held off", recheckAfterMs: 30_000 });
    await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
    assert.equal(h.sink.calls.length, 1);
    assert.equal(h.sink.writes, 0);
    await h.clock.advance(29_000);
    await h.flush();
    assert.equal(h.sink.calls.length, 1, "nothing before the hold-off ends");
    await h.clock.advance(1_000);
    await h.flush();
    assert.equal(h.sink.calls.length, 2, "called again when the hold-off ended");
    assert.equal(h.sink.writes, 1);
    assert.equal(h.log.find("debug", "reconcile").at(-1)?.properties.trigger, "recheck");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a refusal is logged once per distinct problem and retried on the next change or resync (T-2.6, T-2.12)", async () => {
  const h = startLoop({ resyncMs: 60_000 });
  try {
    const damaged = {
      kind: "refuse",
      problem: "end-before-begin",
      message: "END on line 3 before BEGIN",
    } as const;
    h.sink.script(damaged, damaged, damaged);
    h.ingresses.replace([tlsIngress("a", "a.example.com")]);
    await h.flush();
    assert.equal(h.log.find("error", "write refused").length, 1);
    assert.equal(h.state(), "idle", "a refusal is not retried in a loop");
    await h.clock.advance(30_000);
    assert.equal(h.sink.calls.length, 1);

    h.ingresses.apply(tlsIngress("b", "b.example.com"));
    await h.flush();
    await h.clock.advance(30_000);
    await h.flush();
    assert.equal(h.sink.calls.length, 3, "retried on a change and on the resync");
    assert.equal(h.log.find("error", "write refused").length, 1, "the same problem stays quiet");
    assert.equal(h.log.find("debug", "write still refused").length, 2);

    h.sink.script({ kind: "refuse", problem: "configmap-too-large", message: "over 1 MiB" });
    h.ingresses.apply(tlsIngress("c", "c.example.com"));
    await h.flush();
    assert.equal(h.log.find("error", "write refused").length, 2, "a different problem is logged");

    h.ingresses.apply(tlsIngress("d", "d.example.com"));
    await h.flush();
    assert.equal(h.sink.writes, 1, "fixed: written");
    h.sink.script(damaged);
    h.ingresses.apply(tlsIngress("e", "e.example.com"));
    await h.flush();
    assert.equal(h.log.find("error", "write refused").length, 3, "after a success the problem is news again");
    assert.deepEqual(h.log.find("error", "write refused")[0]?.properties, {
      target: h.sink.description,
      problem: "end-before-begin",
      message: "END on line 3 before BEGIN",
    });
  } finally {
    await h.stop();
  }
});

Deno.test("loop: the resync calls the sink, an unchanged result writes nothing; status-only churn skips the sink (T-1.30, T-2.3)", async () => {
  const h = startLoop({ resyncMs: 60_000 });
  try {
    const a = tlsIngress("a", "a.example.com");
    await h.syncAndSettle([a]);
    assert.equal(h.sink.writes, 1);
    assert.equal(h.log.find("info", "hostnames updated").length, 1);

    // 200 status-only updates: new resourceVersions, the same hostnames.
    for (let i = 0; i < 200; i++) {
      h.ingresses.apply({
        ...a,
        metadata: { ...a.metadata, resourceVersion: String(100 + i) },
        status: { loadBalancer: { ingress: [{ ip: `192.0.2.${i % 250}` }] } },
      });
    }
    await h.flush();
    assert.equal(h.sink.calls.length, 1, "the desired set did not move: no request at all");
    assert.equal(h.observer.skips, 0, "a status-only update wakes nothing: not even a recompute");

    await h.clock.advance(60_000 - DEBOUNCE_MS);
    await h.flush();
    assert.equal(h.sink.calls.length, 2, "the resync calls the sink");
    assert.equal(h.observer.results.at(-1)?.kind, "unchanged");
    assert.equal(h.sink.writes, 1, "and nothing is written");
    assert.equal(h.log.find("info", "hostnames updated").length, 1, "no INFO when nothing changed");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: while a refusal lasts, status-only churn does not call the sink again; the resync does", async () => {
  const h = startLoop({ resyncMs: 60_000 });
  try {
    const foreign = {
      kind: "refuse",
      problem: "foreign-object",
      message: "a.example.com is held by an object ouroboros does not own",
      scope: "some-hosts",
    } as const;
    h.sink.script(foreign, foreign);
    const a = tlsIngress("a", "a.example.com");
    await h.syncAndSettle([a]);
    assert.equal(h.sink.calls.length, 1);
    for (let i = 0; i < 100; i++) {
      h.ingresses.apply({
        ...a,
        metadata: { ...a.metadata, resourceVersion: String(100 + i) },
        status: { loadBalancer: { ingress: [{ ip: `192.0.2.${i % 250}` }] } },
      });
    }
    await h.flush();
    assert.equal(
      h.sink.calls.length,
      1,
      "the same input is not sent again: no repeated reads of the records",
    );
    await h.clock.advance(60_000 - DEBOUNCE_MS);
    await h.flush();
    assert.equal(h.sink.calls.length, 2, "the resync tries again");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: 'hostnames updated' carries the sink's counts", async () => {
  const h = startLoop();
  try {
    await h.syncAndSettle([tlsIngress("a", "a.example.com"), tlsIngress("b", "b.example.com")]);
    h.ingresses.delete(tlsIngress("a", "a.example.com"));
    h.ingresses.apply(tlsIngress("c", "c.example.com"));
    h.ingresses.apply(tlsIngress("d", "d.example.com"));
    await h.flush();
    const updates = h.log.find("info", "hostnames updated").map((entry) => entry.properties);
    assert.deepEqual(updates, [
      { target: h.sink.description, added: 2, removed: 0, total: 2 },
      { target: h.sink.description, added: 2, removed: 1, total: 3 },
    ]);
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a refused hostname is logged once per object change, escaped, and never reaches the sink (T-3.1, T-3.8)", async () => {
  const h = startLoop({ resyncMs: 60_000 });
  try {
    const hostile = "evil.example.com\n    forward . 6.6.6.6";
    const object = ingress("shop/web", { tls: ["ok.example.com", hostile], resourceVersion: "7" });
    await h.syncAndSettle([object]);
    assert.deepEqual(h.sink.calls[0]?.hosts, ["ok.example.com"]);
    const warnings = h.log.find("warn", "hostname refused");
    assert.equal(warnings.length, 1);
    assert.equal(
      warnings[0]?.properties.value,
      hostile,
      "raw: the log format escapes it, never quoted twice",
    );
    assert.equal(warnings[0]?.properties.object, "shop/web");
    assert.equal(h.observer.desired?.rejected, 1);

    await h.clock.advance(60_000);
    await h.flush();
    h.ingresses.apply(tlsIngress("other", "other.example.com"));
    await h.flush();
    assert.equal(h.log.find("warn", "hostname refused").length, 1, "resyncs and other changes stay quiet");

    h.ingresses.apply({
      ...object,
      metadata: { ...object.metadata, resourceVersion: "8" },
      status: { loadBalancer: { ingress: [{ ip: "192.0.2.1" }] } },
    });
    await h.flush();
    assert.equal(h.log.find("warn", "hostname refused").length, 1, "a status-only update stays quiet");

    const changed = ingress("shop/web", {
      tls: ["ok.example.com", "new.example.com", hostile],
      resourceVersion: "9",
    });
    h.ingresses.apply(changed);
    await h.flush();
    assert.equal(h.log.find("warn", "hostname refused").length, 2, "the spec changed: said again");
    assert.ok(h.sink.calls.every((call) => call.hosts.every((host) => !host.includes("\n"))));
  } finally {
    await h.stop();
  }
});

Deno.test("loop: a change to the target calls the sink even when no hostname moved (T-1.28)", async () => {
  const h = startLoop({ withTarget: true });
  try {
    const configMap = (resourceVersion: string): KubeObject => ({
      metadata: {
        name: "coredns",
        namespace: "kube-system",
        uid: "u",
        resourceVersion,
        labels: {},
        annotations: {},
        ownerReferences: [],
      },
    });
    h.target.replace([configMap("1")]);
    await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
    assert.equal(h.sink.calls.length, 1);

    // Someone deleted our block: the sink holds nothing any more.
    h.sink.held = [];
    h.target.apply(configMap("2"));
    await h.flush();
    assert.equal(h.sink.calls.length, 2);
    assert.deepEqual(h.sink.held, ["a.example.com"], "restored without waiting for a resync");
  } finally {
    await h.stop();
  }
});

Deno.test("loop: shutdown lets a reconcile in flight finish, with its signal untouched", async () => {
  const h = startLoop();
  h.sink.script({ kind: "block" });
  h.ingresses.replace([tlsIngress("a", "a.example.com")]);
  await h.flush();
  assert.ok(h.sink.blocked);
  h.controller.abort();
  let returned = false;
  h.running.then(() => returned = true);
  await h.clock.advance(5_000);
  assert.equal(returned, false, "run waits for the call in flight");
  assert.equal(h.sink.calls[0]?.signal.aborted, false, "within the grace period the call is not cut");
  h.sink.release();
  await h.running;
  assert.equal(h.sink.writes, 1, "the started write completed");
  assert.equal(h.state(), "stopped");
  await h.clock.advance(60_000);
  assert.equal(h.sink.calls.length, 1, "no call starts after shutdown");
});

Deno.test("loop: a reconcile that hangs past the shutdown grace period is abandoned", async () => {
  const h = startLoop({ shutdownGraceMs: 2_000 });
  h.sink.script({ kind: "block" });
  h.ingresses.replace([tlsIngress("a", "a.example.com")]);
  await h.flush();
  h.controller.abort();
  await h.clock.advance(2_000);
  await h.running;
  assert.equal(h.sink.calls[0]?.signal.aborted, true);
  assert.equal(h.sink.writes, 0);
  assert.equal(h.log.find("warn", "a reconcile did not finish").length, 1);
  assert.equal(
    h.log.find("error", "reconcile failed").length,
    0,
    "an abandoned call at shutdown is no failure",
  );
});

Deno.test("loop: aborting while waiting for the sync returns at once", async () => {
  const h = startLoop();
  await settle();
  await h.stop();
  assert.equal(h.state(), "stopped");
  assert.equal(h.sink.calls.length, 0);
  await assert.rejects(h.loop.run(new AbortController().signal), /twice/);
});

Deno.test("loop, dry run: a preview is logged at INFO with its diff once; the same diff at every resync is DEBUG; a new one is INFO again", async () => {
  const h = startLoop({ resyncMs: 60_000 });
  h.sink.dryRun = true;
  try {
    await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
    const previews = () => h.log.entries.filter((entry) => entry.message.startsWith("dry run:"));
    assert.deepEqual(previews().map((entry) => entry.level), ["info"]);
    const [first] = previews();
    assert.equal(first?.properties.target, h.sink.description);
    assert.equal(first?.properties.diff, "--- a/fake\n+++ b/fake\n@@ -0,0 +1 @@\n+a.example.com\n");
    assert.deepEqual(h.observer.results.map((result) => result.kind), ["previewed"]);
    assert.equal(h.loop.status().succeeded, true, "a dry run is healthy: readiness follows it");

    for (let i = 0; i < 3; i++) {
      await h.clock.advance(60_000);
      await h.flush();
    }
    assert.equal(h.sink.calls.length, 4, "every resync calls the sink");
    assert.deepEqual(previews().map((entry) => entry.level), ["info", "debug", "debug", "debug"]);
    assert.equal(previews().at(-1)?.properties.repeated, true);

    h.ingresses.apply(tlsIngress("b", "b.example.com"));
    await h.flush();
    assert.deepEqual(previews().at(-1)?.level, "info", "a different diff is news");
    assert.equal(h.sink.writes, 0);
    assert.equal(h.log.find("info", "hostnames updated").length, 0);
  } finally {
    await h.stop();
  }
});

Deno.test("loop.once(): waits for the caches, makes exactly one sink call and returns its outcome", async () => {
  const h = startLoop({ once: true, resyncMs: 1_000 });
  await settle();
  await h.clock.advance(60_000);
  assert.equal(h.sink.calls.length, 0, "nothing before the caches synced");
  await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
  const outcome = await h.outcome;
  assert.equal(outcome?.kind, "written");
  assert.equal(h.state(), "stopped");
  await h.clock.advance(10_000);
  assert.equal(h.sink.calls.length, 1, "no resync, no second call");
});

Deno.test("loop.once(): a failed call is logged and returned, never retried", async () => {
  const h = startLoop({ once: true });
  h.sink.script({ kind: "failed", message: "503 from the server" });
  await h.syncAndSettle([tlsIngress("a", "a.example.com")]);
  const outcome = await h.outcome;
  assert.deepEqual(outcome, { kind: "failed", message: "503 from the server" });
  assert.deepEqual(h.log.find("error", "reconcile failed").map((entry) => entry.message), [
    "reconcile failed",
  ]);
  await h.clock.advance(600_000);
  assert.equal(h.sink.calls.length, 1);
});

Deno.test("loop.once(): aborted before the caches synced, it returns nothing", async () => {
  const h = startLoop({ once: true });
  await settle();
  h.controller.abort();
  assert.equal(await h.outcome, undefined);
  assert.equal(h.sink.calls.length, 0);
});
