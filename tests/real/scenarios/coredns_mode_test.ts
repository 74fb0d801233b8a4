/**
 * Scenario 1 of the real-component suite: coredns mode against a real kube-apiserver and a real
 * CoreDNS. The controller runs with the chart's flags as the chart's ServiceAccount (RBAC on),
 * edits the real `coredns` ConfigMap, the kubelet-style copy hands it to CoreDNS, CoreDNS
 * reloads it, and `dig` at CoreDNS proves what the edit means: an Ingress hostname answers the
 * proxy Service's ClusterIP (allocated by the real apiserver); a wildcard host answers one label
 * under its domain only; a removed hostname stops answering; CoreDNS logs no error about any
 * Corefile the controller wrote; two releases keep their own marked blocks.
 *
 * @module
 */

import assert from "node:assert/strict";
import { queryDns } from "../../support/dns_tools.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { runOuroboros, startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { COREDNS_ACCOUNT, startKubeadmCoredns } from "../coredns.ts";
import { describeRequest, forbidden } from "../rbac_usage.ts";
import { startStack } from "../stack.ts";

/** The A records CoreDNS answers for `name`, or the status when there are none. */
async function answer(server: { host: string; port: number }, name: string): Promise<string> {
  const [reply] = await queryDns(server, [{ name }], { timeoutSeconds: 2 });
  const addresses = (reply?.answers ?? []).filter((record) => record.type === "A").map((record) =>
    record.data
  );
  return addresses.length > 0 ? addresses.sort().join(",") : reply?.status ?? "no reply";
}

