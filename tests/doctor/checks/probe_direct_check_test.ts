import assert from "node:assert/strict";
import {
  probeDirectCheck,
  type ProbeDirectContext,
  probeDirectFindings,
} from "../../../lib/doctor/checks/probe_direct_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import type { FakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { cluster, only } from "../doctor_test_support.ts";
import { selfSignedCertificate } from "../../support/peer_configs.ts";
import { skipWithout } from "../../support/tools.ts";
import { refusingPort, startListener, startNginxIngress } from "../ingress_stand_ins.ts";

const BACKEND = { namespace: "ingress-nginx", name: "ingress-nginx-controller" };

function balancer(
  where: { namespace: string; name: string },
  httpPort: number,
  ingress: readonly Record<string, string>[] = [{ ip: "127.0.0.1" }],
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: where,
    spec: {
      type: "LoadBalancer",
      clusterIP: "10.96.0.10",
      clusterIPs: ["10.96.0.10"],
      ports: [{ name: "http", port: httpPort, protocol: "TCP" }, {
        name: "https",
        port: 443,
        protocol: "TCP",
      }],
    },
    status: { loadBalancer: { ingress } },
  };
}

async function run(
  server: FakeApiServer,
  context: Partial<Omit<ProbeDirectContext, "api">> = {},
  probeTimeoutMs = 5_000,
): Promise<Finding[]> {
  using api = new KubeClient({ server: server.url });
  return [
    ...await probeDirectCheck({ probeTimeoutMs }).run(
      { api, ingressService: BACKEND, inCluster: true, host: "shop.example.com", ...context },
      AbortSignal.timeout(20_000),
    ),
  ];
}

Deno.test({
  name: "probe-direct: an ingress that insists on PROXY hangs up on a plain request: the problem is real",
  ignore: skipWithout("probe-direct against nginx", ["nginx", "openssl"]),
  fn: async () => {
    await using certificate = await selfSignedCertificate();
    await using ingress = await startNginxIngress(certificate, { proxyProtocol: true });
    await using server = await cluster([balancer(BACKEND, ingress.httpPort)]);
    const finding = only(await run(server));
    assert.equal(
      finding.subject,
      `Service ingress-nginx/ingress-nginx-controller at 127.0.0.1:${ingress.httpPort}`,
    );
    assert.equal(finding.verdict, "ok");
    assert.match(finding.saw, /hung up on .*the problem is real and ouroboros is needed/);
    assert.equal(finding.todo, undefined);
  },
});

Deno.test({
  name: "probe-direct: an ingress that answers without PROXY is a warning that you may not need ouroboros",
  ignore: skipWithout("probe-direct against nginx", ["nginx", "openssl"]),
  fn: async () => {
    await using certificate = await selfSignedCertificate();
    await using plain = await startNginxIngress(certificate, { proxyProtocol: false });
    await using insisting = await startNginxIngress(certificate, { proxyProtocol: true });
    const other = { namespace: "traefik", name: "traefik" };
    await using server = await cluster([
      balancer(BACKEND, plain.httpPort),
      // A second ingress controller, found because an Ingress reports its address.
      balancer(other, insisting.httpPort, [{ ip: "127.0.0.1" }]),
      {
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { namespace: "shop", name: "shop" },
        spec: { rules: [{ host: "shop.example.com" }] },
        status: { loadBalancer: { ingress: [{ ip: "127.0.0.1" }] } },
      },
    ]);
    const findings = await run(server);
    assert.equal(findings.length, 2, JSON.stringify(findings, null, 2));
    const [answered, other2] = findings as [Finding, Finding];
    assert.equal(answered.verdict, "warning");
    assert.match(answered.saw, /answered `HTTP\/1\.1 200 OK`.*ipMode: Proxy/);
    assert.match(answered.todo ?? "", /you may not need ouroboros/);
    assert.equal(other2.subject, `Service traefik/traefik at 127.0.0.1:${insisting.httpPort}`);
    assert.equal(other2.verdict, "ok");
  },
});

Deno.test("probe-direct: refused or silent tells nothing about the header: could-not-check", async () => {
  await using silent = startListener("silent");
  await using server = await cluster([balancer(BACKEND, refusingPort())]);
  const refused = only(await run(server));
  assert.equal(refused.verdict, "could-not-check");
  assert.match(refused.saw, /refused: this tells nothing about the PROXY header/);
  server.update(balancer(BACKEND, silent.port));
  const quiet = only(await run(server, {}, 200));
  assert.equal(quiet.verdict, "could-not-check");
  assert.match(quiet.saw, /no answer came within 0\.2s/);
});

Deno.test("probe-direct: from a workstation it dials nothing and says to run it in the cluster", async () => {
  await using server = await cluster([balancer(BACKEND, refusingPort())]);
  const finding = only(await run(server, { inCluster: false }));
  assert.equal(finding.verdict, "could-not-check");
  assert.match(finding.todo ?? "", /helm test <release>/);
  assert.equal(server.audit.length, 0, "not even the API was asked");
});

Deno.test("probe-direct: nothing to probe says why (missing Service, hostname-only, forbidden list)", async () => {
  await using server = await cluster([]);
  const missing = only(await run(server));
  assert.equal(missing.verdict, "could-not-check");
  assert.equal(
    missing.saw,
    "no load-balancer IP address to probe; Service ingress-nginx/ingress-nginx-controller does not exist",
  );
  server.create(balancer(BACKEND, 80, [{ hostname: "a1b2.elb.amazonaws.com" }]));
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /ingresses/ });
  const hostnameOnly = only(await run(server));
  assert.equal(
    hostnameOnly.saw,
    "no load-balancer IP address to probe; RBAC does not allow list on ingresses.networking.k8s.io in all namespaces (403)",
  );
});

Deno.test("probeDirectFindings: one verdict per way the direct request ended", () => {
  const cases = [
    [{ kind: "closed" }, "ok"],
    [{ kind: "reset" }, "ok"],
    [{ kind: "answered", statusLine: "HTTP/1.1 404 Not Found", status: 404 }, "warning"],
    [{ kind: "answered", statusLine: "HTTP/1.1 400 Bad Request", status: 400 }, "warning"],
    [{ kind: "not-http", sample: "\\x15" }, "could-not-check"],
    [{ kind: "refused" }, "could-not-check"],
    [{ kind: "unreachable", detail: "No route to host" }, "could-not-check"],
    [{ kind: "connect-timeout" }, "could-not-check"],
    [{ kind: "answer-timeout" }, "could-not-check"],
    [{ kind: "aborted" }, "could-not-check"],
    [{ kind: "error", message: "boom" }, "could-not-check"],
  ] as const;
  for (const [result, verdict] of cases) {
    const [finding] = probeDirectFindings({
      timeoutMs: 5_000,
      readProblems: [],
      probes: [{
        service: "Service ingress-nginx/ingress-nginx-controller",
        address: "2001:db8::10",
        port: 80,
        result,
      }],
    });
    assert.equal(finding?.verdict, verdict, result.kind);
    assert.equal(finding?.subject, "Service ingress-nginx/ingress-nginx-controller at [2001:db8::10]:80");
  }
});
