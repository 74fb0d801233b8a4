import assert from "node:assert/strict";
import { pathCheck, type PathContext } from "../../../lib/doctor/checks/path_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import type { FakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { cluster, only } from "../doctor_test_support.ts";
import { startProxy } from "../../support/ouroboros_process.ts";
import { selfSignedCertificate } from "../../support/peer_configs.ts";
import { skipWithout } from "../../support/tools.ts";
import { refusingPort, startListener, startNginxIngress } from "../ingress_stand_ins.ts";

const PROXY = { namespace: "ouroboros", name: "ouroboros-proxy" };

function proxyService(
  ports: { http?: number | undefined; https?: number | undefined },
  clusterIP = "127.0.0.1",
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: PROXY,
    spec: {
      type: "ClusterIP",
      clusterIP,
      clusterIPs: [clusterIP],
      ports: [
        ...(ports.http === undefined ? [] : [{ name: "http", port: ports.http, protocol: "TCP" }]),
        ...(ports.https === undefined ? [] : [{ name: "https", port: ports.https, protocol: "TCP" }]),
      ],
    },
  };
}

async function run(
  server: FakeApiServer,
  context: Partial<Omit<PathContext, "api">> & { readonly unconfigured?: boolean } = {},
  probeTimeoutMs = 5_000,
): Promise<Finding[]> {
  using api = new KubeClient({ server: server.url });
  const { unconfigured, ...rest } = context;
  const full: PathContext = { api, proxyService: PROXY, hosts: ["localhost"], inCluster: true, ...rest };
  const { proxyService: _, ...withoutService } = full;
  return [
    ...await pathCheck({ probeTimeoutMs }).run(
      unconfigured ? withoutService : full,
      AbortSignal.timeout(20_000),
    ),
  ];
}

const NGINX = ["nginx", "openssl"];

Deno.test({
  name: "path: the proxy in front of an ingress that insists on PROXY: answered on http, handshake on https",
  ignore: skipWithout("path check through the proxy", NGINX),
  fn: async () => {
    await using certificate = await selfSignedCertificate();
    await using ingress = await startNginxIngress(certificate, { proxyProtocol: true });
    await using proxy = await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${ingress.httpPort}`,
      `--target-https-port=${ingress.httpsPort}`,
    ]);
    await using server = await cluster([proxyService({ http: proxy.http?.port, https: proxy.https?.port })]);
    const findings = await run(server, { hosts: ["localhost", "shop.example.com"] });
    assert.equal(findings.length, 2, JSON.stringify(findings, null, 2));
    const [covered, uncovered] = findings as [Finding, Finding];
    assert.equal(covered.subject, "host localhost through Service ouroboros/ouroboros-proxy");
    assert.equal(covered.verdict, "ok");
    assert.match(covered.saw, /http 127\.0\.0\.1:\d+ answered `HTTP\/1\.1 200 OK`/);
    assert.match(
      covered.saw,
      /TLS handshake done \(TLSv1\.[23]\), the certificate covers the host \(not verified/,
    );
    assert.equal(covered.todo, undefined);
    assert.equal(uncovered.verdict, "warning", "a default certificate is a warning at most");
    assert.match(uncovered.saw, /answered `HTTP\/1\.1 200 OK`.*does not cover the host/);
    assert.match(uncovered.todo ?? "", /tls entry/);
  },
});

Deno.test({
  name:
    "path: an ingress that does not expect a PROXY header answers 400 on http and hangs up on https: problem",
  ignore: skipWithout("path check through the proxy", NGINX),
  fn: async () => {
    await using certificate = await selfSignedCertificate();
    await using ingress = await startNginxIngress(certificate, { proxyProtocol: false });
    await using proxy = await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${ingress.httpPort}`,
      `--target-https-port=${ingress.httpsPort}`,
      "--proxy-protocol=v2",
    ]);
    await using server = await cluster([proxyService({ http: proxy.http?.port, https: proxy.https?.port })]);
    const finding = only(await run(server));
    assert.equal(finding.verdict, "problem");
    assert.match(
      finding.saw,
      /answered `HTTP\/1\.1 400 Bad Request`.*read the PROXY header as a malformed request/,
    );
    assert.match(
      finding.saw,
      /https: connected to 127\.0\.0\.1:\d+, then the TLS handshake failed: /,
    );
    assert.match(finding.todo ?? "", /--proxy-protocol.*use-proxy-protocol.*proxy_protocol/);
  },
});

