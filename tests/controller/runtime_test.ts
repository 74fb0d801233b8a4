/**
 * `ControllerRuntime.once` (`--once`) in-process against the fake API server: one sink call and
 * its outcome once the caches have synced; a deadline that ends a run whose caches never sync
 * (an unreachable API server), saying what was missing; an abort.
 */

import assert from "node:assert/strict";
import { ControllerRuntime } from "../../lib/controller/runtime.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";
import { FakeSink } from "./loop_harness.ts";

function runtime(client: KubeClient, sink = new FakeSink()): ControllerRuntime {
  return ControllerRuntime.start({
    api: client,
    mode: () => ({ sink, details: {} }),
    gatewayApi: false,
    desired: { clusterDomain: "cluster.local" },
    resyncMs: 600_000,
    version: "test",
    log: new LogRecorder(),
    debounceMs: 1,
  });
}

Deno.test("runtime.once(): lists, makes one sink call, stops the caches and returns the outcome", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace: "shop", name: "web" },
    spec: { tls: [{ hosts: ["shop.example.com"] }] },
  });
  using client = new KubeClient({ server: server.url });
  const sink = new FakeSink();
  const result = await runtime(client, sink).once(new AbortController().signal, { deadlineMs: 30_000 });
  assert.equal(result.kind, "reconciled");
  assert.equal(result.kind === "reconciled" ? result.outcome.kind : "", "written");
  assert.deepEqual(sink.calls.map((call) => call.hosts), [["shop.example.com"]]);
  await waitFor("the caches' watches to close", () => server.openWatches() === 0);
});

Deno.test("runtime.once(): caches that never sync end at the deadline, naming what was missing", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  await server.stop();
  using client = new KubeClient({ server: server.url });
  const sink = new FakeSink();
  const result = await runtime(client, sink).once(new AbortController().signal, { deadlineMs: 300 });
  assert.equal(result.kind, "timed-out");
  assert.match(result.kind === "timed-out" ? result.reason : "", /waiting for the first list of: Ingress/);
  assert.equal(sink.calls.length, 0);
});

Deno.test("runtime.once(): an abort (SIGTERM) before the reconcile ends it", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  await server.stop();
  using client = new KubeClient({ server: server.url });
  const controller = new AbortController();
  const running = runtime(client).once(controller.signal, { deadlineMs: 30_000 });
  controller.abort();
  assert.deepEqual(await running, { kind: "aborted" });
});

/**
 * `runtime.once` over one Ingress with an exact name and `*.example.com`, with `--wildcards=rewrite`,
 * for a mode that does or does not write wildcards: the sink's calls, the log and `/metrics`.
 */
async function onceWithWildcard(writesWildcards: boolean) {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace: "shop", name: "web" },
    spec: { tls: [{ hosts: ["shop.example.com", "*.example.com"] }] },
  });
  using client = new KubeClient({ server: server.url });
  const sink = new FakeSink();
  const log = new LogRecorder();
  const runtime = ControllerRuntime.start({
    api: client,
    mode: () => ({ sink, details: {}, ...(writesWildcards ? { wildcards: true } : {}) }),
    gatewayApi: false,
    desired: { clusterDomain: "cluster.local", wildcards: "include" },
    resyncMs: 600_000,
    version: "test",
    log,
    debounceMs: 1,
  });
  await runtime.once(new AbortController().signal, { deadlineMs: 30_000 });
  return {
    hosts: sink.calls.map((call) => call.hosts),
    warned: log.find("warn", "wildcard hostname not written"),
    metrics: await runtime.healthRoutes().metrics(),
  };
}

Deno.test("runtime: a mode that writes wildcards gets *.<domain> in its hostnames, and nothing is warned", async () => {
  const { hosts, warned, metrics } = await onceWithWildcard(true);
  assert.deepEqual(hosts, [["*.example.com", "shop.example.com"]]);
  assert.deepEqual(warned, []);
  assert.match(metrics, /^ouroboros_controller_skipped_wildcards 0$/m);
});

Deno.test("runtime: a mode that cannot write wildcards (etc-hosts) gets the exact names, a WARN naming the wildcard and a metric", async () => {
  const { hosts, warned, metrics } = await onceWithWildcard(false);
  assert.deepEqual(hosts, [["shop.example.com"]]);
  assert.equal(warned.length, 1);
  assert.deepEqual(warned[0]?.properties, {
    kind: "Ingress",
    object: "shop/web",
    resourceVersion: warned[0]?.properties["resourceVersion"],
    value: "*.example.com",
  });
  assert.match(metrics, /^ouroboros_controller_skipped_wildcards 1$/m);
});
