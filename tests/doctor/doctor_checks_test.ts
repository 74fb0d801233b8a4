/**
 * Every doctor check at once, wired as `ouroboros doctor` wires them (`runDoctorChecks`), against a
 * whole working hairpin path made of real parts: the fake API server with the real controller's
 * Corefile block, nginx insisting on a PROXY header as the ingress, the real proxy in front of it,
 * dnsmasq as the cluster DNS (and the pod's resolver) answering with the proxy's ClusterIP, and
 * the proxy and controller pods pointing at the real processes' health ports. Loopback addresses
 * stand in for ClusterIPs, the load balancer and pod IPs. The doctor runs "in a pod" (as `helm
 * test` runs it), so everything it cannot reach is a problem, not a could-not-check.
 *
 * Then the ingress goes down, and the report names it from two sides: the path (refused through
 * the proxy) and the proxy's own readiness (its cause token).
 *
 * @module
 */

import assert from "node:assert/strict";
import { parseOptions } from "../../lib/cli/options.ts";
import { runDoctorChecks } from "../../lib/doctor/doctor_checks.ts";
import { DOCTOR_OPTIONS } from "../../lib/doctor/doctor_options.ts";
import { type DoctorSettings, doctorSettings } from "../../lib/doctor/doctor_settings.ts";
import { exitStatus, type Finding, VERDICTS } from "../../lib/doctor/doctor_check.ts";
import { renderJsonReport } from "../../lib/doctor/doctor_report.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { bearer, staticCredentials } from "../../lib/kube/credentials.ts";
import { type Cluster, startCluster, TOKEN } from "../controller/cluster_fixture.ts";
import { startNginxIngress } from "./ingress_stand_ins.ts";
import { runningPod } from "./doctor_test_support.ts";
import { startDnsmasq } from "../support/dns_tools.ts";
import { startController, startProxy } from "../support/ouroboros_process.ts";
import { selfSignedCertificate } from "../support/peer_configs.ts";
import { skipWithout } from "../support/tools.ts";
import { waitFor } from "../support/wait.ts";

const NS = "ouroboros";
const HOST = "shop.example.com";
const PROXY_LABELS = { "app.kubernetes.io/name": "ouroboros", "app.kubernetes.io/component": "proxy" };
const CONTROLLER_LABELS = {
  "app.kubernetes.io/name": "ouroboros",
  "app.kubernetes.io/component": "controller",
};

function service(
  key: string,
  spec: Record<string, unknown>,
  status: Record<string, unknown> = {},
): Record<string, unknown> {
  const [namespace, name] = key.split("/");
  return { apiVersion: "v1", kind: "Service", metadata: { namespace, name }, spec, status };
}

function settingsFor(cluster: Cluster, extra: readonly string[] = []): DoctorSettings {
  const parsed = parseOptions(DOCTOR_OPTIONS, {
    argv: [
      ...cluster.flags,
      `--proxy-service-namespace=${NS}`,
      "--proxy-service-name=ouroboros-proxy",
      "--probe-direct",
      "--check-timeout=15s",
      ...extra,
    ],
    getEnv: () => undefined,
  });
  assert.equal(parsed.kind, "ok", JSON.stringify(parsed));
  if (parsed.kind !== "ok") throw new Error("unreachable");
  const settings = doctorSettings({
    values: parsed.values,
    sources: parsed.sources,
    readResolvConf: () => undefined,
    podNamespace: NS,
  });
  if (settings instanceof Error) throw settings;
  return settings;
}

function line(findings: readonly Finding[], check: string, subject: RegExp): Finding {
  const found = findings.find((finding) => finding.check === check && subject.test(finding.subject));
  assert.ok(found, `no ${check} finding about ${subject} in ${JSON.stringify(findings, null, 2)}`);
  return found;
}

const missing = skipWithout("doctor end to end", ["nginx", "dnsmasq", "openssl"]);

