/**
 * The cluster `deno task bench:controller` measures against: kubeadm's CoreDNS ConfigMap and
 * Ingresses of about 1.3 KiB (two TLS hosts, a 400-byte annotation), and the bookkeeping the
 * measurements need (which hostnames the Corefile should name, which writes reached the CoreDNS
 * ConfigMap and when). {@linkcode BenchCluster} is what a run needs of an API server;
 * {@linkcode fakeCluster} is the fake one in this process, whose audit log times each write as
 * its request arrives (`controller_real_cluster.ts` is the real one).
 *
 * Decisions: a cluster grows (`grow`) rather than being made anew for each size, so the real
 * API server is started and loaded once for both sizes; the Ingresses created for the smaller
 * size are the first ones of the larger.
 *
 * Hostnames are short on purpose. One `rewrite name <host> <target>` line per host must fit in
 * a ConfigMap (1 MiB): with a 44-character target such as
 * `ouroboros-proxy.ouroboros.svc.cluster.local.`, 20,000 lines take over 1.2 MiB before the
 * hostnames themselves, and the controller rightly refuses that write. So the benchmark uses
 * the target {@linkcode BENCH_FQDN} and hostnames like `a1234.io`, about 51 bytes a line.
 *
 * @module
 */

import { type AuditEntry, type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";
import { shopIngress } from "../support/ingress_manifest.ts";
import { blockHostsOf } from "./controller_stats.ts";

/** Bearer token the fake API server requires of both the controller and the peer. */
export const BENCH_TOKEN = "bench-controller-token";
/** The rewrite target: Service `o` in namespace `o`, short so 20,000 lines fit in 1 MiB. */
export const BENCH_FQDN = "o.o.svc.cluster.local.";
/** Where the CoreDNS ConfigMap lives. */
export const COREDNS = { namespace: "kube-system", name: "coredns", key: "Corefile" } as const;
const COREDNS_PATH = `/api/v1/namespaces/${COREDNS.namespace}/configmaps/${COREDNS.name}`;

/** The size of the one annotation (besides cert-manager's and nginx's) each Ingress carries. */
export const ANNOTATION_BYTES = 400;

/** The TLS hostnames Ingress `i` starts with. */
export function initialHosts(i: number): string[] {
  return [`a${i}.io`, `b${i}.io`];
}

/**
 * Ingress `i` with the given TLS hosts, shaped like a real one (labels, cert-manager and nginx
 * annotations, a rule with a backend) so the API traffic has a realistic size, about 1.3 KiB.
 * `statusIp` sets `status.loadBalancer`, which is what an ingress controller keeps updating.
 */
export function benchIngress(
  i: number,
  hosts: readonly string[],
  statusIp = "192.0.2.1",
): Record<string, unknown> {
  return shopIngress(i, {
    tlsHosts: hosts,
    ruleHosts: hosts,
    annotations: { "bench/padding": "x".repeat(ANNOTATION_BYTES) },
    statusIp,
  });
}

/** The Ingresses' TLS hosts as the benchmark set them, to know what the Corefile should name. */
export class HostModel {
  readonly #hosts = new Map<number, readonly string[]>();

  /** Records Ingress `i`'s hosts. */
  set(i: number, hosts: readonly string[]): void {
    this.#hosts.set(i, hosts);
  }

  /** Ingress `i`'s hosts. */
  get(i: number): readonly string[] {
    return this.#hosts.get(i) ?? [];
  }

  /** How many Ingresses it holds. */
  get size(): number {
    return this.#hosts.size;
  }

  /** Every host, sorted and de-duplicated. */
  all(): string[] {
    return [...new Set([...this.#hosts.values()].flat())].sort();
  }
}

/** kubeadm's CoreDNS ConfigMap, as the clusters start with. */
export function corednsConfigMap(): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: COREDNS.namespace, name: COREDNS.name },
    data: { [COREDNS.key]: KUBEADM },
  };
}

/** Creates the CoreDNS ConfigMap (kubeadm's Corefile) and `count` Ingresses; returns their hosts. */
export function seed(server: FakeApiServer, count: number): HostModel {
  server.create(corednsConfigMap());
  const model = new HostModel();
  for (let i = 0; i < count; i++) {
    const hosts = initialHosts(i);
    server.create(benchIngress(i, hosts));
    model.set(i, hosts);
  }
  return model;
}

/** One write to the CoreDNS ConfigMap as a cluster saw it. */
export interface CorefileWrite {
  /** `Date.now()` when it was seen (the fake: its request arrived; the real: its watch event came). */
  readonly at: number;
}

/** What a benchmark run needs of an API server holding the CoreDNS ConfigMap and the Ingresses. */
export interface BenchCluster extends AsyncDisposable {
  /** Said in the report: which API server, and how its write times are taken. */
  readonly name: string;
  /** A kubeconfig file for the controller. */
  readonly kubeconfig: string;
  /** The Ingresses' hosts as the benchmark set them. */
  readonly model: HostModel;
  /** Creates Ingresses until there are `count` (the first `count` of {@linkcode benchIngress}). */
  grow(count: number): Promise<void>;
  /** Replaces Ingress `i` (its TLS and rule hosts `hosts`) and records them in the model. */
  change(i: number, hosts: readonly string[]): Promise<void>;
  /** Every write to the CoreDNS ConfigMap seen so far, oldest first. */
  writes(): readonly CorefileWrite[];
  /** The Corefile as last written (or as seeded). */
  corefile(): string;
  /** Puts kubeadm's Corefile back, as before any controller ran. */
  resetCorefile(): Promise<void>;
  /** The fake API server, for what only it can do at speed (the status churn); absent for a real one. */
  readonly fake?: FakeApiServer;
}

/** The fake API server in this process as a {@linkcode BenchCluster}. */
export async function fakeCluster(dir: string): Promise<BenchCluster> {
  const server = await startFakeApiServer({ token: BENCH_TOKEN, bookmarkIntervalMs: 0 });
  const model = seed(server, 0);
  const kubeconfig = await writeKubeconfig(`${dir}/kubeconfig-fake`, {
    server: server.url,
    token: BENCH_TOKEN,
    name: "bench",
    user: "bench",
  });
  return {
    name: "fake API server (in this process; write times: its audit log, as each PATCH arrives)",
    kubeconfig,
    model,
    fake: server,
    grow(count) {
      for (let i = model.size; i < count; i++) {
        const hosts = initialHosts(i);
        server.create(benchIngress(i, hosts));
        model.set(i, hosts);
      }
      return Promise.resolve();
    },
    change(i, hosts) {
      server.update(benchIngress(i, hosts));
      model.set(i, hosts);
      return Promise.resolve();
    },
    writes: () => corednsWrites(server.audit),
    corefile: () => storedCorefile(server),
    resetCorefile() {
      resetCorefile(server);
      return Promise.resolve();
    },
    [Symbol.asyncDispose]: () => server[Symbol.asyncDispose](),
  };
}

/** Puts kubeadm's Corefile back, as before any controller ran. */
export function resetCorefile(server: FakeApiServer): void {
  const current = server.get("v1", "ConfigMap", COREDNS.namespace, COREDNS.name);
  if (current === undefined) throw new Error("the CoreDNS ConfigMap is gone");
  server.update({ ...current, data: { [COREDNS.key]: KUBEADM } });
}

/** The stored Corefile. */
export function storedCorefile(server: FakeApiServer): string {
  const configMap = server.get("v1", "ConfigMap", COREDNS.namespace, COREDNS.name);
  return ((configMap?.data ?? {}) as Record<string, string>)[COREDNS.key] ?? "";
}

/** Whether the stored Corefile's block names exactly `hosts` (sorted). */
export function corefileNames(server: FakeApiServer, hosts: readonly string[]): boolean {
  const named = blockHostsOf(storedCorefile(server));
  if (named.length !== hosts.length) return false;
  const sorted = [...named].sort();
  return sorted.every((host, i) => host === hosts[i]);
}

/** Successful writes to the CoreDNS ConfigMap in the audit log from index `from` on. */
export function corednsWrites(audit: readonly AuditEntry[], from = 0): AuditEntry[] {
  const writes: AuditEntry[] = [];
  for (let i = from; i < audit.length; i++) {
    const entry = audit[i];
    if (entry === undefined) continue;
    if (entry.method === "GET" || entry.path !== COREDNS_PATH) continue;
    if (entry.status >= 200 && entry.status < 300) writes.push(entry);
  }
  return writes;
}
