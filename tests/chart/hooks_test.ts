/**
 * The chart's uninstall hook scripts, run for real: each script under dash and under busybox sh (the
 * hook image's shell and tools), the real kubectl 1.35, against the fake API server. What they wrote is
 * read back from the fake and from its audit log.
 *
 * (The coredns, coredns-import and node-local-dns cleanup is `ouroboros controller --cleanup`, no script:
 * tests/controller/cluster_cleanup_test.ts and tests/chart/coredns_cleanup_hook_test.ts.)
 * - external-dns: owned records go, foreign ones stay, for both outputs; no CRD means nothing to do.
 * - etc-hosts: the controller DaemonSet is deleted and waited for; the cleanup DaemonSet is waited for
 *   until every node is clean, then deleted; a timeout fails saying how many nodes are left.
 */

import assert from "node:assert/strict";
import { ownershipLabels } from "../../lib/controller/modes/external_dns/ownership.ts";
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

/** external-dns: the two record kinds. */
const OUTPUTS = [
  { output: "crd", apiVersion: "externaldns.k8s.io/v1alpha1", kind: "DNSEndpoint", plural: "dnsendpoints" },
  { output: "service", apiVersion: "v1", kind: "Service", plural: "services" },
] as const;

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
    const { RECORDS_NAMESPACE: _, ...withoutNamespace } = {
      RECORDS_NAMESPACE: "ouroboros",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    };
    const missing = await sandbox.run("external-dns-cleanup.sh", withoutNamespace);
    assertExit(missing, 1);
    assert.match(missing.stderr, /environment variable RECORDS_NAMESPACE is empty or unset/);
    const badOutput = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "ouroboros",
      INSTANCE: "ouroboros",
      OUTPUT: "txt",
    });
    assertExit(badOutput, 1);
    assert.match(badOutput.stderr, /OUTPUT must be crd or service, got 'txt'/);
    const badInstance = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "ouroboros",
      INSTANCE: "a,b",
      OUTPUT: "crd",
    });
    assertExit(badInstance, 1);
    assert.match(badInstance.stderr, /INSTANCE 'a,b' is not a valid label value/);
    assert.deepEqual(writes(server, /./), []);
  });

  // --- external-dns-cleanup.sh ----------------------------------------------------------------------

  for (const { output, apiVersion, kind, plural } of OUTPUTS) {
    test(`external-dns cleanup (output=${output}) deletes only the records this release owns`, async () => {
      await using server = await startFakeApiServer();
      const record = (name: string, namespace: string, labels: Record<string, string>) =>
        server.create({
          apiVersion,
          kind,
          metadata: { name, namespace, labels },
          spec: output === "crd" ? { endpoints: [] } : { clusterIP: "None" },
        });
      record("ours-a", "records", ownershipLabels("ouroboros"));
      record("ours-b", "records", { ...ownershipLabels("ouroboros"), team: "web" });
      record("other-release", "records", ownershipLabels("edge"));
      record("managed-only", "records", { "app.kubernetes.io/managed-by": "ouroboros" });
      record("foreign", "records", { "app.kubernetes.io/managed-by": "Helm" });
      record("elsewhere", "other-ns", ownershipLabels("ouroboros"));
      await using sandbox = await hookSandbox(shell, server);
      const result = await sandbox.run("external-dns-cleanup.sh", {
        RECORDS_NAMESPACE: "records",
        INSTANCE: "ouroboros",
        OUTPUT: output,
      });
      assertExit(result, 0);
      const left = (namespace: string) =>
        server.list(apiVersion, kind, namespace).map((item) => (item.metadata as { name: string }).name)
          .sort();
      assert.deepEqual(left("records"), ["foreign", "managed-only", "other-release"]);
      assert.deepEqual(left("other-ns"), ["elsewhere"]);
      const qualified = output === "crd" ? "dnsendpoint.externaldns.k8s.io" : "service";
      assert.match(result.stdout, new RegExp(`deleting 2 ${plural}`));
      assert.match(result.stdout, new RegExp(`\\] +${qualified.replaceAll(".", "\\.")}/ours-a\\n`));
      assert.match(result.stdout, new RegExp(`\\] +${qualified.replaceAll(".", "\\.")}/ours-b\\n`));
      const deletes = writes(server, new RegExp(`/namespaces/records/${plural}`));
      assert.ok(deletes.every((entry) => entry.method === "DELETE" && entry.status === 200));
      assert.equal(deletes.length, 2);
    });
  }

  test("kuberture cleanup (OWNER=kuberture) deletes only this kuberture instance's Services", async () => {
    await using server = await startFakeApiServer();
    const service = (name: string, labels: Record<string, string>) =>
      server.create({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: "kns", labels },
        spec: { clusterIP: "None" },
      });
    service("kuberture-api", {
      "app.kubernetes.io/managed-by": "kuberture",
      "kuberture/instance": "rel-kuberture",
    });
    service("other-instance", { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "edge" });
    service("controller-record", ownershipLabels("rel-kuberture"));
    service("foreign", { "app.kubernetes.io/managed-by": "Helm" });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "kns",
      INSTANCE: "rel-kuberture",
      OUTPUT: "service",
      OWNER: "kuberture",
    });
    assertExit(result, 0);
    const left = server.list("v1", "Service", "kns").map((item) => (item.metadata as { name: string }).name)
      .sort();
    assert.deepEqual(left, ["controller-record", "foreign", "other-instance"]);
    const badOwner = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "kns",
      INSTANCE: "rel-kuberture",
      OUTPUT: "service",
      OWNER: "someone",
    });
    assertExit(badOwner, 1);
    assert.match(badOwner.stderr, /OWNER must be ouroboros or kuberture, got 'someone'/);
  });

  test("external-dns cleanup exits 0 without deleting when the DNSEndpoint CRD is not installed", async () => {
    await using server = await startFakeApiServer({ omitGroups: ["externaldns.k8s.io"] });
    server.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc", namespace: "records", labels: ownershipLabels("ouroboros") },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "records",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    });
    assertExit(result, 0);
    assert.match(result.stdout, /the DNSEndpoint CRD \(dnsendpoints.externaldns.k8s.io\) is not installed/);
    assert.deepEqual(writes(server, /./), []);
    assert.equal(server.list("v1", "Service", "records").length, 1, "a Service is not a DNSEndpoint");
  });

  test("external-dns cleanup exits 1 with the command to run by hand when a delete is refused", async () => {
    await using server = await startFakeApiServer();
    for (const name of ["ours-a", "ours-b"]) {
      server.create({
        apiVersion: "externaldns.k8s.io/v1alpha1",
        kind: "DNSEndpoint",
        metadata: { name, namespace: "records", labels: ownershipLabels("ouroboros") },
        spec: { endpoints: [] },
      });
    }
    server.faults.inject("delete", {
      type: "status",
      code: 403,
      reason: "Forbidden",
      message: 'dnsendpoints.externaldns.k8s.io "ours-a" is forbidden',
    }, { path: /\/dnsendpoints\/ours-a$/ });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "records",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    });
    assertExit(result, 1);
    assert.ok(
      result.stderr.includes(
        "Delete them by hand: kubectl --namespace records delete dnsendpoints.externaldns.k8s.io " +
          "--selector='app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=ouroboros'",
      ),
      result.stderr,
    );
    assert.match(result.stderr, /is forbidden/);
    const left = server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "records");
    assert.deepEqual(left.map((item) => (item.metadata as { name: string }).name), ["ours-a"]);
  });

  test("external-dns cleanup exits 0 when the release owns no records", async () => {
    await using server = await startFakeApiServer();
    server.create({
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: { name: "theirs", namespace: "records", labels: ownershipLabels("edge") },
      spec: { endpoints: [] },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "records",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    });
    assertExit(result, 0);
    assert.match(result.stdout, /no dnsendpoints.externaldns.k8s.io owned by instance ouroboros/);
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
