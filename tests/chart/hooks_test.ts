/**
 * The chart's uninstall hook scripts, run for real: each script under dash and under busybox sh (the
 * hook image's shell and tools), the real kubectl 1.35, against the fake API server. What they wrote is
 * read back from the fake and from its audit log.
 *
 * (The coredns, coredns-import, node-local-dns and external-dns cleanup is `ouroboros controller
 * --cleanup`, kuberture's `ouroboros kuberture --cleanup`, no script: tests/controller/cluster_cleanup_test.ts,
 * tests/kuberture/kuberture_cleanup_test.ts and tests/chart/cleanup_hooks_test.ts.)
 * - etc-hosts: the controller DaemonSet is deleted and waited for; the cleanup DaemonSet is waited for
 *   until every node is clean, then deleted; a timeout fails saying how many nodes are left.
 */

import assert from "node:assert/strict";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";
import {
  type HookResult,
  hookSandbox,
  type HookShell,
  ignoreShell,
  mark,
  PREFIX,
  reads,
  SHELLS,
  unprefixedLines,
  writes,
} from "./hook_support.ts";

/** Every line printed carries the prefix, and the exit code is the expected one. */
function assertExit(result: HookResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}, expected ${code}; output:\n${result.output}`);
  assert.deepEqual(unprefixedLines(result), [], `lines without ${PREFIX}:\n${result.output}`);
}

/** etc-hosts: the controller DaemonSet (quiesce) and the cleanup DaemonSet. */
const DS_PATH = (name: string) => new RegExp(`^/apis/apps/v1/namespaces/ouroboros/daemonsets/${name}$`);
const daemonSet = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name, namespace: "ouroboros" },
  spec: {
    selector: {
      matchLabels: { "app.kubernetes.io/instance": "ouroboros", "app.kubernetes.io/component": name },
    },
    template: { spec: { containers: [] } },
  },
  ...extra,
});
const QUIESCE_ENV = { NAMESPACE: "ouroboros", DAEMONSET: "ouroboros-etc-hosts", TIMEOUT_SECONDS: "10" };

/**
 * A DaemonSet whose deletion is still in progress (foreground cascade: pods still terminating). The
 * fake removes objects at once, so the test puts it back right after the script's DELETE, before the
 * script's first poll (held back by a delay fault) can look.
 */
async function lingerAfterDelete(server: FakeApiServer, name: string): Promise<number> {
  server.faults.inject("get", { type: "delay", ms: 1500 }, { path: DS_PATH(name), count: 1 });
  await waitFor("the DaemonSet's DELETE", () => writes(server, DS_PATH(name)).length > 0, {
    timeoutMs: 20_000,
  });
  server.create(
    daemonSet(name, { metadata: { name, namespace: "ouroboros", finalizers: ["foregroundDeletion"] } }),
  );
  return mark(server);
}

const CLEANUP_ENV = {
  NAMESPACE: "ouroboros",
  DAEMONSET: "ouroboros-etc-hosts-cleanup",
  TIMEOUT_SECONDS: "30",
};
const CLEANUP_PATH = DS_PATH("ouroboros-etc-hosts-cleanup");
/** Sets the cleanup DaemonSet's status (and optionally its spec) as the DaemonSet controller would. */
const setDaemonSetStatus = (
  server: FakeApiServer,
  status: Record<string, unknown>,
  spec?: Record<string, unknown>,
): number => {
  const current = server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET)!;
  server.update({ ...current, ...(spec === undefined ? {} : { spec }), status });
  return mark(server);
};

for (const shell of SHELLS) {
  const ignore = ignoreShell(shell);
  const test = (name: string, fn: (shell: HookShell) => Promise<void>) =>
    Deno.test({ name: `${shell.name}: ${name}`, ignore, fn: () => fn(shell) });

  test("the cleanup scripts refuse to run without their settings", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const { NAMESPACE: _, ...withoutNamespace } = QUIESCE_ENV;
    const missing = await sandbox.run("etc-hosts-quiesce.sh", withoutNamespace);
    assertExit(missing, 1);
    assert.match(missing.stderr, /environment variable NAMESPACE is empty or unset/);
    assert.deepEqual(writes(server, /./), []);
  });

  // --- etc-hosts-quiesce.sh -------------------------------------------------------------------------

  test("etc-hosts quiesce deletes the controller DaemonSet and exits 0 once it is gone", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet("ouroboros-etc-hosts"));
    server.create(daemonSet("unrelated"));
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-quiesce.sh", QUIESCE_ENV);
    assertExit(result, 0);
    assert.equal(server.get("apps/v1", "DaemonSet", "ouroboros", "ouroboros-etc-hosts"), undefined);
    assert.ok(server.get("apps/v1", "DaemonSet", "ouroboros", "unrelated") !== undefined);
    assert.deepEqual(writes(server, /daemonsets/).map((entry) => [entry.method, entry.path]), [
      ["DELETE", "/apis/apps/v1/namespaces/ouroboros/daemonsets/ouroboros-etc-hosts"],
    ]);
    assert.match(result.stdout, /daemonset ouroboros\/ouroboros-etc-hosts is gone/);

    const again = await sandbox.run("etc-hosts-quiesce.sh", QUIESCE_ENV);
    assertExit(again, 0);
  });

  test("etc-hosts quiesce waits while the DaemonSet's pods are still terminating", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet("ouroboros-etc-hosts"));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("etc-hosts-quiesce.sh", QUIESCE_ENV);
    const since = await lingerAfterDelete(server, "ouroboros-etc-hosts");
    await waitFor(
      "two polls that still see the DaemonSet",
      () => reads(server, DS_PATH("ouroboros-etc-hosts"), since).length >= 2,
      { timeoutMs: 20_000 },
    );
    assert.equal(running.finished(), false, "still waiting while the DaemonSet exists");
    server.remove("apps/v1", "DaemonSet", "ouroboros", "ouroboros-etc-hosts");
    const result = await running.done;
    assertExit(result, 0);
    assert.match(
      result.stdout,
      /waiting up to 10s for daemonset ouroboros\/ouroboros-etc-hosts and its pods to go/,
    );
  });

  test("etc-hosts quiesce exits 1 when the DaemonSet is still there at the deadline", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet("ouroboros-etc-hosts"));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("etc-hosts-quiesce.sh", { ...QUIESCE_ENV, TIMEOUT_SECONDS: "3" });
    await lingerAfterDelete(server, "ouroboros-etc-hosts");
    const result = await running.done;
    assertExit(result, 1);
    assert.match(result.stderr, /daemonset ouroboros\/ouroboros-etc-hosts is still there after 3s/);
    assert.match(
      result.stderr,
      /kubectl --namespace ouroboros get daemonset ouroboros-etc-hosts --output yaml/,
    );
  });

  // --- etc-hosts-cleanup.sh -------------------------------------------------------------------------

  test("etc-hosts cleanup waits until every node has cleaned its file, then deletes the DaemonSet", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet(CLEANUP_ENV.DAEMONSET));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("etc-hosts-cleanup.sh", CLEANUP_ENV);
    const polls = (since: number) => reads(server, CLEANUP_PATH, since).length;
    await waitFor("a poll before the DaemonSet has any status", () => polls(0) >= 1, { timeoutMs: 20_000 });

    // A spec change the DaemonSet controller has not seen yet: generation 2, status still about 1.
    const base = server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET)!;
    const changedSpec = { ...(base.spec as Record<string, unknown>), minReadySeconds: 0 };
    const stale = setDaemonSetStatus(
      server,
      { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 3 },
      changedSpec,
    );
    const changed = server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET)!;
    assert.equal((changed.metadata as { generation: number }).generation, 2);
    await waitFor("a poll of the stale status", () => polls(stale) >= 2, { timeoutMs: 20_000 });
    const partial = setDaemonSetStatus(server, {
      observedGeneration: 2,
      desiredNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberReady: 1,
    });
    await waitFor("a poll of the partial status", () => polls(partial) >= 2, { timeoutMs: 20_000 });
    assert.equal(running.finished(), false);
    assert.deepEqual(writes(server, CLEANUP_PATH), [], "not deleted before every node is clean");
    const done = setDaemonSetStatus(server, {
      observedGeneration: 2,
      desiredNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
    });

    const result = await running.done;
    assertExit(result, 0);
    const deletes = writes(server, CLEANUP_PATH);
    assert.deepEqual(deletes.map((entry) => [entry.method, entry.status]), [["DELETE", 200]]);
    assert.ok(deletes[0]!.index >= done, "deleted only after every node was clean");
    assert.equal(server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET), undefined);
    assert.match(
      result.stdout,
      /not done yet: desired 0, updated 0, cleaned \(ready\) 0, status current: no/,
    );
    assert.match(
      result.stdout,
      /not done yet: desired 3, updated 3, cleaned \(ready\) 3, status current: no/,
    );
    assert.match(
      result.stdout,
      /not done yet: desired 3, updated 3, cleaned \(ready\) 1, status current: yes/,
    );
    assert.match(result.stdout, /all 3 nodes have cleaned their hosts file/);
  });

  test("etc-hosts cleanup is done at once when the DaemonSet runs on no node", async () => {
    await using server = await startFakeApiServer();
    server.create({
      ...daemonSet(CLEANUP_ENV.DAEMONSET),
      status: { observedGeneration: 1, desiredNumberScheduled: 0, updatedNumberScheduled: 0, numberReady: 0 },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-cleanup.sh", CLEANUP_ENV);
    assertExit(result, 0);
    assert.match(result.stdout, /runs on no node: no hosts file to clean/);
    assert.equal(server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET), undefined);
  });

  test("etc-hosts cleanup exits 1 saying how many nodes are not clean, and keeps the DaemonSet", async () => {
    await using server = await startFakeApiServer();
    server.create({
      ...daemonSet(CLEANUP_ENV.DAEMONSET),
      status: { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 1 },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-cleanup.sh", { ...CLEANUP_ENV, TIMEOUT_SECONDS: "2" });
    assertExit(result, 1);
    assert.match(result.stderr, /2 of 3 nodes have not cleaned their hosts file .* after 2s/);
    assert.match(
      result.stderr,
      /kubectl --namespace ouroboros get pods --selector 'app.kubernetes.io\/component=ouroboros-etc-hosts-cleanup,app.kubernetes.io\/instance=ouroboros' --output wide/,
    );
    assert.deepEqual(writes(server, CLEANUP_PATH), []);
    assert.ok(server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET) !== undefined);
  });

  test("etc-hosts cleanup exits 1 when the cleanup DaemonSet does not exist", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-cleanup.sh", CLEANUP_ENV);
    assertExit(result, 1);
    assert.match(result.stderr, /daemonset ouroboros\/ouroboros-etc-hosts-cleanup not found/);
  });
}
