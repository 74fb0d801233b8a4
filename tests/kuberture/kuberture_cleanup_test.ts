/**
 * `ouroboros kuberture --cleanup` as a process against the fake API server (the chart's post-delete
 * hook): every Service and DNSEndpoint this instance wrote goes, past the prune guard, and nothing
 * else (another instance's, a foreign object, another namespace); no config file is read; a
 * cluster without the DNSEndpoint kind is fine; a refused delete is exit 1 with the command to run.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { parseLogLines, runOuroboros } from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";

const OURS = { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "api" };

async function cleanup(server: { url: string }, env: Record<string, string> = {}) {
  await using dir = await tempDir("ouroboros-kuberture-cleanup-");
  await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url });
  const run = await runOuroboros(
    ["kuberture", "--cleanup", `--kubeconfig=${dir.path}/kubeconfig`, "--config=/nonexistent/config.yaml"],
    { permissionSet: "kuberture", env: { KUBERTURE_INSTANCE: "api", POD_NAMESPACE: "cozy", ...env } },
  );
  return { ...run, logs: parseLogLines(run.stderr) };
}

Deno.test("kuberture --cleanup deletes this instance's Services and DNSEndpoints, and nothing else", async () => {
  await using server = await startFakeApiServer();
  const service = (name: string, namespace: string, labels: Record<string, string>) =>
    server.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace, labels },
      spec: { clusterIP: "None" },
    });
  service("kuberture-api", "cozy", OURS);
  service("kuberture-internal", "cozy", OURS);
  service("other-instance", "cozy", { ...OURS, "kuberture/instance": "edge" });
  service("foreign", "cozy", { "app.kubernetes.io/managed-by": "Helm" });
  service("elsewhere", "other", OURS);
  server.create({
    apiVersion: "externaldns.k8s.io/v1alpha1",
    kind: "DNSEndpoint",
    metadata: { name: "left-by-crd-output", namespace: "cozy", labels: OURS },
    spec: { endpoints: [] },
  });
  const run = await cleanup(server);
  assert.equal(run.code, 0, run.stderr);
  const names = (apiVersion: string, kind: string, namespace: string) =>
    server.list(apiVersion, kind, namespace).map((item) => (item.metadata as { name: string }).name).sort();
  assert.deepEqual(names("v1", "Service", "cozy"), ["foreign", "other-instance"]);
  assert.deepEqual(names("v1", "Service", "other"), ["elsewhere"]);
  assert.deepEqual(names("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "cozy"), []);
  const deleted = run.logs.find((line) => line.msg === "deleted this instance's Services");
  assert.equal(deleted?.names, "kuberture-api,kuberture-internal");
  const again = await cleanup(server);
  assert.equal(again.code, 0, again.stderr);
  assert.ok(again.logs.some((line) => line.msg === "no Service of this instance left"));
});

Deno.test("kuberture --cleanup: no DNSEndpoint kind is fine; a refused delete is exit 1 naming the command", async () => {
  await using bare = await startFakeApiServer({ omitGroups: ["externaldns.k8s.io"] });
  const none = await cleanup(bare);
  assert.equal(none.code, 0, none.stderr);
  assert.ok(none.logs.some((line) => line.msg === "DNSEndpoints are not served here: none to delete"));

  await using server = await startFakeApiServer();
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kuberture-api", namespace: "cozy", labels: OURS },
    spec: {},
  });
  server.faults.inject("delete", { type: "status", code: 403, reason: "Forbidden" }, { path: /services/ });
  const refused = await cleanup(server);
  assert.equal(refused.code, 1, refused.stderr);
  const error = refused.logs.find((line) => line.level === "ERROR");
  assert.match(
    String(error?.command),
    /kubectl --namespace cozy delete services --selector 'app.kubernetes.io\/managed-by=kuberture,kuberture\/instance=api'/,
  );
});

Deno.test("kuberture --cleanup needs its namespace, and is a run of its own", async () => {
  await using server = await startFakeApiServer();
  const run = await runOuroboros(["kuberture", "--cleanup", "--once"], {
    permissionSet: "kuberture",
    env: { KUBERTURE_INSTANCE: "api", POD_NAMESPACE: "cozy" },
  });
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /--cleanup is a run of its own: drop --once and --dry-run/);
  assert.equal(server.audit.length, 0);
});
