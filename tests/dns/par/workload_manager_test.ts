/**
 * `WorkloadManager` against the fake API server: the opt-in written and read back, a second
 * pass writing nothing (also from a cache that has not seen the write yet), the restore when the
 * entry goes, a conflict and a server error as outcomes, an abort as an abort.
 */

import assert from "node:assert/strict";
import type { ParOutcome } from "../../../lib/dns/par/par_outcome.ts";
import { WorkloadManager, type WorkloadState } from "../../../lib/dns/par/workload_manager.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { DEPLOYMENT } from "../../../lib/resources/deployment.ts";
import { RECORDS } from "../../../lib/resources/records.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { deploymentManifest, rawEntry } from "../answer/fixtures.ts";

const never = new AbortController().signal;
const SELF = { namespace: "shop", labels: { "app.kubernetes.io/component": "dns" } };

function seed(server: FakeApiServer): void {
  server.create({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { name: "egress", namespace: "shop" },
    spec: { a: [rawEntry({ labels: { app: "web" }, hostname: "pay.example.com", ips: ["192.0.2.1"] })] },
  });
  server.create(
    deploymentManifest("web", { podSpec: { dnsPolicy: "ClusterFirst" }, templateLabels: { app: "web" } }),
  );
  server.create(deploymentManifest("api"));
  server.create(
    deploymentManifest("ouroboros-dns", {
      templateLabels: { app: "web", "app.kubernetes.io/component": "dns" },
    }),
  );
}

async function state(client: KubeClient, nameserver = "10.96.0.53"): Promise<WorkloadState> {
  const [deployments, records] = await Promise.all([client.listAll(DEPLOYMENT), client.listAll(RECORDS)]);
  return { deployments: deployments.items, records: records.items, nameserver };
}

function template(server: FakeApiServer, name: string): Record<string, unknown> {
  const object = server.get("apps/v1", "Deployment", "shop", name) as {
    spec: { template: Record<string, unknown> };
  };
  return object.spec.template;
}

/** `target: kind[/action]` of each outcome, sorted. */
function summary(outcomes: readonly ParOutcome[]): string[] {
  return outcomes.map((outcome) =>
    `${outcome.target}: ${outcome.kind}${"action" in outcome ? `/${outcome.action}` : ""}`
  ).sort();
}

function find(outcomes: readonly ParOutcome[], name: string): ParOutcome | undefined {
  return outcomes.find((outcome) => outcome.target === `Deployment shop/${name}`);
}

function patches(server: FakeApiServer, from: number): string[] {
  return server.audit.slice(from).filter((entry) => entry.method === "PATCH").map((entry) => entry.path);
}

Deno.test("WorkloadManager: opts the selected Deployment in, never itself, and restores when the entry goes", async () => {
  await using server = await startFakeApiServer();
  seed(server);
  using client = new KubeClient({ server: server.url });
  const manager = new WorkloadManager(client, { clusterDomain: "cluster.local", self: SELF });
  const original = template(server, "web");

  const before = await state(client);
  const first = await manager.sync(before, never);
  assert.deepEqual(summary(first), [
    "Deployment shop/ouroboros-dns: skipped",
    "Deployment shop/web: written/opt-in",
  ]);
  const spec = template(server, "web").spec as Record<string, unknown>;
  assert.equal(spec.dnsPolicy, "None");
  assert.deepEqual(spec.dnsConfig, {
    nameservers: ["10.96.0.53"],
    searches: ["shop.svc.cluster.local", "svc.cluster.local", "cluster.local"],
    options: [{ name: "ndots", value: "5" }],
  });

  let mark = server.audit.length;
  const stale = await manager.sync(before, never);
  assert.deepEqual(
    summary(stale),
    ["Deployment shop/ouroboros-dns: skipped", "Deployment shop/web: unchanged"],
    "a cache that lags is no reason to write",
  );
  const fresh = await manager.sync(await state(client), never);
  assert.deepEqual(summary(fresh), [
    "Deployment shop/ouroboros-dns: skipped",
    "Deployment shop/web: unchanged",
  ]);
  assert.deepEqual(patches(server, mark), []);

  server.update({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { name: "egress", namespace: "shop", resourceVersion: "" },
    spec: { a: [] },
  });
  mark = server.audit.length;
  const restored = await manager.sync(await state(client), never);
  assert.deepEqual(restored.map((outcome) => [outcome.target, outcome.kind]), [[
    "Deployment shop/web",
    "written",
  ]]);
  assert.equal(restored[0]?.kind === "written" && restored[0].action, "restore");
  assert.deepEqual(template(server, "web"), original, "the pod template is back, exactly");
  assert.deepEqual(patches(server, mark), ["/apis/apps/v1/namespaces/shop/deployments/web"]);
  const deployment = server.get("apps/v1", "Deployment", "shop", "web") as {
    metadata: { annotations?: object };
  };
  assert.deepEqual(deployment.metadata.annotations ?? {}, {}, "the annotation is gone");
});

Deno.test("WorkloadManager: a Deployment changed since the plan is a failed outcome, and the next pass writes", async () => {
  await using server = await startFakeApiServer();
  seed(server);
  using client = new KubeClient({ server: server.url });
  const manager = new WorkloadManager(client, { clusterDomain: "cluster.local", self: SELF });
  const planned = await state(client);
  const web = server.get("apps/v1", "Deployment", "shop", "web")!;
  server.update({ ...web, spec: { ...(web.spec as object), replicas: 3 } });

  const conflict = find(await manager.sync(planned, never), "web");
  assert.ok(conflict?.kind === "failed", JSON.stringify(conflict));
  assert.equal(conflict.action, "opt-in");
  assert.match(conflict.reason, /^it changed while this pass planned \(.*\); the next pass plans again$/);
  assert.equal(conflict.conflict, true, "a 409 is marked, so the runtime retries it quietly once");
  assert.equal(
    (template(server, "web").spec as { dnsPolicy?: string }).dnsPolicy,
    "ClusterFirst",
    "nothing written",
  );

  const retry = find(await manager.sync(await state(client), never), "web");
  assert.equal(retry?.kind, "written");
  assert.equal(
    (server.get("apps/v1", "Deployment", "shop", "web")!.spec as { replicas: number }).replicas,
    3,
  );
});

Deno.test("WorkloadManager: a server error is a failed outcome; an abort rejects", async () => {
  await using server = await startFakeApiServer();
  seed(server);
  using client = new KubeClient({ server: server.url });
  const manager = new WorkloadManager(client, { clusterDomain: "cluster.local", self: SELF });
  server.faults.inject("patch", {
    type: "status",
    code: 500,
    reason: "InternalError",
    message: "etcd is down",
  });
  const failed = find(await manager.sync(await state(client), never), "web");
  assert.ok(failed?.kind === "failed");
  assert.match(failed.reason, /etcd is down/);

  const stop = new AbortController();
  stop.abort(new Error("stopping"));
  await assert.rejects(manager.sync(await state(client), stop.signal), /stopping/);
});
