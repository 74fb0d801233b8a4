/**
 * `--routes` in the running controller (in process, against the fake API server): the route table
 * ConfigMap is created with the release's labels and follows the Ingresses, Gateways and Services
 * in the cluster, including an owner's address moving to another Service (a status-only change);
 * hostnames without a backend of their own go to the default target with one WARN per change and
 * a metric; a ConfigMap of that name that is not ours is never touched; `--dry-run` writes nothing.
 */

import assert from "node:assert/strict";
import { ControllerRuntime } from "../../../lib/controller/runtime.ts";
import { recordOwnership } from "../../../lib/controller/modes/external_dns/ownership.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { parseRouteTable, type RouteTable } from "../../../lib/routes/route_table.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { LogRecorder } from "../../support/log_recorder.ts";
import { waitFor } from "../../support/wait.ts";
import { FakeSink } from "../loop_harness.ts";

const NAMESPACE = "ouroboros";
const NAME = "edge-routes";

function loadBalancer(server: FakeApiServer, key: string, ip: string, clusterIP: string): void {
  const [namespace, name] = key.split("/");
  const object = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace, name },
    spec: {
      type: "LoadBalancer",
      clusterIP,
      ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }],
    },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
  if (server.get("v1", "Service", namespace!, name!) === undefined) server.create(object);
  else server.update(object);
}

function ingress(server: FakeApiServer, host: string, ip: string): void {
  const object = {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace: "shop", name: "web" },
    spec: { tls: [{ hosts: [host] }] },
    status: { loadBalancer: { ingress: [{ ip }] } },
  };
  if (server.get("networking.k8s.io/v1", "Ingress", "shop", "web") === undefined) server.create(object);
  else server.update(object);
}

function gateway(server: FakeApiServer, host: string, address: { type: string; value: string }): void {
  server.create({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: { namespace: "envoy", name: "public" },
    spec: {
      gatewayClassName: "envoy",
      listeners: [{ name: "https", hostname: host, protocol: "HTTPS", port: 443 }],
    },
    status: { addresses: [address] },
  });
}

/** The table in the ConfigMap, or `undefined` while there is none. */
function table(server: FakeApiServer): RouteTable | undefined {
  const configMap = server.get("v1", "ConfigMap", NAMESPACE, NAME) as
    | { data?: Record<string, string> }
    | undefined;
  const text = configMap?.data?.["routes.json"];
  if (text === undefined) return undefined;
  const parsed = parseRouteTable(text);
  assert.ok(parsed.ok, `the published table must parse: ${text}`);
  return parsed.table;
}

function hosts(routes: RouteTable | undefined): Record<string, string> {
  return Object.fromEntries((routes?.routes ?? []).map((route) => [route.host, route.backend]));
}

function controller(server: FakeApiServer, options: { dryRun?: boolean } = {}) {
  const client = new KubeClient({ server: server.url });
  const log = new LogRecorder();
  const runtime = ControllerRuntime.start({
    api: client,
    mode: () => ({ sink: new FakeSink(), details: {} }),
    gatewayApi: true,
    desired: { clusterDomain: "cluster.local" },
    resyncMs: 600_000,
    version: "test",
    log,
    debounceMs: 1,
    routes: {
      target: { namespace: NAMESPACE, name: NAME, ownership: recordOwnership("edge") },
      proxyProtocol: "v2",
      client,
      ...(options.dryRun === undefined ? {} : { dryRun: options.dryRun }),
    },
  });
  const stop = new AbortController();
  const running = runtime.run(stop.signal);
  return {
    runtime,
    log,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      client.close();
    },
  };
}

Deno.test("--routes: the table names each hostname's own Service, and follows an address to another Service", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  loadBalancer(server, "ingress-nginx/controller", "203.0.113.7", "10.96.0.10");
  loadBalancer(server, "envoy/public", "203.0.113.8", "10.96.0.20");
  ingress(server, "shop.example.com", "203.0.113.7");
  gateway(server, "app.example.com", { type: "IPAddress", value: "203.0.113.8" });
  await using running = controller(server);

  const first = await waitFor("the route table", () => table(server));
  assert.deepEqual(hosts(first), {
    "app.example.com": "envoy/public",
    "shop.example.com": "ingress-nginx/controller",
  });
  assert.deepEqual(first.backends.get("envoy/public"), {
    address: "10.96.0.20",
    httpPort: 80,
    httpsPort: 443,
    proxyProtocol: "v2",
  });
  const labels =
    (server.get("v1", "ConfigMap", NAMESPACE, NAME) as { metadata: { labels: Record<string, string> } })
      .metadata.labels;
  assert.deepEqual(labels, {
    "app.kubernetes.io/managed-by": "ouroboros",
    "ouroboros.lexfrei.tech/instance": "edge",
  });

  // The ingress controller's load balancer moves to another Service: only status changes.
  loadBalancer(server, "ingress-nginx/controller-v2", "203.0.113.9", "10.96.0.11");
  ingress(server, "shop.example.com", "203.0.113.9");
  await waitFor(
    "the table to follow the address",
    () => hosts(table(server))["shop.example.com"] === "ingress-nginx/controller-v2",
  );
  assert.equal(
    table(server)?.backends.has("ingress-nginx/controller"),
    false,
    "a backend no route names goes",
  );
  const metrics = await running.runtime.healthRoutes().metrics();
  assert.match(metrics, /^ouroboros_controller_routes 2$/m);
});

