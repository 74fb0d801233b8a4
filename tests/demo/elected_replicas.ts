/**
 * The demo's high-availability part: controller replicas with `--leader-elect`, each running as
 * its own API user (so the API server's audit log says who wrote) and its own pod name
 * (`HOSTNAME`, the first half of its Lease identity), and what an operator reads to see who
 * leads: the Lease's holder and the audit log.
 *
 * Durations are scaled down from client-go's 15 s / 10 s / 2 s so that a failover after a SIGKILL
 * takes seconds, not a quarter of a minute; the ratios between them keep the start-up checks'
 * rule (lease > renew > 1.2 × retry).
 *
 * Effects: starts child processes; the readers are pure over the fake API server's state.
 *
 * @module
 */

import type { Cluster } from "../controller/cluster_fixture.ts";
import type { AuditEntry } from "../support/fake_apiserver/mod.ts";
import { type ControllerProcess, startController } from "../support/ouroboros_process.ts";

/** The Lease the replicas compete for. */
export const LEASE = { namespace: "ouroboros", name: "ouroboros-controller" } as const;

/** The demo's election durations, in seconds. */
export const TIMING = { lease: 3, renew: 2, retry: 0.5 } as const;

/** The election flags every replica gets, durations included. */
export const ELECTION_FLAGS: readonly string[] = [
  "--leader-elect",
  `--leader-election-namespace=${LEASE.namespace}`,
  `--leader-election-id=${LEASE.name}`,
  `--leader-election-lease-duration=${TIMING.lease}s`,
  `--leader-election-renew-deadline=${TIMING.renew}s`,
  `--leader-election-retry-period=${TIMING.retry * 1000}ms`,
];

/** A running replica and how far the demo has printed its log. */
export interface Replica {
  /** Its API user and pod name. */
  readonly user: string;
  readonly process: ControllerProcess;
  /** Log lines already printed. */
  printed: number;
}

/** Starts one `--mode=coredns --leader-elect` replica as API user `user` with `HOSTNAME=user`. */
export async function startReplica(cluster: Cluster, user: string): Promise<Replica> {
  const process = await startController(
    [...cluster.flagsFor(user), "--mode=coredns", ...ELECTION_FLAGS],
    { env: { HOSTNAME: user } },
  );
  return { user, process, printed: 0 };
}

/** The Lease's holder identity (`<pod>_<random>`); `""` when nobody holds it. */
export function leaseHolder(cluster: Cluster): string {
  const lease = cluster.server.get("coordination.k8s.io/v1", "Lease", LEASE.namespace, LEASE.name);
  return String((lease?.spec as Record<string, unknown> | undefined)?.holderIdentity ?? "");
}

/** The pod-name part of a Lease identity. */
export function podOf(identity: string): string {
  return identity.split("_")[0] ?? "";
}

/** Successful ConfigMap writes by `user` that arrived at or after `since` (`Date.now()` time). */
export function writesBy(cluster: Cluster, user: string, since = 0): AuditEntry[] {
  return cluster.configMapWrites().filter((entry) => entry.user === user && entry.at >= since);
}
