/**
 * The uninstall hook's restore against the fake API server: every opted-in Deployment in every
 * namespace gets its original DNS settings back; one someone changed since keeps their change
 * and loses only the annotation; an unreadable annotation is reported and left.
 */

import assert from "node:assert/strict";
import { ORIGINAL_DNS_ANNOTATION } from "../../../lib/dns/par/original_dns.ts";
import { restoreAllWorkloads } from "../../../lib/dns/par/restore_all_workloads.ts";
import { WorkloadManager } from "../../../lib/dns/par/workload_manager.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { DEPLOYMENT } from "../../../lib/resources/deployment.ts";
import { RECORDS } from "../../../lib/resources/records.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { deploymentManifest, rawEntry } from "../answer/fixtures.ts";

const never = new AbortController().signal;

function get(server: FakeApiServer, namespace: string, name: string) {
  return server.get("apps/v1", "Deployment", namespace, name) as {
    metadata: { annotations?: Record<string, string> };
    spec: { template: { spec: Record<string, unknown> } };
  };
}

Deno.test("restoreAllWorkloads: restores, releases or reports every annotated Deployment, in every namespace", async () => {
  await using server = await startFakeApiServer();
  for (const namespace of ["shop", "blog"]) {
    server.create({
      apiVersion: "dns.par.dev/v1alpha1",
      kind: "Records",
      metadata: { name: "all", namespace },
      spec: { a: [rawEntry({ labels: { dns: "par" }, type: "proxy" })] },
    });
  }
  const originals = {
    shop: { dnsPolicy: "ClusterFirst", dnsConfig: { searches: ["corp.example"] } },
    blog: {},
  };
  server.create(deploymentManifest("web", { templateLabels: { dns: "par" }, podSpec: originals.shop }));
  server.create(deploymentManifest("web", { namespace: "blog", templateLabels: { dns: "par" } }));
  server.create(deploymentManifest("edited", { templateLabels: { dns: "par", n: "1" } }));
  server.create(deploymentManifest("untouched"));
  using client = new KubeClient({ server: server.url });
  const manager = new WorkloadManager(client, { clusterDomain: "cluster.local" });
  await manager.sync({
    deployments: (await client.listAll(DEPLOYMENT)).items,
    records: (await client.listAll(RECORDS)).items,
    nameserver: "10.96.0.53",
  }, never);
  assert.equal(get(server, "blog", "web").spec.template.spec.dnsPolicy, "None", "opted in first");

  const edited = server.get("apps/v1", "Deployment", "shop", "edited")!;
  const editedSpec = edited.spec as { template: { spec: Record<string, unknown> } };
  editedSpec.template.spec.dnsConfig = { nameservers: ["192.0.2.53"] };
  server.update(edited);
  const broken = server.get("apps/v1", "Deployment", "shop", "untouched")!;
  (broken.metadata as { annotations?: Record<string, string> }).annotations = {
    [ORIGINAL_DNS_ANNOTATION]: "{",
  };
  server.update(broken);

  const outcomes = await restoreAllWorkloads(client, never);
  const byTarget = Object.fromEntries(outcomes.map((outcome) => [outcome.target, outcome]));
  assert.deepEqual(Object.keys(byTarget).sort(), [
    "Deployment blog/web",
    "Deployment shop/edited",
    "Deployment shop/untouched",
    "Deployment shop/web",
  ]);
  for (const namespace of ["shop", "blog"] as const) {
    const outcome = byTarget[`Deployment ${namespace}/web`];
    assert.ok(outcome?.kind === "written" && outcome.action === "restore", JSON.stringify(outcome));
    const restored = get(server, namespace, "web");
    assert.deepEqual(
      restored.spec.template.spec,
      { containers: [{ name: "app", image: "example/app:1" }], ...originals[namespace] },
    );
    assert.equal(restored.metadata.annotations?.[ORIGINAL_DNS_ANNOTATION], undefined);
  }
  const released = byTarget["Deployment shop/edited"];
  assert.ok(released?.kind === "written" && released.action === "release");
  assert.match(released.detail, /nameservers are \["192\.0\.2\.53"\].*only the annotation is removed/);
  assert.deepEqual(get(server, "shop", "edited").spec.template.spec.dnsConfig, {
    nameservers: ["192.0.2.53"],
  });
  assert.equal(get(server, "shop", "edited").metadata.annotations?.[ORIGINAL_DNS_ANNOTATION], undefined);
  const reported = byTarget["Deployment shop/untouched"];
  assert.ok(reported?.kind === "skipped");
  assert.match(reported.reason, /is not JSON; restore its DNS settings by hand/);

  assert.deepEqual(await restoreAllWorkloads(client, never), [
    { kind: "skipped", target: "Deployment shop/untouched", reason: reported.reason },
  ], "a second run finds only what it could not do");
});

Deno.test("restoreAllWorkloads: a list it cannot read rejects (the hook must fail loudly)", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({ server: server.url });
  server.faults.inject("list", {
    type: "status",
    code: 403,
    reason: "Forbidden",
    message: "deployments is forbidden",
  });
  await assert.rejects(restoreAllWorkloads(client, never), /forbidden/);
});
