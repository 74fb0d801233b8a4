/**
 * `ProxyConfigManager` against the fake API server: the proxy ConfigMap rendered and its
 * Deployment rolled once, nothing written while nothing changes, a new address rendered and
 * rolled again, no roll while a ConfigMap write failed.
 */

import assert from "node:assert/strict";
import type { ParOutcome } from "../../../lib/dns/par/par_outcome.ts";
import { PAR_CONFIG_HASH_ANNOTATION } from "../../../lib/dns/par/plan_proxy_restarts.ts";
import { ProxyConfigManager, type ProxyConfigState } from "../../../lib/dns/par/proxy_config_manager.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { CONFIG_MAP } from "../../../lib/resources/config_map.ts";
import { DEPLOYMENT } from "../../../lib/resources/deployment.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { deploymentManifest } from "../answer/fixtures.ts";

const never = new AbortController().signal;
const TEMPLATE =
  "location / {\n  resolver {{ .dnsResolver }};\n  proxy_pass http://$http_host$request_uri;\n}";

function configMap(name: string, data: Record<string, string>, labelled = true): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, namespace: "par", labels: labelled ? { "par.dev/proxy-config": "true" } : {} },
    data,
  };
}

function seed(server: FakeApiServer): void {
  server.create(configMap("proxy", { "server-block.conf": TEMPLATE }));
  server.create(configMap("rendered-by-par", { "server-block.conf": "resolver 10.96.0.9;" }));
  server.create(configMap("unlabelled", { "a.conf": "{{ .dnsResolver }}" }, false));
  server.create(deploymentManifest("proxy", { namespace: "par", labels: { "par.dev/proxy": "true" } }));
  server.create(deploymentManifest("manager", { namespace: "par" }));
}

async function state(client: KubeClient, resolver: string): Promise<ProxyConfigState> {
  const [configMaps, deployments] = await Promise.all([
    client.listAll(CONFIG_MAP, { namespace: "par" }),
    client.listAll(DEPLOYMENT, { namespace: "par" }),
  ]);
  return { configMaps: configMaps.items, deployments: deployments.items, resolver };
}

function summary(outcomes: readonly ParOutcome[]): string[] {
  return outcomes.map((outcome) =>
    `${outcome.target}: ${outcome.kind}${"action" in outcome ? `/${outcome.action}` : ""}`
  ).sort();
}

function rendered(server: FakeApiServer, name = "proxy"): string | undefined {
  return (server.get("v1", "ConfigMap", "par", name)?.data as Record<string, string>)["server-block.conf"];
}

function hash(server: FakeApiServer, name = "proxy"): string | undefined {
  const object = server.get("apps/v1", "Deployment", "par", name) as {
    spec: { template: { metadata: { annotations?: Record<string, string> } } };
  };
  return object.spec.template.metadata.annotations?.[PAR_CONFIG_HASH_ANNOTATION];
}

function writes(server: FakeApiServer, from: number): number {
  return server.audit.slice(from).filter((entry) => entry.method !== "GET").length;
}

Deno.test("ProxyConfigManager: renders the tag, rolls the proxy once, and again for a new address", async () => {
  await using server = await startFakeApiServer();
  seed(server);
  using client = new KubeClient({ server: server.url });
  const manager = new ProxyConfigManager(client, { parNamespace: "par" });

  const first = await manager.sync(await state(client, "10.96.0.53"), never);
  assert.deepEqual(summary(first), [
    "ConfigMap par/proxy: written/render",
    "ConfigMap par/rendered-by-par: skipped",
    "Deployment par/proxy: written/restart",
  ]);
  const skipped = first.find((outcome) => outcome.kind === "skipped");
  assert.match(
    skipped?.kind === "skipped" ? skipped.reason : "",
    /no \{\{ \.dnsResolver \}\} tag and no kept template/,
  );
  assert.equal(rendered(server), TEMPLATE.replace("{{ .dnsResolver }}", "10.96.0.53"));
  assert.equal(
    rendered(server, "rendered-by-par"),
    "resolver 10.96.0.9;",
    "par's old rendering is left alone",
  );
  assert.equal(
    (server.get("v1", "ConfigMap", "par", "unlabelled")?.data as Record<string, string>)["a.conf"],
    "{{ .dnsResolver }}",
    "only labelled ConfigMaps",
  );
  const firstHash = hash(server);
  assert.match(firstHash ?? "", /^[0-9a-f]{16}$/);
  assert.equal(hash(server, "manager"), undefined, "only the proxy Deployment rolls");

  const mark = server.audit.length;
  const again = await manager.sync(await state(client, "10.96.0.53"), never);
  assert.deepEqual(summary(again), [
    "ConfigMap par/proxy: unchanged",
    "ConfigMap par/rendered-by-par: skipped",
  ]);
  assert.equal(writes(server, mark), 0, "nothing changed, nothing written, no roll");

  const moved = await manager.sync(await state(client, "10.96.0.99"), never);
  assert.deepEqual(summary(moved), [
    "ConfigMap par/proxy: written/render",
    "ConfigMap par/rendered-by-par: skipped",
    "Deployment par/proxy: written/restart",
  ]);
  assert.equal(rendered(server), TEMPLATE.replace("{{ .dnsResolver }}", "10.96.0.99"));
  assert.notEqual(hash(server), firstHash);
});

Deno.test("ProxyConfigManager: no roll while a ConfigMap write failed; nothing at all without an address", async () => {
  await using server = await startFakeApiServer();
  seed(server);
  using client = new KubeClient({ server: server.url });
  const manager = new ProxyConfigManager(client, { parNamespace: "par" });

  assert.deepEqual(await manager.sync(await state(client, ""), never), []);

  server.faults.inject("patch", {
    type: "status",
    code: 403,
    reason: "Forbidden",
    message: "configmaps is forbidden",
  });
  const failed = await manager.sync(await state(client, "10.96.0.53"), never);
  assert.deepEqual(summary(failed), [
    "ConfigMap par/proxy: failed/render",
    "ConfigMap par/rendered-by-par: skipped",
  ]);
  assert.equal(hash(server), undefined, "the proxy keeps running with what it has");

  const retried = await manager.sync(await state(client, "10.96.0.53"), never);
  assert.ok(summary(retried).includes("Deployment par/proxy: written/restart"));
});
