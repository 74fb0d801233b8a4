/**
 * `ouroboros controller --cleanup --cleanup-routes-only`, as processes against the fake API server
 * (what the chart's post-delete routing hook runs, in every mode): this release's route table
 * ConfigMap goes and nothing else does (not the mode's output, not another release's table, not a
 * foreign ConfigMap of that name); it waits for the controller's pods by their selector first; a
 * refused delete is exit 1 naming the kubectl command; a conflict reads the ConfigMap again.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ownershipLabels } from "../../../lib/controller/modes/external_dns/ownership.ts";
import { renderRouteTable } from "../../../lib/routes/route_table.ts";
import { parseLogLines, runOuroboros } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { type Cluster, startCluster } from "../cluster_fixture.ts";

const CORE_FILE = ".:53 {\n    errors\n    # === BEGIN ouroboros edge (do not edit by hand) ===\n" +
  "    rewrite name shop.example.com ouroboros-proxy.ouroboros.svc.cluster.local.\n" +
  "    # === END ouroboros edge ===\n}\n";
const TABLE = renderRouteTable({
  routes: [{ host: "shop.example.com", backend: "web/a" }],
  backends: new Map([["web/a", {
    address: "10.96.0.20",
    httpPort: 80,
    httpsPort: 443,
    proxyProtocol: "v2",
  }]]),
});
const SELECTOR = "app.kubernetes.io/instance=edge,app.kubernetes.io/component=controller";
const ROUTES = ["--routes", "--routes-namespace=net", "--cleanup", "--cleanup-routes-only"];
const ENV = { env: { OUROBOROS_INSTANCE: "edge" } };

function configMap(cluster: Cluster, name: string, labels: Record<string, string>): void {
  cluster.server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "net", labels },
    data: { "routes.json": TABLE },
  });
}

function configMaps(cluster: Cluster): string[] {
  return cluster.server.list("v1", "ConfigMap", "net").map((item) => (item.metadata as { name: string }).name)
    .sort();
}

async function cleanup(cluster: Cluster, extra: readonly string[] = []) {
  const run = await runOuroboros(["controller", ...cluster.flags, ...ROUTES, ...extra], ENV);
  return { ...run, logs: parseLogLines(run.stderr) };
}

const deletes = (cluster: Cluster) =>
  cluster.server.audit.filter((entry) => entry.method === "DELETE" && /\/configmaps\//.test(entry.path));

for (const mode of ["coredns", "etc-hosts", "external-dns"]) {
  Deno.test(`--cleanup-routes-only (${mode} mode): this release's table goes, nothing else; a second run finds nothing`, async () => {
    await using cluster = await startCluster({ corefile: CORE_FILE });
    configMap(cluster, "edge-routes", ownershipLabels("edge"));
    configMap(cluster, "shop-routes", ownershipLabels("shop"));
    configMap(cluster, "edge-settings", { team: "web" });
    const run = await cleanup(cluster, [`--mode=${mode}`]);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(configMaps(cluster), ["edge-settings", "shop-routes"]);
    assert.equal(cluster.corefile(), CORE_FILE, "the mode's output is its own cleanup's");
    const done = run.logs.find((line) => line.msg === "removed what this controller wrote");
    assert.equal(done?.target, "routes net/edge-routes[routes.json]");
    assert.equal(done?.hostsRemoved, 1);
    const again = await cleanup(cluster, [`--mode=${mode}`]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.logs.some((line) => line.msg === "nothing to clean: the target is not there"));
    assert.equal(deletes(cluster).length, 1);
  });
}

Deno.test("--cleanup-routes-only leaves a ConfigMap of that name that is not this release's, with a WARN and exit 0", async () => {
  await using cluster = await startCluster();
  configMap(cluster, "edge-routes", { "app.kubernetes.io/managed-by": "Helm" });
  const foreign = await cleanup(cluster);
  assert.equal(foreign.code, 0, foreign.stderr);
  const warning = foreign.logs.find((line) => line.level === "WARN");
  assert.equal(warning?.msg, "the route table ConfigMap is not this release's; left alone");
  assert.equal(warning?.owner, "not ouroboros");
  cluster.server.remove("v1", "ConfigMap", "net", "edge-routes");
  configMap(cluster, "edge-routes", ownershipLabels("shop"));
  const other = await cleanup(cluster);
  assert.equal(other.code, 0, other.stderr);
  assert.equal(other.logs.find((line) => line.level === "WARN")?.owner, "release shop");
  assert.deepEqual(configMaps(cluster), ["edge-routes"]);
  assert.equal(deletes(cluster).length, 0);
});

Deno.test("--cleanup-routes-only deletes only once the controller's pods are gone (its workload deleted already)", async () => {
  await using cluster = await startCluster();
  configMap(cluster, "edge-routes", ownershipLabels("edge"));
  const labels = Object.fromEntries(SELECTOR.split(",").map((pair) => pair.split("=") as [string, string]));
  cluster.server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "net", name: "edge-ouroboros-abc12", labels },
    spec: { containers: [{ name: "controller", image: "x" }] },
  });
  const running = cleanup(cluster, [
    "--cleanup-quiesce=net/edge-ouroboros",
    `--cleanup-quiesce-selector=${SELECTOR}`,
  ]);
  await waitFor(
    "the cleanup to list the pods twice",
    () =>
      cluster.server.audit.filter((entry) =>
        entry.method === "GET" && /\/namespaces\/net\/pods$/.test(entry.path)
      )
        .length >= 2,
  );
  assert.equal(deletes(cluster).length, 0, "no delete while a controller pod is left");
  const goneAt = Date.now();
  cluster.server.remove("v1", "Pod", "net", "edge-ouroboros-abc12");
  const run = await running;
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(configMaps(cluster), []);
  assert.ok(deletes(cluster).every((entry) => entry.at >= goneAt));
  assert.ok(run.logs.some((line) => line.msg === "no controller pod is left (no Deployment to scale)"));
});

Deno.test("--cleanup-routes-only: a refused delete is exit 1 with the command to run; a conflict reads again", async () => {
  await using cluster = await startCluster();
  configMap(cluster, "edge-routes", ownershipLabels("edge"));
  cluster.server.faults.inject("delete", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /configmaps\/edge-routes$/,
    count: 1,
  });
  const refused = await cleanup(cluster);
  assert.equal(refused.code, 1, refused.stderr);
  const error = refused.logs.find((line) => line.level === "ERROR");
  assert.match(String(error?.reason), /403.*kubectl --namespace net delete configmap edge-routes/);
  assert.deepEqual(configMaps(cluster), ["edge-routes"]);
  cluster.server.faults.inject("delete", { type: "status", code: 409, reason: "Conflict" }, {
    path: /configmaps\/edge-routes$/,
    count: 1,
  });
  const retried = await cleanup(cluster);
  assert.equal(retried.code, 0, retried.stderr);
  assert.deepEqual(configMaps(cluster), []);
});

Deno.test("--cleanup-routes-only needs no flags of the mode (etc-hosts without --etc-hosts or --proxy-ip)", async () => {
  await using cluster = await startCluster();
  configMap(cluster, "edge-routes", ownershipLabels("edge"));
  const run = await runOuroboros(
    ["controller", `--kubeconfig=${cluster.kubeconfig}`, "--mode=etc-hosts", ...ROUTES],
    ENV,
  );
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(configMaps(cluster), []);
  const unknown = await runOuroboros(
    ["controller", `--kubeconfig=${cluster.kubeconfig}`, "--routes", "--cleanup", "--cleanup-routes-only"],
    ENV,
  );
  assert.equal(unknown.code, 2, unknown.stderr);
  assert.match(unknown.stderr, /the route table's namespace is unknown; set --routes-namespace/);
});
