/**
 * `ouroboros doctor` end to end: the real command with exactly the `doctor` permission set
 * against the fake API server; it reports, exits with the verdict, and writes nothing.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { runOuroboros } from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";
import type { FakeApiServer } from "../support/fake_apiserver/mod.ts";
import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";

/** kubeadm's CoreDNS ConfigMap, untouched (no hostname is wanted yet, so no block is needed). */
function seedCoredns(server: FakeApiServer): void {
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-system", name: "coredns" },
    data: { Corefile: KUBEADM },
  });
}

const TOKEN = "doctor-test-token";
/** The controller's flags as the chart passes them; the doctor judges that set-up. */
const CONTROLLER_FLAGS = ["--proxy-service-namespace=ouroboros", "--cluster-domain=cluster.local"];

Deno.test("doctor: reports the load balancer's ipMode, as text and as JSON, and writes nothing", async () => {
  await using server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  await using dir = await tempDir("doctor-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url, token: TOKEN });
  seedCoredns(server);
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "ingress-nginx", name: "ingress-nginx-controller" },
    spec: {
      type: "LoadBalancer",
      clusterIP: "10.96.0.100",
      clusterIPs: ["10.96.0.100"],
      ports: [{ port: 443 }],
    },
    status: { loadBalancer: { ingress: [{ ip: "203.0.113.10", ipMode: "Proxy" }] } },
  });
  const text = await runOuroboros(["doctor", `--kubeconfig=${kubeconfig}`, ...CONTROLLER_FLAGS], {
    permissionSet: "doctor",
  });
  // No proxy and no controller run here: the health and path checks say so, and the exit status is 1.
  assert.equal(text.code, 1, text.stderr);
  assert.match(
    text.stdout,
    /PROBLEM proxy Service ouroboros\/ouroboros-proxy: the proxy Service does not exist/,
  );
  assert.match(text.stdout, /\d+ ok, 1 warning, \d+ could not be checked, \d+ problems\n$/);
  assert.match(
    text.stdout,
    /WARNING Service ingress-nginx\/ingress-nginx-controller: every address has ipMode: Proxy/,
  );
  assert.match(text.stdout, /→ if your CNI's service proxy honours ipMode, you may not need ouroboros/);

  const json = await runOuroboros([
    "doctor",
    `--kubeconfig=${kubeconfig}`,
    "--output=json",
    ...CONTROLLER_FLAGS,
  ], {
    permissionSet: "doctor",
  });
  assert.equal(json.code, 1, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.equal(report.exitStatus, 1);
  assert.equal(report.summary.warning, 1);
  assert.equal(report.checks[0].findings[0].verdict, "warning");
  assert.ok(server.audit.every((entry) => entry.method === "GET"), "the doctor only reads");
});

Deno.test("doctor: a configured Service that does not exist cannot be checked, and says how to name it", async () => {
  await using server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  await using dir = await tempDir("doctor-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url, token: TOKEN });
  seedCoredns(server);
  const run = await runOuroboros([
    "doctor",
    `--kubeconfig=${kubeconfig}`,
    "--ingress-service=edge/traefik",
    ...CONTROLLER_FLAGS,
  ], {
    permissionSet: "doctor",
  });
  assert.equal(run.code, 1, run.stderr);
  assert.match(run.stdout, /UNKNOWN the ingress controller's Service: Service edge\/traefik does not exist/);
  assert.match(run.stdout, /→ name it with --ingress-service=<namespace>\/<name>/);
});

Deno.test("doctor: a malformed --ingress-service exits 2 naming what is accepted", async () => {
  const run = await runOuroboros(["doctor", "--ingress-service=traefik"], { permissionSet: "doctor" });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--ingress-service: "traefik" is not <namespace>\/<name>/);
});

Deno.test("doctor: a missing CoreDNS ConfigMap is a problem, exit 1, with the flags that name it", async () => {
  await using server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  await using dir = await tempDir("doctor-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url, token: TOKEN });
  const run = await runOuroboros(["doctor", `--kubeconfig=${kubeconfig}`, ...CONTROLLER_FLAGS], {
    permissionSet: "doctor",
  });
  assert.equal(run.code, 1, run.stdout);
  assert.match(run.stdout, /DNS wiring/);
  assert.match(run.stdout, /PROBLEM .*kube-system\/coredns/);
  assert.match(run.stdout, /--coredns-namespace/);
});

Deno.test("doctor: an API server it cannot reach checks nothing and exits 4; --allow-unchecked gives the old 0", async () => {
  await using dir = await tempDir("doctor-");
  // A port nothing listens on: every check that needs the API server cannot be made.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = listener.addr.port;
  listener.close();
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, {
    server: `http://127.0.0.1:${port}`,
    token: TOKEN,
  });
  const flags = ["doctor", `--kubeconfig=${kubeconfig}`, "--check-timeout=2s", ...CONTROLLER_FLAGS];
  const strict = await runOuroboros([...flags, "--output=json"], { permissionSet: "doctor" });
  assert.equal(strict.code, 4, strict.stderr);
  const report = JSON.parse(strict.stdout) as { exitStatus: number; summary: Record<string, number> };
  assert.equal(report.exitStatus, 4);
  assert.ok(report.summary["could-not-check"]! > 0);
  assert.equal(report.summary.problem, 0);
  const lenient = await runOuroboros([...flags, "--allow-unchecked"], { permissionSet: "doctor" });
  assert.equal(lenient.code, 0, lenient.stderr);
  assert.match(lenient.stdout, /could not be checked/);
});

Deno.test("doctor: with the controller's --routes it reads the route table the proxy mounts, and says when there is none", async () => {
  await using server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  await using dir = await tempDir("doctor-");
  const kubeconfig = await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url, token: TOKEN });
  seedCoredns(server);
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "ouroboros", name: "ouroboros-proxy" },
    spec: { clusterIP: "10.96.0.50", clusterIPs: ["10.96.0.50"], ports: [{ name: "http", port: 80 }] },
  });
  // From a workstation the table is looked for in the proxy Service's namespace.
  const flags = ["doctor", `--kubeconfig=${kubeconfig}`, ...CONTROLLER_FLAGS, "--routes"];
  const missing = await runOuroboros(flags, { permissionSet: "doctor" });
  assert.equal(missing.code, 1, missing.stderr);
  assert.match(
    missing.stdout,
    /PROBLEM ConfigMap ouroboros\/ouroboros-routes\[routes\.json\]: ConfigMap ouroboros\/ouroboros-routes does not exist/,
  );
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "ouroboros", name: "ouroboros-routes" },
    data: { "routes.json": '{"version": 1, "routes": [], "backends": {}}' },
  });
  const found = await runOuroboros(flags, { permissionSet: "doctor" });
  assert.match(found.stdout, /\nThe path: through the proxy Service to each host's own ingress \(/);
  assert.match(
    found.stdout,
    /ok {6}ConfigMap ouroboros\/ouroboros-routes\[routes\.json\]: the route table sends 0/,
  );
  assert.ok(server.audit.every((entry) => entry.method === "GET"), "the doctor only reads");
});
