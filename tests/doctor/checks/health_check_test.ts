/**
 * Check 6 end to end: the fake API server holds pods whose `status.podIP` is 127.0.0.1 and
 * whose `health` port is the health listener of a real `ouroboros proxy` or `ouroboros
 * controller` started by the test, so the check reads real `/readyz` and `/metrics` answers,
 * directly and through the fake's `pods/proxy`.
 */

import assert from "node:assert/strict";
import { healthCheck, type HealthContext } from "../../../lib/doctor/checks/health_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { bearer, staticCredentials } from "../../../lib/kube/credentials.ts";
import { type Cluster, PROXY_FQDN, startCluster, TOKEN } from "../../controller/cluster_fixture.ts";
import { KUBEADM } from "../../controller/modes/coredns/fixtures/corefiles.ts";
import { BEGIN, END } from "../../controller/modes/coredns/support.ts";
import { freePort } from "../../support/daemons.ts";
import { startController, startProxy } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { runningPod } from "../doctor_test_support.ts";

const NS = "ouroboros";
const PROXY_LABELS = { "app.kubernetes.io/name": "ouroboros", "app.kubernetes.io/component": "proxy" };
const CONTROLLER_SELECTOR = "app.kubernetes.io/name=ouroboros,app.kubernetes.io/component=controller";
const CONTROLLER_LABELS = {
  "app.kubernetes.io/name": "ouroboros",
  "app.kubernetes.io/component": "controller",
};
const LEASE = { namespace: NS, name: "ouroboros-controller" };

function proxyService(cluster: Cluster): void {
  cluster.server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: NS, name: "ouroboros-proxy" },
    spec: { selector: PROXY_LABELS, ports: [{ name: "http", port: 80, targetPort: 8080 }] },
  });
}

function context(cluster: Cluster, overrides: Partial<HealthContext> = {}): HealthContext {
  return {
    api: new KubeClient({
      server: cluster.server.url,
      credentials: staticCredentials({ authorization: bearer(TOKEN) }),
    }),
    reach: "apiserver",
    proxyService: { namespace: NS, name: "ouroboros-proxy" },
    controller: { namespace: NS, selector: CONTROLLER_SELECTOR, resyncMs: 600_000 },
    eventNamespaces: ["kube-system", NS],
    ...overrides,
  };
}

async function run(ctx: HealthContext): Promise<Finding[]> {
  try {
    return [...await healthCheck({ timeoutMs: 5_000 }).run(ctx, AbortSignal.timeout(30_000))];
  } finally {
    (ctx.api as KubeClient).close();
  }
}

function about(findings: readonly Finding[], subject: string): Finding {
  const found = findings.find((finding) => finding.subject === subject);
  assert.ok(found, `no finding about ${subject} in ${JSON.stringify(findings, null, 2)}`);
  return found;
}

