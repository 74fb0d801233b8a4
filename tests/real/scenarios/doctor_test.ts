/**
 * Scenario 8 of the real-component suite: `ouroboros doctor` against a working installation on
 * the real stack, run as the chart's `helm test` Pod runs it (its rendered arguments, its own
 * ServiceAccount under the chart's read-only doctor RBAC, the `doctor` permission set), finds
 * every one of its six checks ok; then, with the controller stopped and its block cut out of the
 * Corefile, the DNS wiring check names exactly that, and the exit status says there is a problem.
 *
 * The installation, every part real and on loopback: the chart's release (coredns mode, with
 * `doctor.probeDirect` and JSON output); a CoreDNS serving the kubeadm-style `coredns` ConfigMap
 * on the ClusterIP of a `kube-system/kube-dns` Service (the cluster DNS the doctor finds by
 * `--cluster-dns-service`); the controller; the proxy on its Service's ClusterIP; nginx with
 * `proxy_protocol` as the ingress on its Service's ClusterIP, with a certificate for the Ingress's
 * TLS host, and on the load balancer's address (a loopback address, standing in for kube-proxy
 * short-circuiting the load balancer's IP to the ingress, which is the hairpin itself); an Ingress
 * with that TLS host and the load balancer in its status. With no kubelet, the controller's and
 * the proxy's Pods are made from the rendered pod templates and given a status whose pod IP is
 * where each one's health listener binds (the chart's health ports).
 *
 * The doctor runs in its pod's view where the machine allows (see `doctor_pod.ts`): its
 * service-account folder and a pod's `/etc/resolv.conf` naming the cluster DNS, so it is "in the
 * cluster" and every check applies. Where it does not, it runs by kubeconfig of the same identity;
 * then two halves cannot apply and the doctor says why: probe-direct (a request from outside
 * goes through the load balancer) and the pod's resolver in the resolution check.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { startNginx } from "../../support/daemons.ts";
import { queryDns } from "../../support/dns_tools.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController, startProxy } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { COREDNS_ACCOUNT, startKubeadmCoredns } from "../coredns.ts";
import { type DoctorRun, podViewAvailable, runDoctorInPod, runDoctorWithKubeconfig } from "../doctor_pod.ts";
import { describeRequest, forbidden } from "../rbac_usage.ts";
import { markPodRunning, podFromTemplate, templatePort } from "../running_pod.ts";
import { startStack } from "../stack.ts";
import { selfSignedCertificate } from "../../support/tls_certificate.ts";

/** The load balancer's address, as the cloud controller would report it (ipMode VIP). */
const LOAD_BALANCER_IP = "127.0.57.20";
/** The pod IPs of the controller and the proxy: their health listeners bind there. */
const CONTROLLER_POD_IP = "127.0.57.10";
const PROXY_POD_IP = "127.0.57.11";
const HOST = "shop.example.com";

/** The doctor's checks, in the report's order. */
const CHECKS = ["need", "probe-direct", "dns-wiring", "resolution", "path", "health"];

function findings(run: DoctorRun, check: string): Finding[] {
  const found = run.report?.checks.find((report) => report.id === check);
  assert.ok(found !== undefined, `the report has no ${check} check:\n${run.stdout}\n${run.stderr}`);
  return found.findings;
}

/** The one finding of `check` whose `saw` matches `pattern`. */
function findingMatching(run: DoctorRun, check: string, pattern: RegExp): Finding {
  const matching = findings(run, check).filter((finding) => pattern.test(finding.saw));
  assert.equal(matching.length, 1, `${check}: one finding like ${pattern}, in:\n${run.stdout}`);
  return matching[0]!;
}

