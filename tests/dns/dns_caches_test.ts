/**
 * `ouroboros dns` with `--gateway-api`: the caches follow `--gateway-route-kinds`, a route kind
 * whose CRD is missing counts as listed and empty (it never holds readiness back), and GRPCRoute
 * and TLSRoute hostnames are answered with the proxy's address, in-process against the fake API
 * server.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createDnsCaches, type DnsCachesOptions } from "../../lib/dns/dns_caches.ts";
import { DnsRuntime } from "../../lib/dns/dns_runtime.ts";
import type { LocalAnswerer } from "../../lib/dns/local_answer.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { systemClock } from "../../lib/util/clock.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

const GROUP = "gateway.networking.k8s.io";
const CLIENT = "10.244.0.9";

const OPTIONS: DnsCachesOptions = {
  clientSelector: "",
  hairpin: true,
  gatewayApi: true,
  proxyService: { namespace: "ouroboros", name: "ouroboros-proxy" },
  parNamespace: "ouroboros",
  dnsService: undefined,
  manageWorkloads: false,
  manageProxyConfig: false,
  reflector: { missingRetryMs: 100 },
};

function route(server: FakeApiServer, version: string, kind: string, name: string, hostname: string): void {
  server.create({
    apiVersion: `${GROUP}/${version}`,
    kind,
    metadata: { namespace: "shop", name },
    spec: { hostnames: [hostname] },
  });
}

function seed(server: FakeApiServer): void {
  server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "shop", name: "client" },
    spec: { containers: [{ name: "main", image: "example" }] },
    status: { phase: "Running", podIP: CLIENT, podIPs: [{ ip: CLIENT }] },
  });
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "ouroboros", name: "ouroboros-proxy" },
    spec: { type: "ClusterIP", clusterIP: "10.96.0.7", clusterIPs: ["10.96.0.7"], ports: [{ port: 443 }] },
  });
}

Deno.test("dns caches: GRPCRoute and TLSRoute hostnames are answered; a missing route CRD is synced-empty until installed", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0, omitKinds: ["GRPCRoute"] });
  seed(server);
  route(server, "v1", "HTTPRoute", "web", "web.example.com");
  route(server, "v1", "TLSRoute", "db", "db.example.com");
  using client = new KubeClient({ server: server.url });
  const caches = createDnsCaches(client, OPTIONS);
  assert.deepEqual(
    caches.all.map((cache) => cache.name).filter((name) => name.endsWith("Routes") || name === "Gateways"),
    ["Gateways", "HTTPRoutes", "GRPCRoutes", "TLSRoutes"],
  );
  let answer: LocalAnswerer | undefined;
  const runtime = new DnsRuntime({
    caches,
    api: client,
    hostnames: { clusterDomain: "cluster.local" },
    clusterDomain: "cluster.local",
    parNamespace: "ouroboros",
    ttlSeconds: 30,
    setAnswerer: (next) => answer = next,
    clock: systemClock,
    log: new LogRecorder(),
  });
  const addresses = (name: string): readonly string[] | "forward" => {
    const decision = answer?.({ name, type: "A" }, CLIENT);
    return decision === undefined || decision.kind === "forward" ? "forward" : decision.addresses;
  };
  const stop = new AbortController();
  const running = runtime.run(stop.signal);
  try {
    await waitFor("the caches to count as ready", () => runtime.readiness().ready);
    assert.equal(caches.all.find((cache) => cache.name === "GRPCRoutes")?.status().condition, "missing");
    await waitFor("the TLSRoute hostname answered", () => addresses("db.example.com") !== "forward");
    assert.deepEqual(addresses("db.example.com"), ["10.96.0.7"]);
    assert.deepEqual(addresses("web.example.com"), ["10.96.0.7"]);
    assert.equal(addresses("grpc.example.com"), "forward");

    server.setGroupInstalled(GROUP, true);
    route(server, "v1", "GRPCRoute", "orders", "grpc.example.com");
    await waitFor("the GRPCRoute hostname answered", () => addresses("grpc.example.com") !== "forward");
    assert.deepEqual(addresses("grpc.example.com"), ["10.96.0.7"]);
  } finally {
    stop.abort();
    await running;
  }
});

Deno.test("dns caches: --gateway-route-kinds chooses the route caches; without --gateway-api there are none", () => {
  const client = new KubeClient({ server: "http://127.0.0.1:9" });
  try {
    const names = (options: DnsCachesOptions) =>
      createDnsCaches(client, options).all.map((cache) => cache.name).filter((name) =>
        /Gateways|Routes/.test(name)
      );
    assert.deepEqual(names({ ...OPTIONS, routeKinds: ["TLSRoute"] }), ["Gateways", "TLSRoutes"]);
    assert.deepEqual(names({ ...OPTIONS, gatewayApi: false, routeKinds: ["TLSRoute"] }), []);
    assert.deepEqual(names({ ...OPTIONS, hairpin: false }), []);
  } finally {
    client.close();
  }
});