for (const reach of ["direct", "apiserver"] as const) {
  Deno.test(`health (${reach}): the real proxy is ready with its backend up, and not ready with the cause when it is down`, async () => {
    await using cluster = await startCluster();
    using backend = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    // A loopback address no test listens on (they use 127.0.0.1 or port 0 on a wildcard), so the
    // port stays refused even while parallel tests bind the free port it was picked from.
    const down = freePort();
    await using up = await startProxy(["--target-host=127.0.0.1", `--target-http-port=${backend.addr.port}`]);
    await using broken = await startProxy(["--target-host=127.0.0.231", `--target-http-port=${down}`]);
    assert.ok(up.health && broken.health);
    proxyService(cluster);
    cluster.server.create(runningPod(`${NS}/proxy-up`, { labels: PROXY_LABELS, health: up.health }));
    cluster.server.create(runningPod(`${NS}/proxy-down`, { labels: PROXY_LABELS, health: broken.health }));

    const findings = await run(context(cluster, { reach }));

    const ok = about(findings, `proxy Pod ${NS}/proxy-up`);
    assert.equal(ok.verdict, "ok");
    assert.match(ok.saw, /ready: \/readyz reaches the backend/);
    const bad = about(findings, `proxy Pod ${NS}/proxy-down`);
    assert.equal(bad.verdict, "problem");
    assert.match(bad.saw, /not ready: its backend is unreachable \(connection-refused\)/);
    assert.match(bad.todo ?? "", /--backend names the ingress controller's Service and its HTTP port/);
    // No controller pod exists here: that is a problem of its own.
    const controller = about(findings, `controller pods ${CONTROLLER_SELECTOR} in ${NS}`);
    assert.equal(controller.verdict, "problem");
    assert.equal(about(findings, "Events in kube-system, ouroboros").verdict, "ok");
  });
}

Deno.test("health: the real controller is ready, says its last reconcile, and holds the Lease", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  const name = "ouroboros-controller-7d9f";
  await using controller = await startController(
    [
      ...cluster.flags,
      "--leader-elect",
      `--leader-election-namespace=${NS}`,
      `--leader-election-id=${LEASE.name}`,
    ],
    { env: { HOSTNAME: name } },
  );
  assert.ok(controller.health);
  // Leading and written (a replica that still stands by is ready too, and judged differently).
  await controller.explain(() =>
    waitFor("the first write", async () => {
      const metrics = (await controller.healthGet("/metrics")).body;
      return /^ouroboros_controller_reconciles_total\{result="written"\} 1$/m.test(metrics) &&
        (await controller.healthGet("/readyz")).status === 200;
    })
  );
  cluster.server.create(
    runningPod(`${NS}/${name}`, { labels: CONTROLLER_LABELS, health: controller.health }),
  );
  proxyService(cluster);

  for (const reach of ["direct", "apiserver"] as const) {
    const findings = await run(context(cluster, { reach, leaderElection: LEASE }));
    const finding = about(findings, `controller Pod ${NS}/${name}`);
    assert.equal(finding.verdict, "ok", JSON.stringify(finding));
    assert.match(
      finding.saw,
      // A pass that found nothing to change (a resync, an echo of its own write) may come first.
      /^ready; last successful reconcile \d+s ago \(reconciles since start: (\d+ unchanged, )?1 written\b/,
    );
    const lease = about(findings, `Lease ${NS}/${LEASE.name}`);
    assert.equal(lease.verdict, "ok");
    assert.match(
      lease.saw,
      new RegExp(
        `^held by pod ${name} \\(${name}_[0-9a-f]{8}\\) \\(renewed \\d+s ago, lease duration 15s\\)$`,
      ),
    );
  }

  // The holder is gone from the pods: another process leads.
  cluster.server.remove("v1", "Pod", NS, name);
  const findings = await run(context(cluster, { leaderElection: LEASE }));
  assert.equal(about(findings, `Lease ${NS}/${LEASE.name}`).verdict, "warning");
});

Deno.test("health: damaged markers: the real controller is not ready with the refusal, and its Warning Event is reported", async () => {
  const damaged = KUBEADM.replace(
    "    loadbalance\n",
    `    loadbalance\n    ${END}\n    rewrite name old.example.com ${PROXY_FQDN}\n    ${BEGIN}\n`,
  );
  await using cluster = await startCluster({ corefile: damaged });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  const name = "ouroboros-controller-5c2a";
  await using controller = await startController([...cluster.flags], { env: { HOSTNAME: name } });
  assert.ok(controller.health);
  await waitFor(
    "a Warning Event on the ConfigMap",
    () =>
      cluster.server.list("v1", "Event", "kube-system").find((event) =>
        event.reason === "CorefileMarkersDamaged"
      ),
  );
  cluster.server.create(
    runningPod(`${NS}/${name}`, { labels: CONTROLLER_LABELS, health: controller.health }),
  );

  const findings = await run(context(cluster));
  const finding = about(findings, `controller Pod ${NS}/${name}`);
  assert.equal(finding.verdict, "problem");
  assert.match(finding.saw, /not ready: the last reconcile was refused \(end-before-begin\)/);
  assert.match(
    finding.saw,
    /no successful reconcile since it started \(reconciles since start: \d+ refused\)/,
  );
  const event = about(findings, "Event on ConfigMap kube-system/coredns");
  assert.equal(event.verdict, "warning");
  assert.match(event.saw, /^CorefileMarkersDamaged \(last \d+s ago\): .*END marker/);
});

Deno.test("health: a 403 on pods/proxy, events or the Lease is could-not-check naming what was refused", async () => {
  await using cluster = await startCluster();
  proxyService(cluster);
  cluster.server.create(
    runningPod(`${NS}/proxy-1`, {
      labels: PROXY_LABELS,
      health: { hostname: "127.0.0.1", port: freePort() },
    }),
  );
  const forbidden = { type: "status", code: 403, reason: "Forbidden" } as const;
  cluster.server.faults.inject("get", forbidden, { path: /\/pods\/proxy-1:\d+\/proxy\//, count: 5 });
  cluster.server.faults.inject("list", forbidden, { path: /\/namespaces\/kube-system\/events$/ });
  cluster.server.faults.inject("get", forbidden, { path: /\/leases\// });

  const findings = await run(context(cluster, { leaderElection: LEASE }));

  const proxy = about(findings, `proxy Pod ${NS}/proxy-1`);
  assert.equal(proxy.verdict, "could-not-check");
  assert.match(proxy.saw, /^not allowed to get pods\/proxy in ouroboros, so \/readyz was not read/);
  assert.match(
    proxy.todo ?? "",
    /grant get on pods\/proxy in ouroboros, or run in the cluster with --reach=direct/,
  );
  const events = about(findings, "Events in kube-system");
  assert.equal(events.verdict, "could-not-check");
  assert.equal(events.saw, "not allowed to list events in kube-system (403)");
  assert.equal(about(findings, "Events in ouroboros").verdict, "ok", "the namespace allowed is still read");
  const lease = about(findings, `Lease ${NS}/${LEASE.name}`);
  assert.equal(lease.saw, "not allowed to get leases.coordination.k8s.io in ouroboros (403)");
});

Deno.test("health: no proxy Service, and a Lease nobody took, are problems", async () => {
  await using cluster = await startCluster();
  const findings = await run(context(cluster, { leaderElection: LEASE }));
  const service = about(findings, `proxy Service ${NS}/ouroboros-proxy`);
  assert.equal(service.verdict, "problem");
  assert.match(service.saw, /does not exist/);
  const lease = about(findings, `Lease ${NS}/${LEASE.name}`);
  assert.equal(lease.verdict, "problem");
  assert.match(lease.saw, /does not exist: no replica has taken the lead/);
});