Deno.test({
  name:
    "doctor: a working hairpin path of real parts passes every check; with the ingress down, two checks name it",
  ignore: missing,
  async fn() {
    await using cluster = await startCluster();
    cluster.ingress("shop/web", { tls: [HOST] });
    await using controller = await startController([...cluster.flags], {
      env: { HOSTNAME: "ouroboros-controller-0" },
    });
    await waitFor("the controller's block", () => cluster.blockHosts()?.includes(HOST) === true);
    await using certificate = await selfSignedCertificate();
    const nginx = await startNginxIngress(certificate, { proxyProtocol: true });
    await using proxy = await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${nginx.httpPort}`,
      `--target-https-port=${nginx.httpsPort}`,
    ]);
    await using dns = await startDnsmasq({ hosts: [{ name: HOST, addresses: ["127.0.0.1"] }] });
    assert.ok(proxy.http && proxy.https && proxy.health && controller.health);
    const { server } = cluster;
    server.create(service(`${NS}/ouroboros-proxy`, {
      selector: PROXY_LABELS,
      clusterIP: "127.0.0.1",
      clusterIPs: ["127.0.0.1"],
      ports: [
        { name: "http", port: proxy.http.port, protocol: "TCP" },
        { name: "https", port: proxy.https.port, protocol: "TCP" },
      ],
    }));
    server.create(service("ingress-nginx/ingress-nginx-controller", {
      type: "LoadBalancer",
      clusterIP: "127.0.0.2",
      clusterIPs: ["127.0.0.2"],
      ports: [{ name: "http", port: nginx.httpPort, protocol: "TCP" }],
    }, { loadBalancer: { ingress: [{ ip: "127.0.0.1", ipMode: "VIP" }] } }));
    server.create(service("kube-system/kube-dns", {
      clusterIP: "127.0.0.1",
      clusterIPs: ["127.0.0.1"],
      ports: [{ name: "dns", port: dns.endpoint.port, protocol: "UDP" }],
    }));
    server.create(runningPod(`${NS}/ouroboros-proxy-0`, { labels: PROXY_LABELS, health: proxy.health }));
    server.create(
      runningPod(`${NS}/ouroboros-controller-0`, { labels: CONTROLLER_LABELS, health: controller.health }),
    );

    using api = new KubeClient({
      server: server.url,
      credentials: staticCredentials({ authorization: bearer(TOKEN) }),
    });
    const settings = settingsFor(cluster);
    const environment = {
      inCluster: true,
      resolvConf: "nameserver 127.0.0.1\nsearch ouroboros.svc.cluster.local\noptions ndots:5\n",
      release: "ouroboros",
      resolverPort: dns.endpoint.port,
    };
    const writesBefore = server.audit.filter((entry) => entry.method !== "GET").length;
    const reports = await runDoctorChecks(settings, { api, environment });
    const findings = reports.flatMap((report) => report.findings);
    const explain = JSON.stringify(reports, null, 2);

    assert.deepEqual(reports.map((report) => report.id), [
      "need",
      "probe-direct",
      "dns-wiring",
      "resolution",
      "path",
      "health",
    ]);
    assert.deepEqual(findings.filter((finding) => finding.verdict === "problem"), [], explain);
    assert.equal(exitStatus(findings), 0);
    // 1: the load balancer's address is short-circuited (ipMode VIP): ouroboros is needed.
    assert.equal(line(findings, "need", /ingress-nginx-controller/).verdict, "ok");
    // 2: nginx hangs up on a request without the header: the problem is real.
    assert.match(line(findings, "probe-direct", /127\.0\.0\.1/).saw, /the problem is real/, explain);
    // 3: the real controller's block holds the host.
    assert.equal(line(findings, "dns-wiring", /coredns\[Corefile\]/).verdict, "ok", explain);
    // 4, 5, 6: resolved to the proxy; answered through it on both ports; our pods ready.
    for (const check of ["resolution", "path", "health"]) {
      const own = findings.filter((finding) => finding.check === check);
      assert.ok(own.length > 0 && own.every((finding) => finding.verdict !== "could-not-check"), explain);
    }
    assert.match(line(findings, "path", new RegExp(HOST.replaceAll(".", "\\."))).saw, /200/, explain);
    assert.equal(line(findings, "health", /ouroboros-proxy-0/).verdict, "ok", explain);
    assert.equal(line(findings, "health", /ouroboros-controller-0/).verdict, "ok", explain);
    assert.equal(
      server.audit.filter((entry) => entry.method !== "GET").length,
      writesBefore,
      "the doctor only reads",
    );

    // The JSON report: every finding, a summary that adds up, the exit status.
    const json = JSON.parse(renderJsonReport(reports)) as {
      exitStatus: number;
      summary: Record<string, number>;
      checks: { id: string; findings: Finding[] }[];
    };
    assert.equal(json.exitStatus, 0);
    assert.deepEqual(Object.keys(json.summary).sort(), [...VERDICTS].sort());
    assert.equal(Object.values(json.summary).reduce((a, b) => a + b, 0), findings.length);
    assert.deepEqual(json.checks.flatMap((check) => check.findings), findings);

    // The ingress goes down: the path through the proxy fails, and the proxy says why.
    await nginx[Symbol.asyncDispose]();
    await waitFor("the proxy to notice", async () => (await proxy.healthGet("/readyz")).status === 503);
    const broken = (await runDoctorChecks(settings, { api, environment })).flatMap((report) =>
      report.findings
    );
    const brokenExplain = JSON.stringify(broken, null, 2);
    assert.equal(exitStatus(broken), 1);
    assert.equal(
      line(broken, "path", new RegExp(HOST.replaceAll(".", "\\."))).verdict,
      "problem",
      brokenExplain,
    );
    const proxyHealth = line(broken, "health", /ouroboros-proxy-0/);
    assert.equal(proxyHealth.verdict, "problem", brokenExplain);
    assert.match(proxyHealth.saw, /connection-refused/, brokenExplain);
  },
});

Deno.test("doctor: when the hostnames cannot be read (403 on Ingresses), resolution and path say so, never ok", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: [HOST] });
  // Every list of Ingresses is refused, however often the checks ask.
  cluster.server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /ingresses/,
    count: 100,
  });
  using api = new KubeClient({
    server: cluster.server.url,
    credentials: staticCredentials({ authorization: bearer(TOKEN) }),
  });
  const reports = await runDoctorChecks(settingsFor(cluster), {
    api,
    environment: { inCluster: true, resolvConf: "nameserver 127.0.0.1\n", release: "ouroboros" },
  });
  for (const id of ["resolution", "path"]) {
    const findings = reports.find((report) => report.id === id)?.findings ?? [];
    const explain = JSON.stringify(findings, null, 2);
    assert.deepEqual(findings.map((finding) => finding.verdict), ["could-not-check"], explain);
    assert.match(
      findings[0]!.saw,
      /hostnames to check are unknown: RBAC does not allow list on ingresses/,
      explain,
    );
  }
});

Deno.test("doctor: a check that ignores its deadline is cut off at --check-timeout, and the run ends", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: [HOST] });
  // Every request from the doctor hangs: nothing answers, yet the run ends within the timeout.
  cluster.server.faults.inject("any", { type: "blackhole" }, { count: 1000 });
  using api = new KubeClient({
    server: cluster.server.url,
    credentials: staticCredentials({ authorization: bearer(TOKEN) }),
  });
  const settings = settingsFor(cluster, ["--check-timeout=1s"]);
  const reports = await runDoctorChecks(settings, {
    api,
    environment: { inCluster: true, resolvConf: undefined, release: undefined },
  });
  const findings = reports.flatMap((report) => report.findings);
  assert.ok(findings.some((finding) => /ran out of time \(--check-timeout=1s\)/.test(finding.saw)));
  assert.ok(!findings.some((finding) => finding.verdict === "ok" && finding.check === "resolution"));
});
