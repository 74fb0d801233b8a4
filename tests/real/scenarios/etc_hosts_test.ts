/**
 * etc-hosts mode against the real apiserver, as the chart runs it: the controller of the chart's
 * DaemonSet, as its ServiceAccount under the chart's RBAC (a ClusterRole and nothing else), with
 * its hosts file moved to the stack's folder. Its block in the file follows the Ingresses (a host
 * appears pointing at `etcHosts.proxyIP`, a deleted Ingress's host goes), the operator's lines
 * stay byte for byte, no request is refused and every grant is used but the Event ones (no
 * refusal here).
 *
 * @module
 */

import assert from "node:assert/strict";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed } from "../chart_workloads.ts";
import { CONTROLLER_EVENT_GRANTS, describeRequest, forbidden } from "../rbac_usage.ts";
import { startStack } from "../stack.ts";

/** The chart's required value in this mode: where the node's names point (the proxy's ClusterIP). */
const PROXY_IP = "10.96.0.50";
const OPERATOR_LINES = "127.0.0.1 localhost\n::1 localhost ip6-localhost\n10.0.0.5 db.internal\n";

Deno.test("real: etc-hosts mode — the chart's DaemonSet controller keeps its hosts-file block in step with the real apiserver, under least RBAC", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: ["controller.mode=etc-hosts", `etcHosts.proxyIP=${PROXY_IP}`],
    }],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    const hostsFile = `${stack.dir}/hosts`;
    await Deno.writeTextFile(hostsFile, OPERATOR_LINES);
    const launch = await chartLaunch(stack, release, {
      workload: "ouroboros-etc-hosts",
      container: "controller",
      overrides: [`--etc-hosts=${hostsFile}`],
    });
    assert.ok(launch.args.includes("--mode=etc-hosts"), `the chart's flags: ${launch.args.join(" ")}`);
    const controller = await startController(launch.args, { env: launch.env });
    const entries = async () =>
      (await Deno.readTextFile(hostsFile)).split("\n").filter((line) => line.startsWith(`${PROXY_IP} `));
    try {
      await stack.apply([
        ingressManifest({
          namespace: "shop",
          name: "shop",
          tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
          ruleHosts: ["shop.example.com"],
          service: { name: "shop", port: 80 },
        }),
        ingressManifest({
          namespace: "blog",
          name: "blog",
          tls: { hosts: ["blog.example.com"], secretName: "blog-tls" },
          ruleHosts: ["blog.example.com"],
          service: { name: "blog", port: 80 },
        }),
      ]);
      const until = (what: string, expected: readonly string[]) =>
        controller.explain(() =>
          waitFor(what, async () => JSON.stringify(await entries()) === JSON.stringify(expected), {
            timeoutMs: 30_000,
            intervalMs: 200,
          })
        );
      await until("both hosts in the block", [
        `${PROXY_IP} blog.example.com`,
        `${PROXY_IP} shop.example.com`,
      ]);
      assert.ok(
        (await Deno.readTextFile(hostsFile)).startsWith(OPERATOR_LINES),
        "the operator's lines are kept as they were",
      );

      await stack.kubectlOk(["delete", "ingress", "-n", "blog", "blog"]);
      await until("the deleted Ingress's host to go", [`${PROXY_IP} shop.example.com`]);
      assert.ok(
        (await Deno.readTextFile(hostsFile)).startsWith(OPERATOR_LINES),
        "the operator's lines again",
      );
    } finally {
      controller.kill("SIGTERM");
      await controller.status;
    }

    const identity = stack.identity("ouroboros", "ouroboros");
    assert.deepEqual(
      forbidden(await stack.audited(), identity.user).map(describeRequest),
      [],
      "refused requests",
    );
    assert.deepEqual(
      await stack.unusedGrants(identity, ["ouroboros", "default"]),
      CONTROLLER_EVENT_GRANTS,
      "grants the controller never used (Events waived: see CONTROLLER_EVENT_GRANTS)",
    );
  } catch (error) {
    stack.keep();
    throw error;
  }
});