Deno.test({
  name: "path: a proxy that cannot reach the ingress hangs up: problem naming both causes",
  ignore: skipWithout("path check through the proxy", NGINX),
  fn: async () => {
    await using proxy = await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${refusingPort()}`,
      `--target-https-port=${refusingPort()}`,
    ]);
    await using server = await cluster([proxyService({ http: proxy.http?.port, https: proxy.https?.port })]);
    const finding = only(await run(server));
    assert.equal(finding.verdict, "problem");
    assert.match(
      finding.saw,
      /^http: connected to .* without an answer; https: connected to .* without an answer$/,
    );
    assert.match(finding.todo ?? "", /could not reach the ingress.*\/readyz/);
  },
});

Deno.test("path: nothing listening is a problem in a pod, could-not-check from a workstation", async () => {
  await using server = await cluster([proxyService({ http: refusingPort(), https: refusingPort() })]);
  const inPod = only(await run(server));
  assert.equal(inPod.verdict, "problem");
  assert.match(inPod.saw, /^http: connection to 127\.0\.0\.1:\d+ refused; https: connection to .* refused$/);
  assert.match(inPod.todo ?? "", /proxy pods are Ready/);
  const outside = only(await run(server, { inCluster: false }));
  assert.equal(outside.verdict, "could-not-check");
  assert.match(outside.saw, /not reachable from outside the cluster/);
  assert.match(outside.todo ?? "", /helm test <release>/);
});

Deno.test("path: a listener that takes the connection and never answers times out: problem", async () => {
  await using silent = startListener("silent");
  await using server = await cluster([proxyService({ http: silent.port, https: silent.port })]);
  const finding = only(await run(server, {}, 200));
  assert.equal(finding.verdict, "problem");
  assert.match(finding.saw, /no answer came within 0\.2s.*no answer came within 0\.2s/);
  assert.match(finding.todo ?? "", /--target-host/);
});

Deno.test("path: hosts that saw the same are one line, and a sample says of how many", async () => {
  await using server = await cluster([proxyService({ http: refusingPort(), https: refusingPort() })]);
  const findings = await run(server, {
    hosts: ["a.example.com", "b.example.com", "c.example.com"],
    sampledFrom: 41,
  });
  assert.equal(findings.length, 2, JSON.stringify(findings, null, 2));
  assert.equal(findings[0]?.saw, "probed 3 of 41 hosts, a sample (--host-limit)");
  assert.equal(
    findings[1]?.subject,
    "3 hosts a.example.com, b.example.com, c.example.com through Service ouroboros/ouroboros-proxy",
  );
});

Deno.test("path: what the Service itself lacks is said before anything is dialled", async () => {
  await using server = await cluster([]);
  const missing = only(await run(server));
  assert.equal(missing.verdict, "problem");
  assert.match(missing.saw, /does not exist/);

  const unset = only(await run(server, { unconfigured: true }));
  assert.equal(unset.verdict, "could-not-check");
  assert.match(unset.todo ?? "", /--proxy-service-namespace and --proxy-service-name/);

  server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, { path: /services/ });
  const denied = only(await run(server));
  assert.equal(denied.verdict, "could-not-check");
  assert.equal(denied.saw, "RBAC does not allow get on services in namespace ouroboros (403)");

  server.create(proxyService({ http: refusingPort() }, "None"));
  const headless = only(await run(server));
  assert.equal(headless.verdict, "could-not-check");
  assert.match(headless.saw, /no ClusterIP/);
});

Deno.test("path: a Service without an https port is a warning, and the http port is still probed", async () => {
  await using server = await cluster([proxyService({ http: refusingPort() })]);
  const findings = await run(server, { hosts: [] });
  assert.deepEqual(findings.map((finding) => finding.verdict), ["warning", "could-not-check"]);
  assert.match(findings[0]?.saw ?? "", /no port named https or numbered 443/);
  assert.match(findings[1]?.todo ?? "", /--host/);
  const probed = await run(server);
  assert.deepEqual(probed.map((finding) => finding.verdict), ["warning", "problem"]);
  assert.match(probed[1]?.saw ?? "", /^http: connection to 127\.0\.0\.1:\d+ refused$/);
});
