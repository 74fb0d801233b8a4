import assert from "node:assert/strict";
import { createSources } from "../../lib/controller/sources.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { CONFIG_MAP } from "../../lib/resources/config_map.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";

const GATEWAY_GROUP = "gateway.networking.k8s.io";

function ingress(namespace: string, name: string, host: string): Record<string, unknown> {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace, name },
    spec: { tls: [{ hosts: [host] }] },
  };
}

Deno.test("sources: a cluster without the Gateway API gives synced, empty Gateway and HTTPRoute caches", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0, omitGroups: [GATEWAY_GROUP] });
  server.create(ingress("shop", "web", "shop.example.com"));
  using client = new KubeClient({ server: server.url });
  const sources = createSources(client, { gatewayApi: true });
  const stop = new AbortController();
  const running = sources.run(stop.signal);
  try {
    await waitFor("every source cache to sync", () => sources.watched().every((entry) => entry.store.synced));
    assert.equal(sources.ingresses.size, 1);
    assert.equal(sources.gateways?.size, 0);
    assert.equal(sources.routes?.size, 0);
    const conditions = Object.fromEntries(
      sources.watched().map((entry) => [entry.kind, entry.status().condition]),
    );
    assert.deepEqual(conditions, { Ingress: "healthy", Gateway: "missing", HTTPRoute: "missing" });

    server.create(ingress("blog", "site", "blog.example.com"));
    await waitFor("the new Ingress in the cache", () => sources.ingresses.size === 2);
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("sources: without --gateway-api only Ingresses are watched; the target watch sees one ConfigMap", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const name of ["coredns", "coredns-backup"]) {
    server.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "kube-system", name },
      data: {},
    });
  }
  using client = new KubeClient({ server: server.url });
  const sources = createSources(client, { gatewayApi: false });
  const target = sources.watch(CONFIG_MAP, { namespace: "kube-system", name: "coredns" }, "target");
  assert.deepEqual(sources.watched().map((entry) => [entry.kind, entry.role]), [
    ["Ingress", "source"],
    ["ConfigMap", "target"],
  ]);
  assert.equal(sources.gateways, undefined);
  const stop = new AbortController();
  const running = sources.run(stop.signal);
  try {
    await waitFor("the target cache to sync", () => target.synced);
    assert.deepEqual(target.keys(), ["kube-system/coredns"]);
    const lists = server.audit.filter((entry) => entry.path.includes("/configmaps") && !entry.watch);
    assert.ok(lists.length > 0);
    for (const entry of lists) {
      assert.equal(entry.path, "/api/v1/namespaces/kube-system/configmaps");
      assert.equal(entry.query.fieldSelector, "metadata.name=coredns");
    }
    assert.ok(
      !server.audit.some((entry) => entry.path.includes("gateway.networking.k8s.io")),
      "no Gateway API request without --gateway-api",
    );
  } finally {
    stop.abort();
    await running;
  }
});
