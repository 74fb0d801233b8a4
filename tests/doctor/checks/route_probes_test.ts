/**
 * Check 5 with `--routes`, end to end in process: the route table in the fake API server, a proxy
 * server routing by SNI and Host (in process, real loopback sockets), and three ingress stand-ins
 * that insist on a PROXY header and present their own certificates. The table the proxy serves
 * passes; a proxy serving a stale table (two backends swapped) fails, naming the backend that
 * answered instead. A missing, foreign or invalid table is a finding of its own.
 */

import assert from "node:assert/strict";
import { pathCheck, type PathContext } from "../../../lib/doctor/checks/path_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { systemDialer } from "../../../lib/proxy/dialer.ts";
import { createProxyMetrics } from "../../../lib/proxy/proxy_metrics.ts";
import { ProxyServer } from "../../../lib/proxy/server.ts";
import { renderRouteTable, type RouteBackend, type RouteTable } from "../../../lib/routes/route_table.ts";
import { systemClock } from "../../../lib/util/clock.ts";
import type { FakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { LogRecorder } from "../../support/log_recorder.ts";
import { tempDir } from "../../support/temp_dir.ts";
import { selfSignedCertificate } from "../../support/tls_certificate.ts";
import { skipWithout } from "../../support/tools.ts";
import { cluster } from "../doctor_test_support.ts";
import { startTlsBackend, type TlsBackend } from "../tls_backends.ts";

const PROXY = { namespace: "ouroboros", name: "ouroboros-proxy" };
const ROUTES = { namespace: "ouroboros", configmap: "ouroboros-routes" };
const NGINX = "ingress-nginx/controller";
const GATEWAY = "envoy/public";

function backendOf(backend: TlsBackend, proxyProtocol: "v1" | "v2"): RouteBackend {
  return { address: "127.0.0.1", httpPort: backend.http.port, httpsPort: backend.https.port, proxyProtocol };
}

/** shop to ingress-nginx, app and *.apps to the Gateway; `swapped` sends each to the other. */
function tableFor(nginx: TlsBackend, gateway: TlsBackend, swapped = false): RouteTable {
  const [shop, app] = swapped ? [GATEWAY, NGINX] : [NGINX, GATEWAY];
  return {
    routes: [
      { host: "shop.example.com", backend: shop },
      { host: "app.example.com", backend: app },
      { host: "*.apps.example.com", backend: app },
    ],
    backends: new Map([[NGINX, backendOf(nginx, "v1")], [GATEWAY, backendOf(gateway, "v2")]]),
  };
}

function configMap(data: Record<string, string>): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: ROUTES.configmap, namespace: ROUTES.namespace },
    data,
  };
}

function proxyService(http: number, https: number): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: PROXY,
    spec: {
      type: "ClusterIP",
      clusterIP: "127.0.0.1",
      clusterIPs: ["127.0.0.1"],
      ports: [{ name: "http", port: http, protocol: "TCP" }, { name: "https", port: https, protocol: "TCP" }],
    },
  };
}

/** A routing proxy in process, its default target `fallback`. */
function startRoutingProxy(fallback: TlsBackend, table: RouteTable) {
  const listen = { host: "127.0.0.1", port: 0 };
  const server = ProxyServer.start({
    listeners: [
      { name: "http", address: listen, backendPort: fallback.http.port },
      { name: "https", address: listen, backendPort: fallback.https.port },
    ],
    backendHost: "127.0.0.1",
    readinessPort: fallback.http.port,
    proxyProtocol: "v1",
    dialTimeoutMs: 5_000,
    readyTimeoutMs: 1_000,
    shutdownGraceMs: 5_000,
    drainDelayMs: 0,
    idleTimeoutMs: 0,
    routing: { readTimeoutMs: 5_000, maxBytes: 16 * 1024 },
  }, {
    dial: systemDialer,
    clock: systemClock,
    log: new LogRecorder(),
    metrics: createProxyMetrics({ rss: () => 0, version: "test", routing: true }),
  });
  server.setRoutes(table);
  const shutdown = new AbortController();
  const running = server.run({ shutdown: shutdown.signal, force: shutdown.signal });
  return {
    server,
    port: (listener: "http" | "https") => Number(server.addresses[listener]!.split(":").at(-1)),
    async [Symbol.asyncDispose]() {
      shutdown.abort();
      await running;
    },
  };
}

async function run(
  server: FakeApiServer,
  context: Partial<Omit<PathContext, "api">> = {},
): Promise<Finding[]> {
  using api = new KubeClient({ server: server.url });
  const full: PathContext = {
    api,
    proxyService: PROXY,
    hosts: [],
    inCluster: true,
    routes: ROUTES,
    ...context,
  };
  return [...await pathCheck({ probeTimeoutMs: 5_000 }).run(full, AbortSignal.timeout(20_000))];
}

