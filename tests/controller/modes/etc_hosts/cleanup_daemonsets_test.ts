/**
 * etc-hosts mode's cluster steps of the uninstall, as the chart's pre-delete hook runs them
 * (`ouroboros controller --mode=etc-hosts --cleanup` with `--cleanup-stop-daemonset` or
 * `--cleanup-await-daemonset`), as processes against the fake API server: the controller DaemonSet
 * is deleted in the foreground and waited for until it is gone; the node-cleanup DaemonSet is
 * waited for until every node is clean, then deleted; each deadline fails saying what to do, with
 * the node-cleanup DaemonSet kept. The rollout judgement is tested pure.
 *
 * @module
 */

import assert from "node:assert/strict";
import {
  nodeCleanupProgress,
  stopDaemonSet,
} from "../../../../lib/controller/modes/etc_hosts/cleanup_daemonsets.ts";
import { KubeApiError } from "../../../../lib/kube/errors.ts";
import { FakeClock } from "../../../support/fake_clock.ts";
import { DAEMON_SET, type DaemonSetStatus } from "../../../../lib/resources/daemon_set.ts";
import { type FakeApiServer, startFakeApiServer } from "../../../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../../../support/kubeconfig.ts";
import { parseLogLines, runOuroboros } from "../../../support/ouroboros_process.ts";
import { tempDir } from "../../../support/temp_dir.ts";
import { waitFor } from "../../../support/wait.ts";

Deno.test("nodeCleanupProgress: done only when the status is current and ready = updated = desired", () => {
  const at = (generation: number, status: DaemonSetStatus) => ({
    metadata: {
      name: "c",
      namespace: "n",
      uid: "u",
      resourceVersion: "1",
      labels: {},
      annotations: {},
      ownerReferences: [],
      generation,
    },
    selector: {},
    status,
  });
  const counts = (desired: number, updated: number, ready: number, observedGeneration?: number) => ({
    desiredNumberScheduled: desired,
    updatedNumberScheduled: updated,
    numberReady: ready,
    ...(observedGeneration === undefined ? {} : { observedGeneration }),
  });
  const cases: [string, ReturnType<typeof at>, string][] = [
    ["not observed yet", at(1, counts(0, 0, 0)), "waiting"],
    ["observed an older spec", at(2, counts(2, 2, 2, 1)), "waiting"],
    ["one node not ready", at(1, counts(2, 2, 1, 1)), "waiting"],
    ["one pod of an older spec", at(1, counts(2, 1, 2, 1)), "waiting"],
    ["every node clean", at(1, counts(2, 2, 2, 1)), "done 2"],
    ["no node to run on, observed", at(1, counts(0, 0, 0, 1)), "done 0"],
  ];
  for (const [name, daemonSet, expected] of cases) {
    const progress = nodeCleanupProgress(daemonSet);
    assert.equal(progress.kind === "done" ? `done ${progress.nodes}` : progress.kind, expected, name);
  }
  const decoded = DAEMON_SET.decode({
    metadata: { name: "c", namespace: "n", uid: "u", resourceVersion: "1" },
    spec: { selector: { matchLabels: { app: "c" } } },
  });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.ok && decoded.value.status, counts(0, 0, 0), "absent counts read as 0");
});

Deno.test("stopDaemonSet deletes with foreground propagation, so the DaemonSet stays until its pods are gone", async () => {
  const calls: unknown[] = [];
  const client = {
    delete: (_type: unknown, ref: unknown, options: { propagationPolicy?: string }) => {
      calls.push(["delete", ref, options.propagationPolicy]);
      return Promise.resolve();
    },
    get: () => Promise.reject(new KubeApiError("GET", { code: 404, reason: "NotFound", message: "gone" })),
  } as unknown as Parameters<typeof stopDaemonSet>[0];
  const outcome = await stopDaemonSet(client, { namespace: "n", name: "c" }, {
    clock: new FakeClock({ autoAdvance: true }),
    signal: new AbortController().signal,
    timeoutMs: 5_000,
  });
  assert.equal(outcome.kind, "done");
  assert.deepEqual(calls, [["delete", { namespace: "n", name: "c" }, "Foreground"]]);
});

