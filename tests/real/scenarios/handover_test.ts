/**
 * Scenario 10 of the real-component suite: the graceful hand-over (reliability matrix T-7.6,
 * issue 31) on the real Lease API, twenty times. Three controller replicas run as the chart runs
 * them (its arguments and RBAC, a 60 s lease and a 20 s retry period); the leader gets SIGTERM,
 * releases the Lease, and one of the others, watching it, must hold it within 15 s, less than a
 * retry period, so a release that was refused, skipped or not seen fails the round. The stopped
 * replica comes back as a new follower, as a rollout's next pod would. After the twenty rounds the
 * leader still writes an Ingress change.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { type ControllerProcess, startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { leaseHolder } from "../lease_holder.ts";
import { startStack } from "../stack.ts";

const LEASE = "ouroboros-controller";
const ROUNDS = 20;

Deno.test("real: SIGTERM hand-over — twenty times, three replicas; the lease moves at once each time", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: [
        "controller.replicaCount=3",
        "controller.leaderElection.enabled=true",
        "controller.leaderElection.leaseDuration=60s",
        "controller.leaderElection.renewDeadline=30s",
        "controller.leaderElection.retryPeriod=20s",
      ],
    }],
  });
  const release = releaseNamed(stack, "ouroboros");
  await stack.apply([
    ...renderedOfKind(release, "Service"),
    {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: "kube-system" },
      data: { Corefile: ".:53 {\n    forward . /etc/resolv.conf\n}\n" },
    },
  ]);
  const kubeconfig = await stack.kubeconfig("ouroboros", "ouroboros");
  const launch = await chartLaunch(stack, release, {
    workload: "ouroboros",
    container: "controller",
    overrides: [`--kubeconfig=${kubeconfig}`],
  });
  const start = (name: string) => startController(launch.args, { env: { ...launch.env, HOSTNAME: name } });
  const holder = () => leaseHolder(stack, "ouroboros", LEASE);
  const running = new Map<string, ControllerProcess>();
  try {
    for (const name of ["replica-1", "replica-2", "replica-3"]) running.set(name, await start(name));
    let spare = "replica-4";
    for (let round = 1; round <= ROUNDS; round++) {
      const leader = await waitFor(`round ${round}: a leader`, async () => {
        const name = await holder();
        return running.has(name) ? name : undefined;
      }, { timeoutMs: 60_000, intervalMs: 100 });
      const stopping = running.get(leader)!;
      stopping.kill("SIGTERM");
      await stopping.explain(() =>
        waitFor(`round ${round}: another replica to hold the lease after ${leader}'s SIGTERM`, async () => {
          const name = await holder();
          return name !== leader && running.has(name) ? name : undefined;
        }, { timeoutMs: 15_000, intervalMs: 50 })
      );
      assert.equal((await stopping.status).code, 0, `round ${round}: ${leader} exits 0`);
      assert.ok(
        stopping.logs.some((line) => line.msg === "leadership released"),
        `round ${round}: ${leader} released the lease`,
      );
      running.delete(leader);
      await stopping[Symbol.asyncDispose]();
      running.set(spare, await start(spare));
      spare = leader;
    }
    await stack.apply([ingressManifest({
      namespace: "default",
      name: "shop",
      tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
      ruleHosts: ["shop.example.com"],
      service: { name: "shop", port: 80 },
    })]);
    await waitFor("the last leader to write the Corefile", async () => {
      const response = await stack.plane.request("/api/v1/namespaces/kube-system/configmaps/coredns");
      const corefile = (await response.json() as { data?: { Corefile?: string } }).data?.Corefile ?? "";
      return corefile.includes("rewrite name shop.example.com ");
    }, { timeoutMs: 60_000, intervalMs: 200 });
  } catch (error) {
    stack.keep();
    throw error;
  } finally {
    for (const process of running.values()) await process[Symbol.asyncDispose]();
  }
});
