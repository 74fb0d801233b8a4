/**
 * A fake cluster for end-to-end controller tests: the fake API server seeded with a
 * kubeadm-style CoreDNS ConfigMap, a kubeconfig pointing at it (plain HTTP, bearer token), and
 * helpers to create Ingresses, Gateways and HTTPRoutes and to read back what a cluster operator
 * would check: the hostnames between our markers and the writes in the audit log.
 *
 * @module
 */

import { type AuditEntry, type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { KUBEADM } from "./modes/coredns/fixtures/corefiles.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";

/** The bearer token the fake API server requires. */
export const TOKEN = "controller-test-token";
/** The rewrite target the tests pass with `--proxy-fqdn`. */
export const PROXY_FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
/** Begin and end markers of our block (kept here so a typo in the code under test fails). */
const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
const END = "# === END ouroboros ===";

/** Options for {@linkcode startCluster}. */
export interface ClusterOptions {
  /** API groups the server does not serve (e.g. Gateway API not installed). */
  readonly omitGroups?: readonly string[];
  /** Kinds the server does not serve (`GRPCRoute`, `gateway.networking.k8s.io/v1/TLSRoute`). */
  readonly omitKinds?: readonly string[];
  /** The Corefile to seed; default kubeadm's. */
  readonly corefile?: string;
  /** Also create `kube-system/coredns-custom` (the import ConfigMap). */
  readonly importConfigMap?: boolean;
  /**
   * Extra API users (replicas), each with its own token and kubeconfig, so the audit log tells
   * them apart and one can be partitioned.
   */
  readonly users?: readonly string[];
}

/** A running fake cluster. */
export interface Cluster extends AsyncDisposable {
  readonly server: FakeApiServer;
  /** Path of a kubeconfig for the server. */
  readonly kubeconfig: string;
  /** A folder for the test's own files. */
  readonly dir: string;
  /** The flags every controller run needs: kubeconfig, rewrite target, cluster domain, text-free logs. */
  readonly flags: readonly string[];
  /** The same flags with the kubeconfig of one of `options.users`. */
  flagsFor(user: string): readonly string[];
  /** The Corefile as stored now. */
  corefile(): string;
  /** Replaces the Corefile as another writer would. */
  setCorefile(text: string): void;
  /** The hostnames in our block, in order; `undefined` when there is no block. */
  blockHosts(): string[] | undefined;
  /** Writes (PUT, PATCH, POST, DELETE) to ConfigMaps so far. */
  configMapWrites(): AuditEntry[];
  /** Creates or replaces an Ingress `namespace/name`. */
  ingress(key: string, spec: IngressSpec): void;
  /** Deletes an Ingress. */
  deleteIngress(key: string): void;
  /** Creates a Gateway of a class with one listener per hostname. */
  gateway(key: string, className: string, hostnames: readonly string[]): void;
  /** Creates an HTTPRoute attached to Gateways (`namespace/name` or `name`). */
  route(key: string, hostnames: readonly string[], parents: readonly string[]): void;
  /**
   * Creates or replaces a ClusterIP Service `namespace/name` with these cluster IPs (`["None"]`:
   * headless; `[]`: none allocated yet).
   */
  service(key: string, clusterIPs: readonly string[]): void;
}

/** The Ingress fields the tests set. */
export interface IngressSpec {
  readonly tls?: readonly string[];
  readonly className?: string;
  /** `status.loadBalancer.ingress[0].ip`, for status-only churn. */
  readonly statusIp?: string;
}

function userToken(user: string): string {
  return `token-of-${user}`;
}

function split(key: string): { namespace: string; name: string } {
  const [namespace = "", name = ""] = key.split("/");
  return { namespace, name };
}

function ingressObject(key: string, spec: IngressSpec): Record<string, unknown> {
  const { namespace, name } = split(key);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace, name },
    spec: {
      ...(spec.className === undefined ? {} : { ingressClassName: spec.className }),
      rules: [{ host: spec.tls?.[0] ?? "plain.example.com" }],
      ...(spec.tls === undefined ? {} : { tls: [{ hosts: spec.tls, secretName: `${name}-tls` }] }),
    },
    status: { loadBalancer: { ingress: spec.statusIp === undefined ? [] : [{ ip: spec.statusIp }] } },
  };
}