Deno.test("--routes: hostnames without their own backend go to the default, said once per change and counted", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  loadBalancer(server, "ingress-nginx/controller", "203.0.113.7", "10.96.0.10");
  loadBalancer(server, "ingress-nginx/copy", "203.0.113.7", "10.96.0.12");
  ingress(server, "shop.example.com", "203.0.113.7");
  gateway(server, "app.example.com", { type: "Hostname", value: "lb.example.net" });
  await using running = controller(server);

  await waitFor("the table", () => table(server));
  assert.deepEqual(hosts(table(server)), {});
  const warned = await waitFor(
    "the WARN",
    () => running.log.find("warn", "hostnames routed to the proxy's default").at(0),
  );
  const listed = warned.properties.hostnames as { host: string; reason: string }[];
  assert.deepEqual(listed.map(({ host, reason }) => [host, reason]), [
    ["app.example.com", "hostname-only"],
    ["shop.example.com", "two-services"],
  ]);
  const metrics = await running.runtime.healthRoutes().metrics();
  assert.match(metrics, /^ouroboros_controller_route_fallbacks\{reason="two-services"\} 1$/m);
  assert.match(metrics, /^ouroboros_controller_route_fallbacks\{reason="no-service"\} 0$/m);

  // The copy goes: the name gets its backend, and the WARN is not repeated for the same list.
  server.remove("v1", "Service", "ingress-nginx", "copy");
  await waitFor("the route", () => hosts(table(server))["shop.example.com"] === "ingress-nginx/controller");
  const warns = await waitFor("the second WARN", () => {
    const found = running.log.find("warn", "hostnames routed to the proxy's default");
    return found.length >= 2 && found;
  });
  assert.equal(warns.length, 2, "one more WARN, for the changed list");
  assert.deepEqual((warns[1]!.properties.hostnames as { host: string }[]).map(({ host }) => host), [
    "app.example.com",
  ]);
});

Deno.test("--routes: a ConfigMap of that name without our labels is refused and left as it is", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: NAMESPACE, name: NAME },
    data: { "routes.json": "someone else's" },
  });
  loadBalancer(server, "ingress-nginx/controller", "203.0.113.7", "10.96.0.10");
  ingress(server, "shop.example.com", "203.0.113.7");
  await using running = controller(server);
  await waitFor(
    "the refusal",
    () =>
      running.log.entries.find((entry) =>
        /routes-configmap-foreign|not ouroboros's/.test(JSON.stringify(entry))
      ),
  );
  const held = server.get("v1", "ConfigMap", NAMESPACE, NAME) as { data: Record<string, string> };
  assert.deepEqual(held.data, { "routes.json": "someone else's" });
});

Deno.test("--routes --dry-run: the table is previewed as a diff and nothing is created", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  loadBalancer(server, "ingress-nginx/controller", "203.0.113.7", "10.96.0.10");
  ingress(server, "shop.example.com", "203.0.113.7");
  await using running = controller(server, { dryRun: true });
  const previewed = await waitFor(
    "the preview",
    () =>
      running.log.entries.find((entry) =>
        typeof entry.properties.diff === "string" && entry.properties.diff.includes("shop.example.com")
      ),
  );
  assert.match(previewed.properties.diff as string, /\+\s+"host": "shop\.example\.com"/);
  assert.equal(server.get("v1", "ConfigMap", NAMESPACE, NAME), undefined);
});

// Both start at once, so their first writes race (measured: one of the two creates meets
// AlreadyExists on every run); the loser must say nothing above DEBUG.
Deno.test("--routes: two controllers writing one table (etc-hosts mode: one per node) converge without a failure", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  loadBalancer(server, "ingress-nginx/controller", "203.0.113.7", "10.96.0.10");
  ingress(server, "shop.example.com", "203.0.113.7");
  await using first = controller(server);
  await using second = controller(server);
  await waitFor("the table", () => hosts(table(server))["shop.example.com"] === "ingress-nginx/controller");
  ingress(server, "app.example.com", "203.0.113.7");
  await waitFor(
    "the changed table",
    () => hosts(table(server))["app.example.com"] === "ingress-nginx/controller",
  );
  for (const running of [first, second]) {
    await waitFor(
      "each controller to see the table as it wrote it",
      async () => /^ouroboros_controller_routes 1$/m.test(await running.runtime.healthRoutes().metrics()),
    );
    assert.deepEqual(
      running.log.entries.filter((entry) => entry.level === "warn" || entry.level === "error"),
      [],
    );
  }
});
