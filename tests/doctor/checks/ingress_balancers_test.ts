import assert from "node:assert/strict";
import { ingressBalancers } from "../../../lib/doctor/checks/ingress_balancers.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";

const BACKEND = { namespace: "ingress-nginx", name: "ingress-nginx-controller" };

function service(namespace: string, name: string, ip: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace, name },
    spec: { type: "LoadBalancer", clusterIP: "10.96.0.10", clusterIPs: ["10.96.0.10"], ports: [] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

function ingress(ip: string): Record<string, unknown> {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace: "shop", name: `shop-${ip}` },
    spec: { rules: [{ host: "shop.example.com" }] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
}

async function found(server: FakeApiServer) {
  using api = new KubeClient({ server: server.url });
  return await ingressBalancers(api, { ingressService: BACKEND, signal: AbortSignal.timeout(10_000) });
}

Deno.test("ingressBalancers: the configured Service and those an Ingress reports, each once", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(service(BACKEND.namespace, BACKEND.name, "203.0.113.10"));
  server.create(service("traefik", "traefik", "203.0.113.20"));
  server.create(service("other", "unrelated", "203.0.113.30"));
  server.create(ingress("203.0.113.10"));
  server.create(ingress("203.0.113.20"));
  const result = await found(server);
  assert.deepEqual(
    result.services.map((s) => `${s.metadata.namespace}/${s.metadata.name}`),
    ["ingress-nginx/ingress-nginx-controller", "traefik/traefik"],
  );
  assert.equal(result.backendProblem, undefined);
  assert.equal(result.listProblem, undefined);
});

Deno.test("ingressBalancers: failed reads are said beside what was found, never thrown", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(service("traefik", "traefik", "203.0.113.20"));
  server.create(ingress("203.0.113.20"));
  const missing = await found(server);
  assert.equal(missing.backendProblem, "Service ingress-nginx/ingress-nginx-controller does not exist");
  assert.deepEqual(missing.services.map((s) => s.metadata.name), ["traefik"]);

  server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, { path: /services/ });
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /ingresses/ });
  const denied = await found(server);
  assert.equal(denied.backendProblem, "RBAC does not allow get on services in namespace ingress-nginx (403)");
  assert.equal(denied.listProblem?.forbidden, true);
  assert.equal(
    denied.listProblem?.message,
    "RBAC does not allow list on ingresses.networking.k8s.io in all namespaces (403)",
  );
  assert.deepEqual(denied.services, []);

  server.faults.inject("list", { type: "status", code: 500, reason: "InternalError", message: "etcd down" });
  const broken = await found(server);
  assert.equal(broken.listProblem?.forbidden, false);
  assert.match(
    broken.listProblem?.message ?? "",
    /^could not list ingresses\.networking\.k8s\.io: .*(etcd down|500)/,
  );
});

Deno.test("ingressBalancers: with --gateway-api, a Service whose address a Gateway reports counts too", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create(service("envoy-gateway-system", "envoy-shop", "203.0.113.40"));
  server.create({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: { namespace: "shop", name: "shop" },
    spec: { gatewayClassName: "eg", listeners: [{ name: "https", port: 443, protocol: "HTTPS" }] },
    status: { addresses: [{ type: "IPAddress", value: "203.0.113.40" }] },
  });
  using api = new KubeClient({ server: server.url });
  const options = { ingressService: BACKEND, signal: AbortSignal.timeout(10_000) };
  assert.deepEqual(
    (await ingressBalancers(api, options)).services,
    [],
    "without --gateway-api Gateways are not read",
  );
  const withGateways = await ingressBalancers(api, { ...options, gatewayApi: true });
  assert.deepEqual(withGateways.services.map((s) => s.metadata.name), ["envoy-shop"]);
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /gateways/ });
  assert.equal(
    (await ingressBalancers(api, { ...options, gatewayApi: true })).listProblem?.message,
    "RBAC does not allow list on gateways.gateway.networking.k8s.io in all namespaces (403)",
  );
});