/** Starts the fake API server, seeds CoreDNS and writes a kubeconfig. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const users = options.users ?? [];
  const server = await startFakeApiServer({
    token: TOKEN,
    ...(users.length === 0
      ? {}
      : { users: Object.fromEntries(users.map((user) => [userToken(user), user])) }),
    bookmarkIntervalMs: 0,
    ...(options.omitGroups === undefined ? {} : { omitGroups: options.omitGroups }),
    ...(options.omitKinds === undefined ? {} : { omitKinds: options.omitKinds }),
  });
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-system", name: "coredns" },
    data: { Corefile: options.corefile ?? KUBEADM },
  });
  if (options.importConfigMap) {
    server.create({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { namespace: "kube-system", name: "coredns-custom" },
      data: { "other.server": "example.org:53 {\n    forward . 192.0.2.53\n}\n" },
    });
  }
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-controller-" });
  const kubeconfig = `${dir}/kubeconfig`;
  await writeKubeconfig(kubeconfig, { server: server.url, token: TOKEN });
  for (const user of users) {
    await writeKubeconfig(`${dir}/kubeconfig-${user}`, { server: server.url, token: userToken(user) });
  }
  const commonFlags = [`--proxy-fqdn=${PROXY_FQDN}`, "--cluster-domain=cluster.local"];
  const coredns = () => server.get("v1", "ConfigMap", "kube-system", "coredns");
  const corefile = () => ((coredns()?.data ?? {}) as Record<string, string>).Corefile ?? "";
  return {
    server,
    kubeconfig,
    dir,
    flags: [`--kubeconfig=${kubeconfig}`, ...commonFlags],
    flagsFor(user: string) {
      if (!users.includes(user)) throw new Error(`no API user ${user} (have: ${users.join(", ")})`);
      return [`--kubeconfig=${dir}/kubeconfig-${user}`, ...commonFlags];
    },
    corefile,
    setCorefile(text: string) {
      const current = coredns();
      if (current === undefined) throw new Error("no coredns ConfigMap");
      server.update({ ...current, data: { ...(current.data as Record<string, string>), Corefile: text } });
    },
    blockHosts() {
      const lines = corefile().split("\n").map((line) => line.trim());
      const begin = lines.indexOf(BEGIN);
      const end = lines.indexOf(END);
      if (begin < 0 || end < begin) return undefined;
      return lines.slice(begin + 1, end).map((line) => {
        const [verb, field, host, target] = line.split(/\s+/);
        if (verb !== "rewrite" || field !== "name" || target !== PROXY_FQDN) {
          throw new Error(`unexpected line in our block: ${JSON.stringify(line)}`);
        }
        return host ?? "";
      });
    },
    configMapWrites() {
      return server.audit.filter((entry) =>
        entry.method !== "GET" && entry.path.includes("/configmaps") && entry.status < 400
      );
    },
    ingress(key: string, spec: IngressSpec) {
      const object = ingressObject(key, spec);
      const { namespace, name } = split(key);
      if (server.get("networking.k8s.io/v1", "Ingress", namespace, name) === undefined) server.create(object);
      else server.update(object);
    },
    deleteIngress(key: string) {
      const { namespace, name } = split(key);
      server.remove("networking.k8s.io/v1", "Ingress", namespace, name);
    },
    gateway(key: string, className: string, hostnames: readonly string[]) {
      const { namespace, name } = split(key);
      server.create({
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "Gateway",
        metadata: { namespace, name },
        spec: {
          gatewayClassName: className,
          listeners: hostnames.map((hostname, i) => ({
            name: `l${i}`,
            hostname,
            protocol: "HTTPS",
            port: 443,
          })),
        },
      });
    },
    route(key: string, hostnames: readonly string[], parents: readonly string[]) {
      const { namespace, name } = split(key);
      server.create({
        apiVersion: "gateway.networking.k8s.io/v1",
        kind: "HTTPRoute",
        metadata: { namespace, name },
        spec: {
          hostnames,
          parentRefs: parents.map((parent) => {
            const [first = "", second] = parent.split("/");
            return second === undefined ? { name: first } : { namespace: first, name: second };
          }),
        },
      });
    },
    service(key: string, clusterIPs: readonly string[]) {
      const { namespace, name } = split(key);
      const object = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { namespace, name },
        spec: {
          type: "ClusterIP",
          ...(clusterIPs[0] === undefined ? {} : { clusterIP: clusterIPs[0], clusterIPs }),
          ports: [{ name: "https", port: 443, protocol: "TCP" }],
          selector: { app: name },
        },
      };
      if (server.get("v1", "Service", namespace, name) === undefined) server.create(object);
      else server.update(object);
    },
    async [Symbol.asyncDispose]() {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
