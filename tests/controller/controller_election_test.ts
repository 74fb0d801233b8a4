/**
 * Leader election with real processes: two or three `ouroboros controller --leader-elect`
 * replicas against one fake API server, each with its own API user so the audit log says who
 * wrote what. Reliability matrix rows T-7.2 (race), T-7.3 (partition), T-7.4 and T-7.7 (a paused
 * leader with a stale cache), T-7.6 (hand-over on SIGTERM, once and twenty times over), T-7.8 (followers ready), T-2.21 (no
 * write without leadership). Durations are scaled down (lease 3 s, renew 2 s, retry 0.5 s) so a
 * failover takes seconds; waits are polls with deadlines, never sleeps.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type Cluster, startCluster } from "./cluster_fixture.ts";
import { leaderThenFollower, type Replicas } from "../election/election_fixture.ts";
import { type ControllerProcess, runOuroboros, startController } from "../support/ouroboros_process.ts";
import { metric } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";

const LEASE_NAMESPACE = "ouroboros";
const LEASE_NAME = "ouroboros-controller";
const FAST = [
  "--leader-election-lease-duration=3s",
  "--leader-election-renew-deadline=2s",
  "--leader-election-retry-period=500ms",
];

function replica(
  cluster: Cluster,
  user: string,
  timing: readonly string[] = FAST,
): Promise<ControllerProcess> {
  return startController([
    ...cluster.flagsFor(user),
    "--leader-elect",
    `--leader-election-namespace=${LEASE_NAMESPACE}`,
    `--leader-election-id=${LEASE_NAME}`,
    ...timing,
    "--resync=10m",
  ], { env: { HOSTNAME: user } });
}

/** The pod-name part of the Lease's holder (`""`: nobody). */
function holder(cluster: Cluster): string {
  const lease = cluster.server.get("coordination.k8s.io/v1", "Lease", LEASE_NAMESPACE, LEASE_NAME);
  const identity = String((lease?.spec as Record<string, unknown> | undefined)?.holderIdentity ?? "");
  return identity.split("_")[0] ?? "";
}

/** Successful ConfigMap writes by `user` at or after `since` (Date.now()). */
function configMapWritesBy(cluster: Cluster, user: string, since = 0) {
  return cluster.configMapWrites().filter((entry) => entry.user === user && entry.at >= since);
}

function waitForHosts(cluster: Cluster, hosts: readonly string[], timeoutMs = 20_000) {
  const expected = JSON.stringify(hosts);
  return waitFor(
    `the Corefile block to hold ${expected}`,
    () => JSON.stringify(cluster.blockHosts()) === expected,
    {
      timeoutMs,
    },
  );
}

function waitForLeader(cluster: Cluster, among: readonly string[], timeoutMs = 20_000): Promise<string> {
  return waitFor(`one of ${among.join(", ")} to hold the lease`, () => {
    const now = holder(cluster);
    return among.includes(now) ? now : undefined;
  }, { timeoutMs });
}

/**
 * Replica `a` leads and has written `shop.example.com` (an Ingress the caller created), then `b`
 * follows it.
 */
function leadingWithShop(cluster: Cluster): Promise<Replicas<ControllerProcess>> {
  return leaderThenFollower((user) => replica(cluster, user), async () => {
    await waitForLeader(cluster, ["a"]);
    await waitForHosts(cluster, ["shop.example.com"]);
  });
}

