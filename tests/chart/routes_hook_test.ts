/**
 * The routing uninstall hook (`chart/scripts/routes-cleanup.sh`), run for real as hooks_test.ts runs the
 * others: under dash and under busybox sh, with the real kubectl 1.35, against the fake API server.
 *
 * - The route table ConfigMap goes when it carries this release's ownership labels (the labels the
 *   controller's `--routes` gives it); a ConfigMap of that name without them, or another release's, and
 *   this release's labelled ConfigMaps of other names stay, with nothing deleted.
 * - It waits until none of the controller's pods (by selector) is left before deleting, and warns and
 *   deletes anyway when they do not go in time.
 * - Nothing there: exit 0. A refused delete: exit 1 with the command to run by hand. Bad settings: exit 1
 *   before any request.
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

const SELECTOR_LABELS = {
  "app.kubernetes.io/name": "ouroboros",
  "app.kubernetes.io/instance": "edge",
  "app.kubernetes.io/component": "controller",
};
const ENV = {
  NAMESPACE: "net",
  CONFIGMAP: "edge-ouroboros-routes",
  INSTANCE: "edge",
  CONTROLLER_SELECTOR: Object.entries(SELECTOR_LABELS).map(([key, value]) => `${key}=${value}`).join(","),
  QUIESCE_SECONDS: "5",
};
const CM_WRITES = /^\/api\/v1\/namespaces\/net\/configmaps/;
const PODS_PATH = /^\/api\/v1\/namespaces\/net\/pods$/;
const TABLE = '{"version":1,"routes":[],"backends":{}}\n';

function assertExit(result: HookResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}, expected ${code}; output:\n${result.output}`);
  assert.deepEqual(unprefixedLines(result), [], `lines without ${PREFIX}:\n${result.output}`);
}

function configMap(server: FakeApiServer, name: string, labels: Record<string, string>, namespace = "net") {
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace, labels },
    data: { "routes.json": TABLE },
  });
}

function configMaps(server: FakeApiServer, namespace = "net"): string[] {
  return server.list("v1", "ConfigMap", namespace).map((item) => (item.metadata as { name: string }).name)
    .sort();
}

function pod(server: FakeApiServer, name: string, labels: Record<string, string> = SELECTOR_LABELS): void {
  server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "net", labels },
    spec: { containers: [{ name: "controller", image: "ghcr.io/ouroboros-ts/ouroboros:0.1.0" }] },
  });
}

for (const shell of SHELLS) {
  const ignore = ignoreShell(shell);
  const test = (name: string, fn: (shell: HookShell) => Promise<void>) =>
    Deno.test({ name: `${shell.name}: ${name}`, ignore, fn: () => fn(shell) });

  test("routes cleanup deletes this release's route table ConfigMap and nothing else", async () => {
    await using server = await startFakeApiServer();
    configMap(server, "edge-ouroboros-routes", ownershipLabels("edge"));
    // The same labels on another name (not the table), the same name elsewhere, a Helm-owned one.
    configMap(server, "edge-other", ownershipLabels("edge"));
    configMap(server, "edge-ouroboros-routes", ownershipLabels("edge"), "other-ns");
    configMap(server, "edge-ouroboros", { "app.kubernetes.io/managed-by": "Helm" });
    // Pods that are not the controller's: another component, another release.
    pod(server, "edge-ouroboros-proxy-5f4b-a", {
      ...SELECTOR_LABELS,
      "app.kubernetes.io/component": "proxy",
    });
    pod(server, "ouroboros-7d9c-a", { ...SELECTOR_LABELS, "app.kubernetes.io/instance": "ouroboros" });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("routes-cleanup.sh", ENV);
    assertExit(result, 0);
    assert.deepEqual(configMaps(server), ["edge-other", "edge-ouroboros"]);
    assert.deepEqual(configMaps(server, "other-ns"), ["edge-ouroboros-routes"]);
    assert.deepEqual(writes(server, CM_WRITES).map((entry) => [entry.method, entry.path, entry.status]), [
      ["DELETE", "/api/v1/namespaces/net/configmaps/edge-ouroboros-routes", 200],
    ]);
    assert.match(result.stdout, /no controller pod is left to write the route table/);
    assert.match(result.stdout, /deleted the route table configmap net\/edge-ouroboros-routes/);
    // Read as the chart's Role allows: listed by name (field selector) and by the ownership labels.
    const listed = reads(server, CM_WRITES);
    assert.ok(listed.length >= 1);
    for (const entry of listed) {
      assert.equal(entry.path, "/api/v1/namespaces/net/configmaps");
      assert.equal(entry.query.fieldSelector, "metadata.name=edge-ouroboros-routes");
    }
    assert.equal(
      listed[0]!.query.labelSelector,
      "app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=edge",
    );
  });

  test("routes cleanup leaves a ConfigMap of that name alone when it is not this release's", async () => {
    for (const labels of [{}, ownershipLabels("other"), { "app.kubernetes.io/managed-by": "ouroboros" }]) {
      await using server = await startFakeApiServer();
      configMap(server, "edge-ouroboros-routes", labels);
      await using sandbox = await hookSandbox(shell, server);
      const result = await sandbox.run("routes-cleanup.sh", ENV);
      assertExit(result, 0);
      assert.match(
        result.stdout,
        /configmap net\/edge-ouroboros-routes does not carry this release's labels .*not this release's, left alone/,
      );
      assert.deepEqual(writes(server, /./), [], JSON.stringify(labels));
      assert.deepEqual(configMaps(server), ["edge-ouroboros-routes"]);
    }
  });

  test("routes cleanup exits 0 without writing when there is no table", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("routes-cleanup.sh", ENV);
    assertExit(result, 0);
    assert.match(result.stdout, /no route table configmap net\/edge-ouroboros-routes: nothing to clean/);
    assert.deepEqual(writes(server, /./), []);
  });

  test("routes cleanup deletes only once the controller's pods are gone", async () => {
    await using server = await startFakeApiServer();
    configMap(server, "edge-ouroboros-routes", ownershipLabels("edge"));
    pod(server, "edge-ouroboros-7d9c-a");
    pod(server, "edge-ouroboros-7d9c-b");
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("routes-cleanup.sh", { ...ENV, QUIESCE_SECONDS: "30" });
    await waitFor("a poll that sees both pods", () => reads(server, PODS_PATH).length >= 1, {
      timeoutMs: 20_000,
    });
    assert.equal(reads(server, PODS_PATH)[0]!.query.labelSelector, ENV.CONTROLLER_SELECTOR);
    server.remove("v1", "Pod", "net", "edge-ouroboros-7d9c-a");
    const oneLeft = mark(server);
    await waitFor("a poll that sees the last pod", () => reads(server, PODS_PATH, oneLeft).length >= 1, {
      timeoutMs: 20_000,
    });
    assert.equal(running.finished(), false, "still waiting while a controller pod is left");
    assert.deepEqual(writes(server, CM_WRITES), [], "no delete while a controller pod is left");
    server.remove("v1", "Pod", "net", "edge-ouroboros-7d9c-b");
    const gone = mark(server);
    const result = await running.done;
    assertExit(result, 0);
    const deletes = writes(server, CM_WRITES);
    assert.equal(deletes.length, 1);
    assert.ok(deletes[0]!.index >= gone, "deleted after the controller's pods were gone");
    assert.match(
      result.stdout,
      /waiting up to 30s for the controller's pods to stop \(2 pod\(s\) left: edge-ouroboros-7d9c-a edge-ouroboros-7d9c-b\)/,
    );
    assert.deepEqual(configMaps(server), []);
  });

  test("routes cleanup warns and deletes anyway when the controller's pods do not go in time", async () => {
    await using server = await startFakeApiServer();
    configMap(server, "edge-ouroboros-routes", ownershipLabels("edge"));
    pod(server, "edge-ouroboros-7d9c-a");
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("routes-cleanup.sh", { ...ENV, QUIESCE_SECONDS: "2" });
    assertExit(result, 0);
    assert.match(
      result.stderr,
      /WARNING: the controller's pods did not stop within 2s \(1 pod\(s\) left: edge-ouroboros-7d9c-a\); going on anyway/,
    );
    assert.match(result.stderr, /kubectl --namespace net delete configmap edge-ouroboros-routes/);
    assert.deepEqual(configMaps(server), []);
  });

  test("routes cleanup exits 1 with the command to run by hand when the delete is refused", async () => {
    await using server = await startFakeApiServer();
    configMap(server, "edge-ouroboros-routes", ownershipLabels("edge"));
    server.faults.inject("delete", {
      type: "status",
      code: 403,
      reason: "Forbidden",
      message: 'configmaps "edge-ouroboros-routes" is forbidden',
    }, { path: /\/configmaps\/edge-ouroboros-routes$/ });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("routes-cleanup.sh", ENV);
    assertExit(result, 1);
    assert.match(result.stderr, /is forbidden/);
    assert.match(
      result.stderr,
      /deleting configmap net\/edge-ouroboros-routes failed\. .*: kubectl --namespace net delete configmap edge-ouroboros-routes/,
    );
    assert.deepEqual(configMaps(server), ["edge-ouroboros-routes"]);
  });

  test("routes cleanup refuses to run without its settings or with values that would widen a selector", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const { CONTROLLER_SELECTOR: _, ...withoutSelector } = ENV;
    const missing = await sandbox.run("routes-cleanup.sh", withoutSelector);
    assertExit(missing, 1);
    assert.match(missing.stderr, /environment variable CONTROLLER_SELECTOR is empty or unset/);
    const badInstance = await sandbox.run("routes-cleanup.sh", { ...ENV, INSTANCE: "a,b" });
    assertExit(badInstance, 1);
    assert.match(badInstance.stderr, /INSTANCE 'a,b' is not a valid label value/);
    const badName = await sandbox.run("routes-cleanup.sh", { ...ENV, CONFIGMAP: "a,metadata.name!=b" });
    assertExit(badName, 1);
    assert.match(badName.stderr, /CONFIGMAP 'a,metadata.name!=b' is not a ConfigMap name/);
    const badWait = await sandbox.run("routes-cleanup.sh", { ...ENV, QUIESCE_SECONDS: "1m" });
    assertExit(badWait, 1);
    assert.match(badWait.stderr, /QUIESCE_SECONDS must be a whole number of seconds, got '1m'/);
    assert.deepEqual(server.audit, [], "no request at all");
  });
}