Deno.test("real: coredns mode — the controller's Corefile edits are served by a real CoreDNS", async () => {
  await using stack = await startStack({
    releases: [
      { release: "ouroboros", namespace: "ouroboros", set: ["controller.ingressClass=nginx"] },
      { release: "edge", namespace: "edge", set: ["controller.ingressClass=edge"] },
    ],
    peers: [COREDNS_ACCOUNT],
  });
  try {
    const main = releaseNamed(stack, "ouroboros");
    const edge = releaseNamed(stack, "edge");
    // The proxy Services as the chart renders them: the real apiserver allocates their ClusterIPs.
    await stack.apply([...renderedOfKind(main, "Service"), ...renderedOfKind(edge, "Service")]);
    const mainIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    const edgeIp = await stack.clusterIp("edge", "edge-ouroboros-proxy");
    assert.match(mainIp, /^127\.96\./);

    /** The Corefile as the apiserver holds it now. */
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
    await using coredns = await startKubeadmCoredns(stack, { bind: "127.0.53.1" });
    // The kubernetes plugin answers from the real apiserver: the proxy Service by its cluster name.
    assert.equal(await answer(coredns.address, "ouroboros-proxy.ouroboros.svc.cluster.local"), mainIp);

    const mainLaunch = await chartLaunch(stack, main, { workload: "ouroboros", container: "controller" });
    await using controller = await startController(mainLaunch.args, { env: mainLaunch.env });
    const edgeLaunch = await chartLaunch(stack, edge, {
      workload: "edge-ouroboros",
      container: "controller",
    });
    await using edgeController = await startController(edgeLaunch.args, { env: edgeLaunch.env });

    await stack.apply([
      ingressManifest({
        namespace: "default",
        name: "shop",
        tls: { hosts: ["shop.example.com", "*.apps.example.com"], secretName: "shop-tls" },
        ruleHosts: ["shop.example.com"],
        service: { name: "shop", port: 80 },
      }),
      {
        ...ingressManifest({
          namespace: "default",
          name: "edge",
          tls: { hosts: ["edge.example.net"], secretName: "edge-tls" },
          ruleHosts: ["edge.example.net"],
          service: { name: "edge", port: 80 },
        }),
        spec: {
          ingressClassName: "edge",
          tls: [{ hosts: ["edge.example.net"], secretName: "edge-tls" }],
          rules: [{ host: "edge.example.net" }],
        },
      },
    ]);

    const until = (what: string, name: string, expected: string) =>
      controller.explain(() =>
        waitFor(
          `${what}: ${name} to answer ${expected}`,
          async () => (await answer(coredns.address, name)) === expected,
          {
            timeoutMs: 30_000,
            intervalMs: 250,
          },
        )
      );
    await until("an Ingress TLS host", "shop.example.com", mainIp);
    await until("the other release's host", "edge.example.net", edgeIp);
    await until("a name one label under a wildcard", "x.apps.example.com", mainIp);
    assert.notEqual(
      await answer(coredns.address, "a.b.apps.example.com"),
      mainIp,
      "two labels under a wildcard",
    );
    assert.notEqual(await answer(coredns.address, "apps.example.com"), mainIp, "the wildcard's own domain");

    // Both releases' blocks, each between its own markers, in the one ConfigMap.
    const written = await corefile();
    assert.match(
      written,
      /# === BEGIN ouroboros \(do not edit by hand\) ===\n\s+rewrite name shop\.example\.com /,
    );
    assert.match(
      written,
      /# === BEGIN ouroboros edge \(do not edit by hand\) ===\n\s+rewrite name edge\.example\.net /,
    );

    // The merge patches make the controller (field manager `ouroboros`) the manager of the whole
    // data.Corefile string, so a tool applying another Corefile server-side without
    // --force-conflicts is refused naming it, and nothing changes (docs/controller.md says so for GitOps).
    const managers = JSON.parse(
      await stack.kubectlOk([
        "get",
        "configmap",
        "-n",
        "kube-system",
        "coredns",
        "--show-managed-fields",
        "-o",
        "jsonpath={.metadata.managedFields}",
      ]),
    ) as { manager: string; operation: string; fieldsV1?: { "f:data"?: Record<string, unknown> } }[];
    assert.ok(
      managers.some((entry) =>
        entry.manager === "ouroboros" && entry.operation === "Update" &&
        entry.fieldsV1?.["f:data"]?.["f:Corefile"] !== undefined
      ),
      `ouroboros manages data.Corefile: ${JSON.stringify(managers)}`,
    );
    const gitops = await stack.kubectl(["apply", "--server-side", "--field-manager=gitops", "-f", "-"], {
      stdin: JSON.stringify({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "coredns", namespace: "kube-system" },
        data: { Corefile: ".:53 {\n    errors\n}\n" },
      }),
    });
    assert.notEqual(gitops.code, 0, "a server-side apply over the controller's Corefile was taken");
    assert.match(gitops.stderr, /conflict with "ouroboros"[\s\S]*\.data\.Corefile/);
    assert.equal(
      await corefile(),
      written,
      "the refused apply changed nothing",
    );

    // A removed hostname stops answering once CoreDNS reloads the edit.
    await stack.kubectlOk(["delete", "ingress", "-n", "default", "shop"]);
    await controller.explain(() =>
      waitFor("shop.example.com to stop answering the proxy", async () => {
        const now = await answer(coredns.address, "shop.example.com");
        return now !== mainIp ? now : undefined;
      }, { timeoutMs: 30_000, intervalMs: 250 })
    );
    assert.equal(
      await answer(coredns.address, "edge.example.net"),
      edgeIp,
      "the other release's block stays",
    );
    assert.deepEqual(coredns.configErrors(), [], "CoreDNS refused a Corefile the controllers wrote");
    assert.ok(coredns.volume.writes() >= 3, "the kubelet-style copy saw the seed and the edits");

    // Uninstall: the chart's pre-delete Job, as rendered, as its own ServiceAccount under the chart's
    // RBAC (issue 31: ouroboros controller --cleanup, no script). The controller is stopped first, as
    // its quiesce would (it runs here as a process, so there is no Deployment to scale).
    await stack.apply([ingressManifest({
      namespace: "default",
      name: "again",
      tls: { hosts: ["again.example.com"], secretName: "again-tls" },
      ruleHosts: ["again.example.com"],
      service: { name: "again", port: 80 },
    })]);
    await controller.explain(() =>
      waitFor(
        "again.example.com to answer the proxy",
        async () => await answer(coredns.address, "again.example.com") === mainIp,
        { timeoutMs: 30_000, intervalMs: 250 },
      )
    );
    controller.kill();
    await controller.status;
    const hook = await chartLaunch(stack, main, {
      workload: "ouroboros-coredns-cleanup",
      container: "cleanup",
    });
    const cleanup = await runOuroboros(["controller", ...hook.args], { env: hook.env });
    assert.equal(cleanup.code, 0, cleanup.stderr);
    await waitFor("again.example.com to stop answering once CoreDNS reloads", async () => {
      const now = await answer(coredns.address, "again.example.com");
      return now !== mainIp ? now : undefined;
    }, { timeoutMs: 30_000, intervalMs: 250 });
    const left = await corefile();
    assert.ok(!left.includes("# === BEGIN ouroboros (do not edit by hand) ==="), left);
    assert.ok(
      left.includes("# === BEGIN ouroboros edge (do not edit by hand) ==="),
      "the other release's block stays",
    );
    assert.equal(await answer(coredns.address, "edge.example.net"), edgeIp);
    const hookUser = stack.identity("ouroboros", "ouroboros-coredns-cleanup").user;
    assert.deepEqual(
      forbidden(await stack.audited(), hookUser).map(describeRequest),
      [],
      "the cleanup hook was refused nothing",
    );
    assert.deepEqual(coredns.configErrors(), []);
    edgeController.kill();
  } catch (error) {
    stack.keep();
    throw error;
  }
});
