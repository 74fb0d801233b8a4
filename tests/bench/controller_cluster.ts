/**
 * The cluster `deno task bench:controller` measures against: the fake API server seeded with
 * kubeadm's CoreDNS ConfigMap and 10,000 Ingresses of about 1 KiB, and the bookkeeping the
 * measurements need (which hostnames the Corefile should name, which requests in the audit log
 * were writes to the CoreDNS ConfigMap).
 *
 * Hostnames are short on purpose. One `rewrite name <host> <target>` line per host must fit in
 * a ConfigMap (1 MiB): with a 44-character target such as
 * `ouroboros-proxy.ouroboros.svc.cluster.local.`, 20,000 lines take over 1.2 MiB before the
 * hostnames themselves, and the controller rightly refuses that write. So the benchmark uses
 * the target {@linkcode BENCH_FQDN} and hostnames like `a1234.io`, about 51 bytes a line.
 *
 * @module
 */

import type { AuditEntry, FakeApiServer } from "../support/fake_apiserver/mod.ts";
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

/** The TLS hostnames Ingress `i` starts with. */
export function initialHosts(i: number): string[] {
  return [`a${i}.io`, `b${i}.io`];
}

/**
 * Ingress `i` with the given TLS hosts, shaped like a real one (labels, cert-manager and nginx
 * annotations, a rule with a backend) so the API traffic has a realistic size, about 1 KiB.
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
    annotations: { "nginx.ingress.kubernetes.io/backend-protocol": "HTTP", "bench/padding": "x".repeat(240) },
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

  /** Every host, sorted and de-duplicated. */
  all(): string[] {
    return [...new Set([...this.#hosts.values()].flat())].sort();
  }
}

/** Creates the CoreDNS ConfigMap (kubeadm's Corefile) and `count` Ingresses; returns their hosts. */
export function seed(server: FakeApiServer, count: number): HostModel {
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: COREDNS.namespace, name: COREDNS.name },
    data: { [COREDNS.key]: KUBEADM },
  });
  const model = new HostModel();
  for (let i = 0; i < count; i++) {
    const hosts = initialHosts(i);
    server.create(benchIngress(i, hosts));
    model.set(i, hosts);
  }
  return model;
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
