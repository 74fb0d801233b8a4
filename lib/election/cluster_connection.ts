/**
 * How every long-running subcommand reaches the cluster, wired once: the kubeconfig or in-cluster
 * credentials, the API request metrics, and with leader election a Lease client of its own plus
 * an elector whose fence every write of the main client passes. It lives beside the elector
 * because the fence is the elector's.
 *
 * Effects: reads the credentials; builds clients (no request is sent until they are used).
 *
 * @module
 */

import { KubeClient } from "../kube/client.ts";
import type { ClusterConfig } from "../kube/config.ts";
import { loadKubeAccess } from "../kube/kube_access.ts";
import { KubeRequestMetrics } from "../kube/request_metrics.ts";
import { logger } from "../util/logging.ts";
import type { MetricsRegistry } from "../util/metrics.ts";
import { registerProcessMetrics, systemProcessSources } from "../util/process_metrics.ts";
import type { ElectionSettings } from "./election_options.ts";
import { LeaseElector } from "./lease_elector.ts";

/** What to connect with. */
export interface ClusterConnectionOptions {
  /** `--kubeconfig`; empty: in-cluster. */
  readonly kubeconfig: string;
  readonly env: (name: string) => string | undefined;
  /**
   * The Lease to elect on, and the name of this replica in it (a random suffix is added, so a
   * restarted pod never inherits the Lease); absent: no election, every write goes out.
   */
  readonly election?: { readonly lease: ElectionSettings; readonly identity: string };
  /** The main client's field manager; absent: the client's default. */
  readonly fieldManager?: string;
}

/** A subcommand's way to the cluster. */
export interface ClusterConnection {
  readonly access: ClusterConfig;
  /** The main client; with an elector, its writes pass the elector's fence. */
  readonly client: KubeClient;
  readonly elector: LeaseElector | undefined;
  /** Adds the process and API request families to a subcommand's `/metrics`. */
  registerMetrics(registry: MetricsRegistry): void;
  /** Closes both clients. */
  close(): void;
}

/** Connects as the options say. */
export async function connectToCluster(options: ClusterConnectionOptions): Promise<ClusterConnection> {
  const access = await loadKubeAccess(options.kubeconfig, options.env);
  const requests = new KubeRequestMetrics();
  const { election } = options;
  const leaseClient = election === undefined ? undefined : KubeClient.fromConfig(access, { requests });
  const elector = election === undefined || leaseClient === undefined ? undefined : new LeaseElector({
    api: leaseClient,
    lease: election.lease,
    identity: `${election.identity}_${crypto.randomUUID().slice(0, 8)}`,
    timing: election.lease.timing,
    log: logger("election"),
  });
  const client = KubeClient.fromConfig(access, {
    requests,
    ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
    ...(elector === undefined ? {} : { writeFence: (request: string) => elector.fence(request) }),
  });
  return {
    access,
    client,
    elector,
    registerMetrics(registry) {
      registerProcessMetrics(registry, systemProcessSources());
      requests.register(registry);
    },
    close() {
      client.close();
      leaseClient?.close();
    },
  };
}