/** The finding whose subject starts with `subject`; fails, printing them all, when there is none. */
function about(findings: readonly Finding[], subject: string): Finding {
  const found = findings.find((finding) => finding.subject.startsWith(subject));
  assert.ok(found !== undefined, `no finding about ${subject} in ${JSON.stringify(findings, null, 2)}`);
  return found;
}

const HOSTS = ["shop.example.com", "app.example.com", "doctor-probe.apps.example.com", "other.example.com"];

Deno.test({
  name:
    "path with --routes: each host reaches its own backend; a proxy serving a stale table names who answered",
  ignore: skipWithout("the route check against TLS stand-ins", ["openssl"]),
  fn: async () => {
    await using dir = await tempDir("doctor-routes-");
    const [nginxCertificate, gatewayCertificate, defaultCertificate] = await Promise.all([
      selfSignedCertificate(dir.path, "nginx", ["shop.example.com"]),
      selfSignedCertificate(dir.path, "gateway", ["app.example.com", "*.apps.example.com"]),
      selfSignedCertificate(dir.path, "default", ["*.example.com"]),
    ]);
    await using nginx = await startTlsBackend("ingress-nginx", nginxCertificate);
    await using gateway = await startTlsBackend("envoy-gateway", gatewayCertificate);
    await using fallback = await startTlsBackend("default", defaultCertificate);
    const table = tableFor(nginx, gateway);
    await using proxy = startRoutingProxy(fallback, table);
    await using server = await cluster([
      proxyService(proxy.port("http"), proxy.port("https")),
      configMap({ "routes.json": renderRouteTable(table) }),
    ]);

    const good = await run(server, { hosts: HOSTS });
    assert.deepEqual(
      good.filter((finding) => finding.verdict !== "ok"),
      [],
      "a proxy serving the table passes every line",
    );
    assert.match(
      about(good, "ConfigMap ouroboros/ouroboros-routes[routes.json]").saw,
      /sends 3 hostnames \(1 wildcard\) to 2 backends: envoy\/public, ingress-nginx\/controller/,
    );
    assert.match(
      about(good, "host shop.example.com routed to ingress-nginx/controller").saw,
      /^reaches its own backend: .* ingress-nginx\/controller presents at 127\.0\.0\.1:\d+$/,
    );
    assert.equal(
      about(good, "2 hosts app.example.com, doctor-probe.apps.example.com routed to envoy/public").verdict,
      "ok",
    );
    assert.match(about(good, "host other.example.com routed to the default target").saw, /no route names it/);

    // The proxy still serves an older table, with the two backends swapped; the ConfigMap is right.
    proxy.server.setRoutes(tableFor(nginx, gateway, true));
    const stale = await run(server, { hosts: ["shop.example.com", "app.example.com"] });
    const shop = about(stale, "host shop.example.com routed to ingress-nginx/controller");
    assert.equal(shop.verdict, "problem");
    assert.match(
      shop.saw,
      /^reaches envoy\/public instead: through the proxy it was answered with the certificate envoy\/public presents for it \(app\.example\.com, \*\.apps\.example\.com; sha256 [0-9A-F:]+…\), not ingress-nginx\/controller's at 127\.0\.0\.1:\d+ \(shop\.example\.com; sha256/,
    );
    assert.match(
      shop.todo ?? "",
      /--routes-file .*ConfigMap at \/etc\/ouroboros\/routes; if it does, its table is stale/,
    );
    const app = about(stale, "host app.example.com routed to envoy/public");
    assert.equal(app.verdict, "problem");
    assert.match(app.saw, /^reaches ingress-nginx\/controller instead/);
  },
});

Deno.test("path with --routes: a missing, foreign or invalid table is a finding that says what to do", async () => {
  await using server = await cluster([proxyService(80, 443)]);
  const missing = about(await run(server), "ConfigMap ouroboros/ouroboros-routes[routes.json]");
  assert.equal(missing.verdict, "problem");
  assert.match(missing.saw, /does not exist/);
  assert.match(missing.todo ?? "", /controller runs with --routes and the same --routes-configmap/);

  server.create(configMap({ "other.json": "{}" }));
  const foreign = about(await run(server), "ConfigMap ouroboros/ouroboros-routes[routes.json]");
  assert.equal(foreign.verdict, "problem");
  assert.match(foreign.saw, /has no routes\.json key/);

  server.remove("v1", "ConfigMap", ROUTES.namespace, ROUTES.configmap);
  server.create(configMap({ "routes.json": '{"version": 1, "routes": [{"host": "a..b", "backend": "x"}]}' }));
  const invalid = about(await run(server), "ConfigMap ouroboros/ouroboros-routes[routes.json]");
  assert.equal(invalid.verdict, "problem");
  assert.match(invalid.saw, /^the route table is invalid: \$\.backends: missing; /);
  assert.match(invalid.todo ?? "", /keeps its last good table/);
});
