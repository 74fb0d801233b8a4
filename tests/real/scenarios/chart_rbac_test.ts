/**
 * The chart's RBAC, judged by a real apiserver with RBAC authorization on: the controller runs
 * with the chart's flags as the chart's ServiceAccount (coredns mode, leader election, Events),
 * through a start, writes, a refusal with its Warning Event and a graceful stop; then the
 * apiserver's audit log must hold no 403 for it (a permission the chart forgot), and every grant a
 * SelfSubjectRulesReview shows it must have been used by a successful request (a permission the
 * chart need not give), except the few listed below with the reason the scenario cannot use them.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { describeGrant, describeRequest, forbidden, unusedGrants } from "../rbac_usage.ts";
import { startStack } from "../stack.ts";

/** Grants a short scenario cannot use, each with the reason (checked to still be granted). */
const UNUSED_BY_DESIGN: Record<string, string> = {
  "patch core/events cluster-wide":
    "a repeated Warning is sent again (a merge patch of its count) only after the 10-minute de-duplication window",
};

const COREFILE = `.:53 {
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
    }
    forward . /etc/resolv.conf
    cache 30
    reload
}
`;

Deno.test("real: the chart's RBAC for coredns mode is sufficient (no 403) and least (no unused grant)", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: ["controller.leaderElection.enabled=true"],
    }],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply(renderedOfKind(release, "Service"));
    await stack.apply([{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: "kube-system" },
      data: { Corefile: COREFILE },
    }]);
    const launch = await chartLaunch(stack, release, { workload: "ouroboros", container: "controller" });
    const controller = await startController(launch.args, { env: launch.env });
    try {
      await stack.apply([ingressManifest({
        namespace: "default",
        name: "shop",
        tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
        ruleHosts: ["shop.example.com"],
        service: { name: "shop", port: 80 },
      })]);
      const corefile = () =>
        stack.kubectlOk([
          "get",
          "configmap",
          "-n",
          "kube-system",
          "coredns",
          "-o",
          "jsonpath={.data.Corefile}",
        ]);
      await controller.explain(() =>
        waitFor(
          "the block in the Corefile",
          async () => (await corefile()).includes("rewrite name shop.example.com"),
          {
            timeoutMs: 30_000,
            intervalMs: 200,
          },
        )
      );
      // Damaged markers (an END with no BEGIN above our block) make the controller refuse and
      // record a Warning Event on the ConfigMap.
      const damaged = (await corefile()).replace("# === BEGIN ouroboros", "# === BEGAN ouroboros");
      await stack.apply([{
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "coredns", namespace: "kube-system" },
        data: { Corefile: damaged },
      }]);
      await controller.explain(() =>
        waitFor(
          "a Warning Event on the ConfigMap",
          async () =>
            (await stack.kubectlOk(["get", "events", "-n", "kube-system", "-o", "name"])).trim() !== "",
          {
            timeoutMs: 30_000,
            intervalMs: 200,
          },
        )
      );
    } finally {
      controller.kill("SIGTERM");
      await controller.status;
    }

    const user = stack.identity("ouroboros", "ouroboros").user;
    const requests = await stack.audited();
    assert.deepEqual(forbidden(requests, user).map(describeRequest), [], "requests the chart's RBAC refused");

    const identity = stack.identity("ouroboros", "ouroboros");
    const grants = await stack.grants(identity, ["ouroboros", "kube-system", "default"]);
    const unused = unusedGrants(grants, requests, user).map(describeGrant);
    for (const waived of Object.keys(UNUSED_BY_DESIGN)) {
      assert.ok(grants.map(describeGrant).includes(waived), `waived grant no longer given: ${waived}`);
    }
    assert.deepEqual(
      unused.filter((grant) => !(grant in UNUSED_BY_DESIGN)),
      [],
      "grants the controller never used",
    );
  } catch (error) {
    stack.keep();
    throw error;
  }
});