Deno.test("real: the doctor — every check ok on a working installation; a cut CoreDNS wiring is named", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      tests: true,
      set: ["doctor.output=json", "doctor.probeDirect=true"],
    }],
    peers: [COREDNS_ACCOUNT],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply([
      ...renderedOfKind(release, "Service"),
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "kube-dns", namespace: "kube-system", labels: { "k8s-app": "kube-dns" } },
        spec: {
          selector: { "k8s-app": "kube-dns" },
          ports: [
            { name: "dns", port: 53, protocol: "UDP" },
            { name: "dns-tcp", port: 53, protocol: "TCP" },
          ],
        },
      },
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "ingress-nginx-controller", namespace: "ingress-nginx" },
        spec: {
          type: "LoadBalancer",
          selector: { "app.kubernetes.io/name": "ingress-nginx" },
          ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }],
        },
      },
    ]);
    const loadBalancerStatus = JSON.stringify({
      status: { loadBalancer: { ingress: [{ ip: LOAD_BALANCER_IP, ipMode: "VIP" }] } },
    });
    await stack.kubectlOk([
      "patch",
      "service",
      "-n",
      "ingress-nginx",
      "ingress-nginx-controller",
      "--subresource=status",
      "--type=merge",
      "-p",
      loadBalancerStatus,
    ]);
    const proxyIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    const ingressIp = await stack.clusterIp("ingress-nginx", "ingress-nginx-controller");
    const dnsIp = await stack.clusterIp("kube-system", "kube-dns");

    // The cluster DNS: CoreDNS on the kube-dns Service's ClusterIP, as kube-proxy would route it.
    await using coredns = await startKubeadmCoredns(stack, { bind: dnsIp });

    // The ingress: nginx insisting on the PROXY header on its ClusterIP (http and https, with a
    // certificate for the Ingress's host) and on the load balancer's address.
    const certificate = await selfSignedCertificate(stack.dir, "shop", [HOST]);
    const answer = `location / { return 200 "host=$host client=$proxy_protocol_addr\\n"; }`;
    await using _nginx = await startNginx(
      `server {
    listen ${ingressIp}:80 proxy_protocol;
    listen ${LOAD_BALANCER_IP}:80 proxy_protocol;
    ${answer}
  }
  server {
    listen ${ingressIp}:443 ssl proxy_protocol;
    ssl_certificate ${certificate.certPath};
    ssl_certificate_key ${certificate.keyPath};
    ${answer}
  }`,
      [[ingressIp, 80], [ingressIp, 443], [LOAD_BALANCER_IP, 80]],
    );

    // The proxy as the chart runs it: on its Service's ClusterIP, its health on its pod IP.
    const proxyHealthPort = templatePort(release, "ouroboros-proxy", "proxy", "health");
    const proxyLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros-proxy",
      container: "proxy",
      kube: false,
      overrides: [
        `--listen-http=${proxyIp}:80`,
        `--listen-https=${proxyIp}:443`,
        `--listen-health=${PROXY_POD_IP}:${proxyHealthPort}`,
        // The proxy's own resolver is the machine's, which does not know cluster names.
        `--target-host=${ingressIp}`,
      ],
    });
    await using _proxy = await startProxy(proxyLaunch.args, { env: proxyLaunch.env });

    const controllerHealthPort = templatePort(release, "ouroboros", "controller", "health");
    const controllerLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros",
      container: "controller",
      overrides: [`--listen-health=${CONTROLLER_POD_IP}:${controllerHealthPort}`],
    });
    await using controller = await startController(controllerLaunch.args, { env: controllerLaunch.env });

    // Their Pods, from the rendered templates, with the status a kubelet would write.
    const controllerPod = podFromTemplate(release, "ouroboros", "ouroboros-7f6d9c5b8-x2x4q");
    const proxyPod = podFromTemplate(release, "ouroboros-proxy", "ouroboros-proxy-5b8c7d9f4-h9k2m");
    await stack.apply([controllerPod, proxyPod]);
    await markPodRunning(stack, controllerPod, CONTROLLER_POD_IP);
    await markPodRunning(stack, proxyPod, PROXY_POD_IP);

    await stack.apply([ingressManifest({
      namespace: "shop",
      name: "shop",
      tls: { hosts: [HOST], secretName: "shop-tls" },
      ruleHosts: [HOST],
      service: { name: "shop", port: 80 },
    })]);
    await stack.kubectlOk([
      "patch",
      "ingress",
      "-n",
      "shop",
      "shop",
      "--subresource=status",
      "--type=merge",
      "-p",
      JSON.stringify({ status: { loadBalancer: { ingress: [{ ip: LOAD_BALANCER_IP }] } } }),
    ]);

    const resolved = async () => {
      const [reply] = await queryDns(coredns.address, [{ name: HOST }], { timeoutSeconds: 2 });
      return reply?.answers.find((record) => record.type === "A")?.data;
    };
    await controller.explain(() =>
      waitFor(
        `CoreDNS to answer ${HOST} with the proxy's ClusterIP`,
        async () => (await resolved()) === proxyIp,
        {
          timeoutMs: 60_000,
          intervalMs: 250,
        },
      )
    );
    const readyz = async (url: string) => {
      try {
        const response = await fetch(url);
        await response.body?.cancel();
        return response.status === 200;
      } catch {
        return false;
      }
    };
    await waitFor(
      "the proxy to be ready (it reaches the ingress)",
      () => readyz(`http://${PROXY_POD_IP}:${proxyHealthPort}/readyz`),
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await waitFor(
      "the controller to be ready",
      () => readyz(`http://${CONTROLLER_POD_IP}:${controllerHealthPort}/readyz`),
      { timeoutMs: 30_000, intervalMs: 100 },
    );

    const inPod = await podViewAvailable();
    const resolvConf = `nameserver ${dnsIp}\nsearch ouroboros.svc.cluster.local svc.cluster.local ` +
      `cluster.local\noptions ndots:5\n`;
    const doctor = () =>
      inPod ? runDoctorInPod(stack, release, { resolvConf }) : runDoctorWithKubeconfig(stack, release);

    // 1. The working installation: every check ok.
    const healthy = await doctor();
    assert.ok(healthy.report !== undefined, `no JSON report:\n${healthy.stdout}\n${healthy.stderr}`);
    assert.deepEqual(healthy.report.checks.map((check) => check.id), CHECKS);
    for (const check of healthy.report.checks) {
      assert.ok(check.findings.length > 0, `${check.id} reported nothing`);
      for (const finding of check.findings) {
        // Only outside a pod (no mount namespace here): a request from outside goes through the load
        // balancer, which adds the PROXY header, so probe-direct says it cannot tell, and why.
        const cannotApply = !inPod && check.id === "probe-direct" &&
          /from outside the cluster/.test(finding.saw);
        assert.equal(
          finding.verdict,
          cannotApply ? "could-not-check" : "ok",
          `${check.id}: ${finding.subject}: ${finding.saw}\n${healthy.stdout}`,
        );
      }
    }
    // A check that could not be made is exit 4 (outside a pod, probe-direct's); else every check passed: 0.
    const unchecked = healthy.report.checks.some((check) =>
      check.findings.some((finding) => finding.verdict === "could-not-check")
    );
    assert.equal(healthy.code, unchecked ? 4 : 0, healthy.stderr);
    assert.equal(healthy.report.exitStatus, unchecked ? 4 : 0);
    findingMatching(
      healthy,
      "need",
      new RegExp(`address ${LOAD_BALANCER_IP} has ipMode VIP.*ouroboros is needed`),
    );
    if (inPod) findingMatching(healthy, "probe-direct", /hung up on .*the problem is real/);
    findingMatching(
      healthy,
      "dns-wiring",
      /the ouroboros block holds the 1 wanted hostnames, markers intact/,
    );
    findingMatching(healthy, "dns-wiring", /enables the reload plugin/);
    findingMatching(
      healthy,
      "resolution",
      // Outside a pod there is no pod resolver to ask; the cluster DNS is asked all the same.
      inPod ? new RegExp(`both resolvers give the proxy's ${proxyIp.replaceAll(".", "\\.")} `) : new RegExp(
        `the pod's resolver was not asked \\(not in a pod\\); the cluster DNS ${dnsIp}:53 gives`,
      ),
    );
    const path = findingMatching(healthy, "path", /answered `HTTP\/1\.1 200 OK`/);
    assert.equal(path.subject, `host ${HOST} through Service ouroboros/ouroboros-proxy`);
    assert.match(path.saw, /https .*TLS handshake done.*, the certificate covers the host/);
    findingMatching(healthy, "health", /^ready: \/readyz reaches the backend/);
    findingMatching(healthy, "health", /^ready; last successful reconcile/);

    // The doctor read only, and nothing it read was refused: a 403 is a read the chart's helm-test
    // RBAC forgot.
    const doctorUser = stack.identity("ouroboros", "ouroboros-doctor").user;
    const doctorRequests = async () => (await stack.audited()).filter((entry) => entry.user === doctorUser);
    await waitFor("the doctor's requests in the audit log", async () => (await doctorRequests()).length > 0, {
      timeoutMs: 30_000,
      intervalMs: 200,
    });
    const firstRequests = await doctorRequests();
    assert.deepEqual(
      forbidden(firstRequests, doctorUser).map(describeRequest),
      [],
      "reads the doctor's RBAC refused",
    );
    assert.deepEqual(
      [...new Set(firstRequests.map((entry) => entry.verb))].filter((verb) =>
        !["get", "list"].includes(verb)
      ),
      [],
      "the doctor only reads",
    );

    // 2. Break the wiring: the controller stops, and its block is cut out of the Corefile by hand.
    controller.kill("SIGTERM");
    await controller.status;
    const corefile = await stack.kubectlOk([
      "get",
      "configmap",
      "-n",
      "kube-system",
      "coredns",
      "-o",
      "jsonpath={.data.Corefile}",
    ]);
    const cut = corefile.replace(
      /^[ \t]*# === BEGIN ouroboros \(do not edit by hand\) ===\n[\s\S]*?^[ \t]*# === END ouroboros ===\n/m,
      "",
    );
    assert.notEqual(cut, corefile, `the Corefile had no ouroboros block:\n${corefile}`);
    await stack.apply([{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: "kube-system" },
      data: { Corefile: cut },
    }]);
    await waitFor(
      `CoreDNS to stop answering ${HOST} with the proxy`,
      async () => (await resolved()) !== proxyIp,
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );

    const broken = await doctor();
    assert.ok(broken.report !== undefined, `no JSON report:\n${broken.stdout}\n${broken.stderr}`);
    assert.equal(broken.code, 1, `exit status 1 when there is a problem:\n${broken.stdout}`);
    assert.equal(broken.report.exitStatus, 1);
    const wiring = findingMatching(broken, "dns-wiring", /ouroboros block/);
    assert.equal(wiring.verdict, "problem");
    assert.equal(wiring.subject, "ConfigMap kube-system/coredns[Corefile]");
    assert.equal(
      wiring.saw,
      `the Corefile has no ouroboros block, but 1 hostnames are wanted (${HOST})`,
    );
    assert.match(wiring.todo ?? "", /check that the ouroboros controller is running/);
    // What a pod meets follows from it: the cluster DNS no longer gives the proxy.
    assert.ok(
      findings(broken, "resolution").some((finding) => finding.verdict === "problem"),
      `the resolution check sees the cut wiring too:\n${broken.stdout}`,
    );
    const allRequests = await doctorRequests();
    assert.ok(allRequests.length > firstRequests.length, "the second run is in the audit log");
    assert.deepEqual(
      forbidden(allRequests, doctorUser).map(describeRequest),
      [],
      "reads the doctor's RBAC refused",
    );
    // And the least: every grant of the doctor's RBAC was used by these two runs (coredns mode,
    // no leader election: every read the checks make here is one the chart must grant).
    const doctorIdentity = stack.identity("ouroboros", "ouroboros-doctor");
    assert.deepEqual(
      await stack.unusedGrants(doctorIdentity, ["ouroboros", "kube-system", "default"]),
      [],
      "grants the doctor never used",
    );
  } catch (error) {
    stack.keep();
    throw error;
  }
});