Deno.test("T-7.2, T-7.8: three replicas race; exactly one leads and writes, the followers are ready and never write", async () => {
  await using cluster = await startCluster({ users: ["a", "b", "c"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  const replicas = await Promise.all(["a", "b", "c"].map((user) => replica(cluster, user)));
  try {
    const leader = await waitForLeader(cluster, ["a", "b", "c"]);
    await waitForHosts(cluster, ["shop.example.com"]);
    const byUser = new Map(replicas.map((process, i) => [["a", "b", "c"][i]!, process]));
    for (const [user, process] of byUser) {
      await waitFor(
        `/readyz of ${user} to answer 200`,
        async () => (await process.healthGet("/readyz")).status === 200,
      );
      const leading = await metric(process, ["ouroboros_leader", {}]);
      assert.equal(leading, user === leader ? 1 : 0, `ouroboros_leader of ${user}`);
      const acquired = await metric(process, ["ouroboros_leader_transitions_total", { change: "acquired" }]);
      assert.equal(acquired, user === leader ? 1 : 0);
      assert.equal(process.starting.leaderElection, `${LEASE_NAMESPACE}/${LEASE_NAME}`);
    }
    cluster.ingress("blog/site", { tls: ["blog.example.com"] });
    await waitForHosts(cluster, ["blog.example.com", "shop.example.com"]);
    for (const user of ["a", "b", "c"]) {
      const writes = configMapWritesBy(cluster, user).length;
      if (user === leader) assert.ok(writes >= 2, `the leader ${user} wrote ${writes} times`);
      else assert.equal(writes, 0, `follower ${user} wrote the ConfigMap`);
    }
    const followers = replicas.filter((_, i) => ["a", "b", "c"][i] !== leader);
    for (const follower of followers) {
      const line = await follower.waitForLog(
        "a follower saying who leads",
        (entry) => entry.msg.startsWith("following the leader"),
      );
      assert.ok(String(line.leader).startsWith(`${leader}_`));
    }
  } finally {
    for (const process of replicas) await process[Symbol.asyncDispose]();
  }
});

Deno.test("T-7.6: SIGTERM on the leader releases the lease; the follower, watching it, takes over at once", async () => {
  await using cluster = await startCluster({ users: ["a", "b"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  // A 60 s lease and a 20 s retry period: without the release the follower would wait a minute,
  // and without its watch on the Lease it would notice the release only at its next retry (20 s
  // or more). The deadline below is well under both.
  const slow = [
    "--leader-election-lease-duration=60s",
    "--leader-election-renew-deadline=30s",
    "--leader-election-retry-period=20s",
  ];
  await using replicas = await leaderThenFollower(
    (user) => replica(cluster, user, slow),
    () => waitForLeader(cluster, ["a"]),
  );
  const { a } = replicas;
  a.kill("SIGTERM");
  const status = await a.status;
  assert.equal(status.code, 0);
  assert.ok(a.logs.some((line) => line.msg === "leadership released"));
  await waitForLeader(cluster, ["b"], 8_000);
  cluster.ingress("blog/site", { tls: ["blog.example.com"] });
  await waitForHosts(cluster, ["blog.example.com", "shop.example.com"]);
  assert.ok(configMapWritesBy(cluster, "b").length >= 1);
});

Deno.test("T-7.6, twenty times: with three replicas, each SIGTERM of the leader hands the lease over at once", async () => {
  const users = ["a", "b", "c", "d"];
  await using cluster = await startCluster({ users });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  // A 60 s lease and a 20 s retry period: a hand-over that missed the release (refused, skipped or
  // not seen) would take a retry period at least, longer than each wait below.
  const slow = [
    "--leader-election-lease-duration=60s",
    "--leader-election-renew-deadline=30s",
    "--leader-election-retry-period=20s",
  ];
  const running = new Map<string, ControllerProcess>();
  try {
    for (const user of ["a", "b", "c"]) running.set(user, await replica(cluster, user, slow));
    let spare = "d";
    for (let round = 1; round <= 20; round++) {
      const leader = await waitForLeader(cluster, [...running.keys()]);
      const stopping = running.get(leader)!;
      stopping.kill("SIGTERM");
      const others = [...running.keys()].filter((user) => user !== leader);
      await stopping.explain(() => waitForLeader(cluster, others, 10_000));
      assert.equal((await stopping.status).code, 0, `round ${round}: ${leader} exits 0`);
      assert.ok(
        stopping.logs.some((line) => line.msg === "leadership released"),
        `round ${round}: ${leader} released the lease`,
      );
      running.delete(leader);
      await stopping[Symbol.asyncDispose]();
      // The stopped replica's name comes back as a new follower, as a rollout's next pod would.
      running.set(spare, await replica(cluster, spare, slow));
      spare = leader;
    }
    cluster.ingress("blog/site", { tls: ["blog.example.com"] });
    await waitForHosts(cluster, ["blog.example.com", "shop.example.com"]);
  } finally {
    for (const process of running.values()) await process[Symbol.asyncDispose]();
  }
});

Deno.test("failover on SIGKILL: the follower takes over after the lease duration and writes what changed meanwhile", async () => {
  await using cluster = await startCluster({ users: ["a", "b"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  await using replicas = await leadingWithShop(cluster);
  const { a, b } = replicas;
  a.kill("SIGKILL");
  await a.status;
  cluster.ingress("blog/site", { tls: ["blog.example.com"] });
  await waitForLeader(cluster, ["b"]);
  await waitForHosts(cluster, ["blog.example.com", "shop.example.com"]);
  const acquired = await b.waitForLog(
    "b's leadership line",
    (line) => line.msg.startsWith("leadership acquired"),
  );
  assert.equal(acquired.level, "INFO");
});

Deno.test("T-7.3: a partitioned leader stops writing; the follower takes over; healed, the old leader stands by and never writes", async () => {
  await using cluster = await startCluster({ users: ["a", "b"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  await using replicas = await leadingWithShop(cluster);
  const { a } = replicas;
  const partitionedAt = Date.now();
  cluster.server.partition("a");
  cluster.ingress("blog/site", { tls: ["blog.example.com"] });
  await waitForLeader(cluster, ["b"]);
  await waitForHosts(cluster, ["blog.example.com", "shop.example.com"]);
  await a.waitForLog("a saying it lost leadership", (line) => line.msg.startsWith("leadership lost"));
  cluster.server.heal("a");
  cluster.ingress("docs/site", { tls: ["docs.example.com"] });
  await waitForHosts(cluster, ["blog.example.com", "docs.example.com", "shop.example.com"]);
  await a.waitForLog(
    "a following b",
    (line) => line.msg.startsWith("following the leader") && String(line.leader).startsWith("b_"),
  );
  assert.deepEqual(
    configMapWritesBy(cluster, "a", partitionedAt),
    [],
    "the old leader wrote after the partition",
  );
  assert.equal(await metric(a, ["ouroboros_leader", {}]), 0);
});

Deno.test("T-7.4, T-7.7: a paused leader (SIGSTOP past the lease) does not write from its stale view when resumed; the final Corefile is the current desired set", async () => {
  await using cluster = await startCluster({ users: ["a", "b"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  await using replicas = await leadingWithShop(cluster);
  const { a } = replicas;
  const stoppedAt = Date.now();
  a.kill("SIGSTOP");
  try {
    // While A sleeps, the world moves on: its cache goes stale.
    cluster.deleteIngress("shop/web");
    cluster.ingress("blog/site", { tls: ["blog.example.com"] });
    await waitForLeader(cluster, ["b"]);
    await waitForHosts(cluster, ["blog.example.com"]);
  } finally {
    a.kill("SIGCONT");
  }
  await a.waitForLog("a saying it lost leadership", (line) => line.msg.startsWith("leadership lost"));
  // Another change proves B still leads and A has caught up without writing.
  cluster.ingress("docs/site", { tls: ["docs.example.com"] });
  await waitForHosts(cluster, ["blog.example.com", "docs.example.com"]);
  assert.deepEqual(
    configMapWritesBy(cluster, "a", stoppedAt),
    [],
    "the resumed leader wrote from its stale view",
  );
});

Deno.test("T-7.1: election durations that cannot work are refused at start-up with exit status 2", async () => {
  const { code, stderr } = await runOuroboros([
    "controller",
    "--kubeconfig=/nonexistent",
    "--proxy-fqdn=ouroboros-proxy.ouroboros.svc.cluster.local.",
    "--leader-elect",
    "--leader-election-namespace=ouroboros",
    "--leader-election-lease-duration=10s",
    "--leader-election-renew-deadline=10s",
  ]);
  assert.equal(code, 2);
  assert.match(
    stderr,
    /--leader-election-lease-duration \(10s\) must be longer than --leader-election-renew-deadline \(10s\)/,
  );
});
