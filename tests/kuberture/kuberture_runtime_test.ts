/**
 * The kuberture runtime in-process on a manual clock, against the fake API server: the 2-minute
 * requeue repeats a pass without any change, and readiness turns false once no pass has
 * succeeded for 5 minutes (kuberture's staleness rule), true again after the next success; the
 * failures meanwhile are paced and logged by the controller's retry rule.
 *
 * @module
 */

import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { type KubertureConfig, parseKubertureConfig } from "../../lib/kuberture/config/kuberture_config.ts";
import { KubertureRuntime } from "../../lib/kuberture/kuberture_runtime.ts";
import { apiServerSlice } from "../support/api_server_slice.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

const API_OUTPUT =
  "outputs:\n  - name: api\n    hostname: [api.example.com]\n    serviceName: kuberture-api\n";

/** kuberture's config from `text`, which must be valid. */
function config(text: string): KubertureConfig {
  const parsed = parseKubertureConfig(text, { path: "config.yaml" });
  assert.ok(parsed.ok, parsed.ok ? "" : parsed.problems.join("\n"));
  return parsed.config;
}

/**
 * A runtime on a manual clock against `server` (which holds the API server's slice), running
 * until disposed, with its health routes and the count of successful passes read from /metrics.
 */
function startRuntime(server: FakeApiServer, text: string) {
  const client = new KubeClient({ server: server.url });
  const clock = new FakeClock();
  const log = new LogRecorder();
  const runtime = new KubertureRuntime({
    api: client,
    config: config(text),
    namespace: "kuberture",
    instance: "kuberture",
    owner: undefined,
    recorder: { record: () => Promise.resolve({ kind: "suppressed" }) },
    dryRun: false,
    version: "test",
    log,
    clock,
    random: () => 0,
    rss: () => 0,
  });
  const routes = runtime.healthRoutes();
  const passes = async () => {
    const line = (await routes.metrics()).split("\n").find((l) =>
      l.startsWith('kuberture_reconcile_total{status="success"}')
    );
    return Number(line?.split(" ")[1] ?? 0);
  };
  const stop = new AbortController();
  const running = runtime.run(stop.signal);
  return {
    runtime,
    routes,
    clock,
    log,
    passes,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      client.close();
    },
  };
}

Deno.test("kuberture runtime: the requeue repeats the pass every 2 minutes; readiness goes stale after 5 minutes without a success", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(apiServerSlice([{ addresses: ["192.0.2.10"] }]));
  await using started = startRuntime(server, API_OUTPUT);
  const { routes, clock, log, passes } = started;
  // The first pass after the caches synced and the 100 ms debounce.
  await waitFor("the first pass", async () => {
    await clock.advance(100);
    return (await passes()) === 1;
  });
  assert.deepEqual(await routes.readiness(), { ready: true });
  await clock.advance(119_000);
  assert.equal(await passes(), 1, "nothing changed, no pass before the requeue");
  await waitFor("the requeued pass", async () => {
    await clock.advance(1_000);
    return (await passes()) === 2;
  });
  // Every pass fails from now on (the list of our objects is refused): readiness holds for 5 minutes.
  server.faults.inject("list", { type: "status", code: 500, reason: "InternalError" }, {
    path: /services/,
    count: 1_000,
  });
  await clock.advance(240_000);
  assert.deepEqual(
    await routes.readiness(),
    { ready: true },
    "4 minutes after the last success: still ready",
  );
  await clock.advance(120_000);
  const stale = await routes.readiness();
  assert.equal(stale.ready, false);
  assert.match(stale.ready ? "" : stale.text, /the last successful pass was \d+s ago/);
  server.faults.clear();
  await waitFor("a success again", async () => {
    await clock.advance(30_000);
    return (await routes.readiness()).ready;
  });
  // The failures were paced and said as the controller's are (WARN while transient, ERROR once
  // persistent: how many of each depends on when the retries fall, the shared rule's own test
  // pins that), each counting its attempt, and the recovery is one INFO counting them all.
  const warned = log.find("warn", "reconcile failed; retrying after backoff");
  const failed = [...warned, ...log.find("error", "reconcile keeps failing; retrying after backoff")];
  assert.ok(warned.length >= 1);
  assert.deepEqual(failed.map((line) => line.properties.attempts), failed.map((_, i) => i + 1));
  assert.equal(warned[0]!.properties.target, "kuberture kuberture/kuberture");
  assert.match(String(warned[0]!.properties.error), /^cannot list this instance's objects: Services: /);
  const recovered = log.find("info", "reconcile recovered");
  assert.deepEqual(recovered.map((line) => line.properties.attempts), [failed.length]);
});

Deno.test("kuberture runtime: DNSEndpoints are listed at the first pass and, after a crd output, on every pass; never otherwise", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(apiServerSlice([{ addresses: ["192.0.2.10"] }]));
  await using started = startRuntime(server, API_OUTPUT);
  const { runtime, clock, passes } = started;
  const endpointLists = () =>
    server.audit.filter((entry) =>
      entry.method === "GET" && !entry.watch && /\/dnsendpoints$/.test(entry.path)
    )
      .length;
  const passUntil = async (count: number) =>
    await waitFor(`pass ${count}`, async () => {
      await clock.advance(1_000);
      return (await passes()) >= count;
    });
  await passUntil(1);
  assert.equal(endpointLists(), 1, "the first pass looks for a DNSEndpoint left by an earlier crd output");
  await clock.advance(119_000);
  await passUntil(2);
  assert.equal(
    endpointLists(),
    1,
    "no crd output since start: the requeued pass does not list DNSEndpoints",
  );
  runtime.setConfig(
    config(
      "outputs:\n  - name: api\n    hostname: [api.example.com]\n    serviceName: kuberture-api\n" +
        "  - name: crd\n    hostname: [crd.example.com]\n    serviceName: kuberture-crd\n    output: crd\n",
    ),
  );
  await passUntil(3);
  assert.ok(server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "kuberture", "kuberture-crd"));
  runtime.setConfig(config(API_OUTPUT));
  await passUntil(4);
  assert.equal(endpointLists(), 3, "a crd output since start: each pass lists them");
  assert.equal(
    server.get("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "kuberture", "kuberture-crd"),
    undefined,
    "the removed crd output's DNSEndpoint is pruned",
  );
});

Deno.test("kuberture runtime: a shutdown while a pass waits on the API server ends run without a rejection", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(apiServerSlice([{ addresses: ["192.0.2.10"] }]));
  // The first pass's list of our Services is never answered: the pass is in flight at the abort.
  server.faults.inject("list", { type: "blackhole" }, { path: /services/ });
  // Disposing aborts the run and awaits it: a rejection fails the test (before the fix the process exited 1).
  await using started = startRuntime(server, API_OUTPUT);
  await waitFor("the pass's list to be held", async () => {
    await started.clock.advance(100);
    return server.audit.some((entry) => entry.path.endsWith("/services") && entry.status === 0);
  });
});
