/**
 * Scenario 5 of the real-component suite: leader election on the real Lease API. Three
 * controller replicas (the chart's flags, the chart's RBAC, each with its own token of the one
 * ServiceAccount and its own path to the apiserver) follow Ingress changes while the leader is
 * paused (SIGSTOP, with a change waiting for it when it wakes), killed (SIGKILL), and cut off from
 * the apiserver (a partition of its connections). After each fault another replica must take
 * over and write the change; and the apiserver's own record of writes (its audit log) must show
 * one writer at any time: every Corefile write from the replica whose Lease write was the latest
 * before it.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { type ControllerProcess, startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { type CuttableRelay, startRelay } from "../cuttable_relay.ts";
import { kubeconfigFor } from "../identities.ts";
import type { AuditedRequest } from "../rbac_usage.ts";
import { guardedWriters, writesOutsideLeadership } from "../single_writer.ts";
import { leaseHolder } from "../lease_holder.ts";
import { type Stack, startStack } from "../stack.ts";

const REPLICAS = 3;
const LEASE = "ouroboros-controller";

const COREFILE = `.:53 {
    errors
    forward . /etc/resolv.conf
    reload
}
`;

const RULES = {
  isGuardedWrite: (request: AuditedRequest) =>
    request.user === "system:serviceaccount:ouroboros:ouroboros" && request.verb === "patch" &&
    request.resource === "configmaps" && request.name === "coredns",
  isLeaseWrite: (request: AuditedRequest) =>
    request.resource === "leases" && request.name === LEASE &&
    (request.verb === "update" || request.verb === "create"),
};

interface Replica {
  readonly index: number;
  readonly relay: CuttableRelay;
  readonly process: ControllerProcess;
}

/** The replica named in the Lease's holderIdentity (`replica-<n>_<suffix>`), once someone holds it. */
async function holder(stack: Stack): Promise<number | undefined> {
  const match = /^replica-(\d+)$/.exec(await leaseHolder(stack, "ouroboros", LEASE));
  return match === null ? undefined : Number(match[1]);
}

Deno.test("real: leader election — SIGSTOP, SIGKILL and a partition of the leader; one writer at any time", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: [
        "controller.replicaCount=3",
        "controller.leaderElection.enabled=true",
        "controller.leaderElection.leaseDuration=4s",
        "controller.leaderElection.renewDeadline=3s",
        "controller.leaderElection.retryPeriod=1s",
      ],
    }],
    replicas: [{ namespace: "ouroboros", name: "ouroboros", count: REPLICAS }],
  });
  const replicas: Replica[] = [];
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply([
      ...renderedOfKind(release, "Service"),
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "coredns", namespace: "kube-system" },
        data: { Corefile: COREFILE },
      },
    ]);
    const apiPort = Number(new URL(stack.plane.server).port);
    for (let index = 1; index <= REPLICAS; index++) {
      const relay = startRelay({ hostname: "127.0.0.1", port: apiPort });
      const kubeconfig = `${stack.dir}/replica-${index}.kubeconfig`;
      await Deno.writeTextFile(
        kubeconfig,
        kubeconfigFor(
          { server: `https://127.0.0.1:${relay.port}`, caPem: stack.plane.pki.caPem },
          stack.identity("ouroboros", `ouroboros@${index}`),
          "ouroboros",
        ),
      );
      const launch = await chartLaunch(stack, release, {
        workload: "ouroboros",
        container: "controller",
        overrides: [`--kubeconfig=${kubeconfig}`],
      });
      const process = await startController(launch.args, {
        env: { ...launch.env, HOSTNAME: `replica-${index}` },
      });
      replicas.push({ index, relay, process });
    }

    let step = 0;
    /** Makes an Ingress change and waits until the Corefile holds it. */
    const change = async (why: string) => {
      step++;
      const host = `step-${step}.example.com`;
      await stack.apply([ingressManifest({
        namespace: "default",
        name: "shop",
        tls: { hosts: [host], secretName: "shop-tls" },
        ruleHosts: [host],
        service: { name: "shop", port: 80 },
      })]);
      await waitFor(`${why}: the Corefile to hold ${host}`, async () => {
        const response = await stack.plane.request("/api/v1/namespaces/kube-system/configmaps/coredns");
        const corefile = (await response.json() as { data?: { Corefile?: string } }).data?.Corefile ?? "";
        return corefile.includes(`rewrite name ${host} `);
      }, { timeoutMs: 45_000, intervalMs: 200 });
    };
    const leader = async (why: string, not?: number) =>
      await waitFor(`${why}: a leader${not === undefined ? "" : ` other than replica-${not}`}`, async () => {
        const index = await holder(stack);
        return index !== undefined && index !== not ? index : undefined;
      }, { timeoutMs: 45_000, intervalMs: 200 });
    const replica = (index: number) => replicas[index - 1]!;

    const first = await leader("start-up");
    await change("the first leader");

    // SIGSTOP: a change arrives while the leader sleeps; another replica takes over and writes it.
    // The sleeper wakes with that change pending and must not write it: its lease has lapsed.
    replica(first).process.kill("SIGSTOP");
    const afterStop = await leader("after SIGSTOP of the leader", first);
    await change("the replica that took over from the paused leader");
    replica(first).process.kill("SIGCONT");
    await change("after the paused leader woke");

    // SIGKILL: the leader is gone without releasing; another takes over after the lease lapses.
    const killed = await holder(stack) ?? afterStop;
    replica(killed).process.kill("SIGKILL");
    await replica(killed).process.status;
    const afterKill = await leader("after SIGKILL of the leader", killed);
    await change("the replica that took over from the killed leader");

    // A partition: the leader's connections are cut and refused; another takes over; healed, the
    // old leader comes back as a follower.
    replica(afterKill).relay.cut();
    await leader("after the leader was partitioned", afterKill);
    await change("the replica that took over from the partitioned leader");
    replica(afterKill).relay.heal();
    await change("after the partition healed");

    for (const { process } of replicas) process.kill("SIGTERM");
    for (const { process } of replicas) await process.status;

    const requests = await stack.audited();
    const violations = writesOutsideLeadership(requests, RULES);
    assert.deepEqual(
      violations.map(({ write, leaseHolder }) =>
        `${write.received} ${write.uid} wrote while the Lease's last writer was ${leaseHolder ?? "nobody"}`
      ),
      [],
      "Corefile writes outside leadership",
    );
    assert.ok(guardedWriters(requests, RULES).length >= 3, "leadership moved at each fault: three writers");
  } catch (error) {
    stack.keep();
    throw error;
  } finally {
    for (const { process, relay } of replicas) {
      process.kill("SIGCONT");
      process.kill("SIGKILL");
      await process.status;
      await relay[Symbol.asyncDispose]();
    }
  }
});