const NS = "ouroboros";

function daemonSet(server: FakeApiServer, name: string, status?: Record<string, unknown>): void {
  server.create({
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace: NS },
    spec: {
      selector: { matchLabels: { "app.kubernetes.io/component": name } },
      template: { spec: { containers: [] } },
    },
  });
  if (status !== undefined) setStatus(server, name, status);
}

function setStatus(server: FakeApiServer, name: string, status: Record<string, unknown>): void {
  const current = server.get("apps/v1", "DaemonSet", NS, name)!;
  const generation = (current.metadata as { generation?: number }).generation ?? 1;
  server.update({ ...current, status: { observedGeneration: generation, ...status } });
}

async function step(server: FakeApiServer, flags: readonly string[]) {
  await using dir = await tempDir("ouroboros-etc-hosts-step-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url });
  const run = await runOuroboros([
    "controller",
    "--mode=etc-hosts",
    `--kubeconfig=${kubeconfig}`,
    "--cleanup",
    ...flags,
  ]);
  return { ...run, logs: parseLogLines(run.stderr) };
}

/** Holds back the first read of the controller DaemonSet, so the test can put it back after the DELETE. */
function lingerAfterDelete(server: FakeApiServer): void {
  server.faults.inject("get", { type: "delay", ms: 1500 }, {
    path: /\/daemonsets\/ouroboros-etc-hosts$/,
    count: 1,
  });
}

const deletes = (server: FakeApiServer, name: string) =>
  server.audit.filter((entry) => entry.method === "DELETE" && entry.path.endsWith(`/daemonsets/${name}`));

Deno.test("--cleanup-stop-daemonset deletes the controller DaemonSet and exits 0 only once it is gone", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  daemonSet(server, "ouroboros-etc-hosts");
  daemonSet(server, "unrelated");
  // The fake deletes at once; a foreground deletion keeps the object while its pods go: put it back
  // before the first read (held back) can look.
  lingerAfterDelete(server);
  const running = step(server, ["--cleanup-stop-daemonset=ouroboros/ouroboros-etc-hosts"]);
  let exited = false;
  running.then(() => exited = true, () => exited = true);
  await waitFor("the DELETE", () => deletes(server, "ouroboros-etc-hosts").length > 0);
  daemonSet(server, "ouroboros-etc-hosts");
  await waitFor(
    "a read of the lingering DaemonSet",
    () =>
      server.audit.filter((entry) => entry.method === "GET" && entry.path.endsWith("/ouroboros-etc-hosts"))
        .length >= 2,
  );
  assert.equal(exited, false, "still waiting while the DaemonSet is there");
  server.remove("apps/v1", "DaemonSet", NS, "ouroboros-etc-hosts");
  const run = await running;
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.logs.some((line) => /is gone: no controller pod is left/.test(line.msg)));
  assert.ok(server.get("apps/v1", "DaemonSet", NS, "unrelated"), "nothing else is touched");
  assert.equal(deletes(server, "ouroboros-etc-hosts").length, 1);
  // Not there at all is done at once.
  const again = await step(server, ["--cleanup-stop-daemonset=ouroboros/ouroboros-etc-hosts"]);
  assert.equal(again.code, 0, again.stderr);
});

