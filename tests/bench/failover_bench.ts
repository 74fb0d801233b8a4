/**
 * `deno task bench:failover`: how long a cluster goes without a writer when the leading
 * controller replica dies.
 *
 * Method. The fake API server runs in this process with kubeadm's CoreDNS ConfigMap. Two
 * `ouroboros controller --leader-elect` replicas run as child processes with the production
 * permission set and the default durations (lease 15 s, renew deadline 10 s, retry 2 s), each with
 * its own API user so the audit log says who wrote. Each round: wait until one leads and the other
 * follows, SIGKILL the leader, change an Ingress at once, and measure from the kill to the arrival
 * (audit timestamp) of the first successful ConfigMap write by the survivor, the write that carries
 * the change. The killed replica is restarted as the next round's follower. Ten rounds by default;
 * the median and the spread are printed next to the floor client-go semantics impose: a follower
 * may take over only a full lease duration after it last saw the Lease change, and it notices at
 * its next jittered retry (up to 2.2 retry periods later).
 *
 * There is no peer to run against (no other Lease elector is available here); the reference is
 * that theoretical floor, and the ratio says how close to it we come.
 *
 * Flags: `--rounds=N` (default 10), `--quick` (3 rounds, lease 3 s, renew 2 s, retry 0.5 s).
 *
 * @module
 */

import { startCluster } from "../controller/cluster_fixture.ts";
import { type ControllerProcess, startController } from "../support/ouroboros_process.ts";
import { waitFor } from "../support/wait.ts";
import { percentile } from "./controller_stats.ts";

const quick = Deno.args.includes("--quick");
const roundsArg = Deno.args.find((arg) => arg.startsWith("--rounds="));
const unknown = Deno.args.filter((arg) => arg !== "--quick" && !arg.startsWith("--rounds="));
if (unknown.length > 0) {
  // deno-lint-ignore no-console
  console.error(
    `unknown arguments ${unknown.join(" ")}; usage: deno task bench:failover [--quick] [--rounds=N]`,
  );
  Deno.exit(2);
}
const rounds = roundsArg !== undefined ? Number(roundsArg.slice("--rounds=".length)) : quick ? 3 : 10;
const timing = quick ? { lease: 3, renew: 2, retry: 0.5 } : { lease: 15, renew: 10, retry: 2 };
const LEASE = { namespace: "ouroboros", name: "ouroboros-controller" };

function print(line: string): void {
  // deno-lint-ignore no-console
  console.log(line);
}

await using cluster = await startCluster({ users: ["a", "b"] });
cluster.ingress("bench/start", { tls: ["start.example.com"] });

function replica(user: string): Promise<ControllerProcess> {
  return startController([
    ...cluster.flagsFor(user),
    "--leader-elect",
    `--leader-election-namespace=${LEASE.namespace}`,
    `--leader-election-id=${LEASE.name}`,
    `--leader-election-lease-duration=${timing.lease}s`,
    `--leader-election-renew-deadline=${timing.renew}s`,
    `--leader-election-retry-period=${timing.retry * 1000}ms`,
  ], { env: { HOSTNAME: user } });
}

function holder(): string {
  const lease = cluster.server.get("coordination.k8s.io/v1", "Lease", LEASE.namespace, LEASE.name);
  const identity = String((lease?.spec as Record<string, unknown> | undefined)?.holderIdentity ?? "");
  return identity.split("_")[0] ?? "";
}

const processes = new Map<string, ControllerProcess>();
processes.set("a", await replica("a"));
await waitFor("a to lead", () => holder() === "a", { timeoutMs: 60_000 });
processes.set("b", await replica("b"));

const failovers: number[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const leader = holder();
    const follower = leader === "a" ? "b" : "a";
    await processes.get(follower)!.waitForLog(
      `${follower} following ${leader}`,
      (line) => line.msg.startsWith("following the leader") && String(line.leader).startsWith(`${leader}_`),
      60_000,
    );
    const host = `round-${round}.example.com`;
    const killedAt = Date.now();
    processes.get(leader)!.kill("SIGKILL");
    await processes.get(leader)!.status;
    cluster.ingress("bench/round", { tls: [host] });
    const write = await waitFor(
      `the first write by ${follower}`,
      () =>
        cluster.configMapWrites().find((entry) =>
          entry.user === follower && entry.at >= killedAt && cluster.blockHosts()?.includes(host)
        ),
      { timeoutMs: (timing.lease + 10 * timing.retry) * 1000 + 30_000 },
    );
    const seconds = (write.at - killedAt) / 1000;
    failovers.push(seconds);
    print(`round ${round}: ${leader} killed, ${follower} wrote after ${seconds.toFixed(2)} s`);
    processes.set(leader, await replica(leader));
  }
} finally {
  for (const process of processes.values()) await process[Symbol.asyncDispose]();
}

const sorted = [...failovers].sort((x, y) => x - y);
const median = percentile(sorted, 50);
const floor = timing.lease;
const ceiling = timing.lease + 2.2 * timing.retry;
print("");
print(
  `failover (SIGKILL of the leader → first write by the new leader), ${rounds} rounds, lease ${timing.lease} s, ` +
    `renew ${timing.renew} s, retry ${timing.retry} s:`,
);
print(`  median ${median.toFixed(2)} s, min ${sorted[0]!.toFixed(2)} s, max ${sorted.at(-1)!.toFixed(2)} s`);
print(
  `  client-go floor: lease duration ${floor} s to ${ceiling.toFixed(1)} s with the retry jitter; ` +
    `median / floor = ${(median / floor).toFixed(2)}`,
);
