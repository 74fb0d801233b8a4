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

Deno.test("sources: a cluster without the Gateway API gives synced, empty Gateway and route caches", async () => {
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
    assert.deepEqual(conditions, {
      Ingress: "healthy",
      Gateway: "missing",
      HTTPRoute: "missing",
      GRPCRoute: "missing",
      TLSRoute: "missing",
    });

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

function route(
  apiVersion: string,
  kind: string,
  key: string,
  hostnames: readonly string[],
): Record<string, unknown> {
  const [namespace, name] = key.split("/");
  return {
    apiVersion,
    kind,
    metadata: { namespace, name },
    spec: { hostnames, parentRefs: [{ name: "gw" }] },
  };
}

function conditions(sources: ReturnType<typeof createSources>): Record<string, string> {
  return Object.fromEntries(sources.watched().map((entry) => [entry.kind, entry.status().condition]));
}

Deno.test("sources: a route kind without its CRD is missing and empty; the other kinds sync; installing it later is picked up", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0, omitKinds: ["GRPCRoute"] });
  server.create(route(`${GATEWAY_GROUP}/v1`, "HTTPRoute", "shop/web", ["web.example.com"]));
  server.create(route(`${GATEWAY_GROUP}/v1`, "TLSRoute", "shop/db", ["db.example.com"]));
  using client = new KubeClient({ server: server.url });
  const sources = createSources(client, { gatewayApi: true, reflector: { missingRetryMs: 100 } });
  const stop = new AbortController();
  const running = sources.run(stop.signal);
  try {
    await waitFor("every source cache to sync", () => sources.watched().every((entry) => entry.store.synced));
    assert.deepEqual(conditions(sources), {
      Ingress: "healthy",
      Gateway: "healthy",
      HTTPRoute: "healthy",
      GRPCRoute: "missing",
      TLSRoute: "healthy",
    });
    assert.equal(sources.routes?.size, 1);
    assert.equal(sources.tlsRoutes?.size, 1);
    assert.equal(sources.grpcRoutes?.size, 0);

    server.setGroupInstalled(GATEWAY_GROUP, true);
    server.create(route(`${GATEWAY_GROUP}/v1`, "GRPCRoute", "shop/orders", ["grpc.example.com"]));
    await waitFor("the GRPCRoute once its CRD is installed", () => sources.grpcRoutes?.size === 1);
    assert.equal(conditions(sources).GRPCRoute, "healthy");
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("sources: TLSRoute is read at the newest version served (v1alpha2 here, after 404s for v1 and v1alpha3)", async () => {
  await using server = await startFakeApiServer({
    bookmarkIntervalMs: 0,
    omitKinds: [`${GATEWAY_GROUP}/v1/TLSRoute`, `${GATEWAY_GROUP}/v1alpha3/TLSRoute`],
  });
  server.create(route(`${GATEWAY_GROUP}/v1alpha2`, "TLSRoute", "shop/db", ["db.example.com"]));
  using client = new KubeClient({ server: server.url });
  const sources = createSources(client, { gatewayApi: true, routeKinds: ["TLSRoute"] });
  const stop = new AbortController();
  const running = sources.run(stop.signal);
  try {
    await waitFor("the TLSRoute cache to sync", () => sources.tlsRoutes?.synced === true);
    assert.deepEqual(sources.tlsRoutes?.list().map((tls) => tls.spec.hostnames), [["db.example.com"]]);
    assert.equal(conditions(sources).TLSRoute, "healthy");
    const tlsLists = server.audit
      .filter((entry) => entry.path.endsWith("/tlsroutes"))
      .map((entry) => `${entry.path.split("/")[3]} ${entry.status}${entry.watch ? " watch" : ""}`);
    assert.deepEqual(tlsLists.slice(0, 3), ["v1 404", "v1alpha3 404", "v1alpha2 200"]);
    await waitFor(
      "the watch at v1alpha2",
      () =>
        server.audit.some((entry) =>
          entry.path === `/apis/${GATEWAY_GROUP}/v1alpha2/tlsroutes` && entry.watch
        ),
    );
    server.create(route(`${GATEWAY_GROUP}/v1alpha2`, "TLSRoute", "shop/vault", ["vault.example.com"]));
    await waitFor("the watched TLSRoute", () => sources.tlsRoutes?.size === 2);
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("sources: --gateway-route-kinds chooses the route kinds watched; the others are never asked for", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  using client = new KubeClient({ server: server.url });
  const sources = createSources(client, { gatewayApi: true, routeKinds: ["GRPCRoute"] });
  assert.deepEqual(sources.watched().map((entry) => entry.kind), ["Ingress", "Gateway", "GRPCRoute"]);
  assert.equal(sources.routes, undefined);
  assert.equal(sources.tlsRoutes, undefined);
  const stop = new AbortController();
  const running = sources.run(stop.signal);
  try {
    await waitFor("every source cache to sync", () => sources.watched().every((entry) => entry.store.synced));
    assert.ok(server.audit.some((entry) => entry.path.endsWith("/grpcroutes")));
    assert.ok(!server.audit.some((entry) => /\/(httproutes|tlsroutes)$/.test(entry.path)));
  } finally {
    stop.abort();
    await running;
  }
  // Without --gateway-api the route kinds choose nothing.
  const off = createSources(client, { gatewayApi: false, routeKinds: ["GRPCRoute", "TLSRoute"] });
  assert.deepEqual(off.watched().map((entry) => entry.kind), ["Ingress"]);
});