Deno.test("--cleanup-stop-daemonset fails when the DaemonSet is not gone in time, or its delete is refused", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  daemonSet(server, "ouroboros-etc-hosts");
  lingerAfterDelete(server);
  const running = step(server, [
    "--cleanup-stop-daemonset=ouroboros/ouroboros-etc-hosts",
    "--cleanup-quiesce-timeout=2s",
  ]);
  await waitFor("the DELETE", () => deletes(server, "ouroboros-etc-hosts").length > 0);
  daemonSet(server, "ouroboros-etc-hosts");
  const late = await running;
  assert.equal(late.code, 1, late.stderr);
  const error = late.logs.find((line) => line.level === "ERROR");
  assert.match(String(error?.msg), /is still there after 2s .*kubectl --namespace ouroboros get daemonset/);
  server.faults.inject("delete", { type: "status", code: 403, reason: "Forbidden" }, { path: /daemonsets/ });
  const refused = await step(server, ["--cleanup-stop-daemonset=ouroboros/ouroboros-etc-hosts"]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    String(refused.logs.find((line) => line.level === "ERROR")?.msg),
    /could not delete .*403.*kubectl --namespace ouroboros delete daemonset ouroboros-etc-hosts/,
  );
});

Deno.test("--cleanup-await-daemonset waits until every node is clean, then deletes the cleanup DaemonSet", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  daemonSet(server, "ouroboros-etc-hosts-cleanup", {
    desiredNumberScheduled: 2,
    updatedNumberScheduled: 2,
    numberReady: 1,
  });
  const running = step(server, ["--cleanup-await-daemonset=ouroboros/ouroboros-etc-hosts-cleanup"]);
  await waitFor(
    "the progress line",
    () =>
      server.audit.filter((entry) => entry.method === "GET" && entry.path.endsWith("-cleanup")).length >= 2,
  );
  assert.equal(deletes(server, "ouroboros-etc-hosts-cleanup").length, 0, "kept while a node is left");
  setStatus(server, "ouroboros-etc-hosts-cleanup", {
    desiredNumberScheduled: 2,
    updatedNumberScheduled: 2,
    numberReady: 2,
  });
  const run = await running;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(server.get("apps/v1", "DaemonSet", NS, "ouroboros-etc-hosts-cleanup"), undefined);
  assert.ok(run.logs.some((line) => line.msg === "not every node is clean yet"));
  assert.ok(run.logs.some((line) => /all 2 nodes have cleaned their hosts file/.test(line.msg)));
  // No node to run on is nothing to clean.
  daemonSet(server, "ouroboros-etc-hosts-cleanup", {
    desiredNumberScheduled: 0,
    updatedNumberScheduled: 0,
    numberReady: 0,
  });
  const none = await step(server, ["--cleanup-await-daemonset=ouroboros/ouroboros-etc-hosts-cleanup"]);
  assert.equal(none.code, 0, none.stderr);
  assert.ok(none.logs.some((line) => /runs on no node/.test(line.msg)));
});

Deno.test("--cleanup-await-daemonset fails at its deadline naming the nodes left and keeps the DaemonSet; a missing one fails at once", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  daemonSet(server, "ouroboros-etc-hosts-cleanup", {
    desiredNumberScheduled: 3,
    updatedNumberScheduled: 3,
    numberReady: 1,
  });
  const late = await step(server, [
    "--cleanup-await-daemonset=ouroboros/ouroboros-etc-hosts-cleanup",
    "--cleanup-quiesce-timeout=2s",
  ]);
  assert.equal(late.code, 1, late.stderr);
  const error = String(late.logs.find((line) => line.level === "ERROR")?.msg);
  assert.match(error, /^2 of 3 nodes have not cleaned their hosts file/);
  assert.match(error, /get pods --selector 'app.kubernetes.io\/component=ouroboros-etc-hosts-cleanup'/);
  assert.ok(server.get("apps/v1", "DaemonSet", NS, "ouroboros-etc-hosts-cleanup"), "kept to look at");
  const missing = await step(server, ["--cleanup-await-daemonset=ouroboros/nothing-here"]);
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(
    String(missing.logs.find((line) => line.level === "ERROR")?.msg),
    /not found, so no node's hosts file/,
  );
});
