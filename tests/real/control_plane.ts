/**
 * A real control plane on loopback: etcd and kube-apiserver, built from their Go modules, with
 * RBAC authorization on, static tokens (one identity per component, see `identities.ts`), an
 * audit log of every write (the apiserver's own record, which the leader-election scenario
 * judges), and nothing else: no scheduler, no controller-manager, no kubelet. So a Pod stays
 * Pending unless a test writes its status, and nothing fills EndpointSlices on its own.
 *
 * Choices a reader could not guess:
 * - `--disable-admission-plugins=ServiceAccount`: that plugin refuses Pods whose ServiceAccount
 *   does not exist, and without a controller-manager nobody creates the `default` ones.
 * - The Service range is `127.96.0.0/16`: every ClusterIP is a loopback address of this machine,
 *   so a component can listen on its Service's ClusterIP, standing in for kube-proxy, and the whole
 *   hairpin path (DNS answer, proxy, ingress) stays on loopback. The apiserver accepts the range;
 *   only Endpoints and EndpointSlices refuse loopback addresses (so the `kubernetes` Service has none).
 * - etcd runs with `--unsafe-no-fsync`: the suite never survives a power cut, and fsyncs would
 *   make the 2,000-object scenario a disk benchmark.
 * - The apiserver can be restarted on the same port and etcd ({@linkcode ControlPlane.restartApiserver}),
 *   and etcd compacted through its JSON gateway ({@linkcode ControlPlane.compact}), for the
 *   scenarios that prove the reflectors against a real watch cache.
 *
 * Effects: processes, files in the stack's folder.
 *
 * @module
 */

import { freePort } from "../support/daemons.ts";
import { ensureBuilt } from "./build.ts";
import { type ClusterPki, makeClusterPki } from "./cluster_pki.ts";
import { type ComponentProcess, startComponent } from "./component_process.ts";
import { adminIdentity, type Identity, kubeconfigFor, newToken, tokenFile } from "./identities.ts";

/** The audit policy: every request's metadata (who, what verb, which object, the status). */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
  - level: Metadata
`;

/** A running control plane. */
export interface ControlPlane extends AsyncDisposable {
  /** `https://127.0.0.1:<port>`. */
  readonly server: string;
  readonly pki: ClusterPki;
  readonly admin: Identity;
  /** The admin's kubeconfig file. */
  readonly adminKubeconfig: string;
  /** The audit log file (JSON lines). */
  readonly auditLogPath: string;
  readonly etcd: () => ComponentProcess;
  readonly apiserver: () => ComponentProcess;
  /** Writes a kubeconfig for `identity` into the stack's folder and returns its path. */
  kubeconfig(identity: Identity, namespace?: string): Promise<string>;
  /** A fetch to the apiserver as `identity` (default the admin). */
  request(path: string, init?: RequestInit & { identity?: Identity }): Promise<Response>;
  /** Stops the apiserver and starts it again on the same port and etcd; resolves once ready. */
  restartApiserver(): Promise<void>;
  /** Compacts etcd's history up to its current revision; returns that revision. */
  compact(): Promise<number>;
}

/** What the control plane is started with. */
export interface ControlPlaneOptions {
  /** The stack's folder. */
  readonly dir: string;
  /** Every identity besides the admin (tokens in the token file). */
  readonly identities: readonly Identity[];
  readonly random?: () => number;
}

async function startEtcd(dir: string, clientPort: number, peerPort: number): Promise<ComponentProcess> {
  const etcd = await ensureBuilt("etcd");
  const client = `http://127.0.0.1:${clientPort}`;
  return await startComponent({
    name: "etcd",
    command: etcd,
    dir,
    args: [
      "--name=real",
      `--data-dir=${dir}/etcd-data`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-advertise-peer-urls=http://127.0.0.1:${peerPort}`,
      `--initial-cluster=real=http://127.0.0.1:${peerPort}`,
      "--unsafe-no-fsync",
      "--log-level=warn",
    ],
    ready: async () => {
      const response = await fetch(`${client}/health`);
      await response.body?.cancel();
      return response.ok;
    },
  });
}

/** Starts etcd and kube-apiserver and waits until the apiserver answers `/readyz` as the admin. */
export async function startControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const { dir } = options;
  const random = options.random ?? Math.random;
  const admin = adminIdentity(newToken(random));
  await Deno.mkdir(`${dir}/pki`, { recursive: true });
  const pki = await makeClusterPki(`${dir}/pki`);
  await Deno.writeTextFile(`${dir}/tokens.csv`, tokenFile([admin, ...options.identities]));
  await Deno.writeTextFile(`${dir}/audit-policy.yaml`, AUDIT_POLICY);
  const auditLogPath = `${dir}/audit.log`;
  const etcdPort = freePort();
  const apiPort = freePort();
  const server = `https://127.0.0.1:${apiPort}`;
  const client = Deno.createHttpClient({ caCerts: [pki.caPem] });

  const request = (path: string, init: RequestInit & { identity?: Identity } = {}) => {
    const { identity, ...rest } = init;
    const headers = new Headers(rest.headers);
    headers.set("Authorization", `Bearer ${(identity ?? admin).token}`);
    return fetch(`${server}${path}`, { ...rest, headers, client });
  };

  let etcd: ComponentProcess | undefined;
  let apiserver: ComponentProcess | undefined;
  const startApiserver = async () =>
    await startComponent({
      name: "kube-apiserver",
      command: await ensureBuilt("kube-apiserver"),
      dir,
      args: [
        `--etcd-servers=http://127.0.0.1:${etcdPort}`,
        "--bind-address=127.0.0.1",
        "--advertise-address=127.0.0.1",
        `--secure-port=${apiPort}`,
        `--cert-dir=${dir}/apiserver-certs`,
        `--tls-cert-file=${pki.serverCertPath}`,
        `--tls-private-key-file=${pki.serverKeyPath}`,
        `--token-auth-file=${dir}/tokens.csv`,
        "--authorization-mode=RBAC",
        "--anonymous-auth=false",
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
        `--service-account-key-file=${pki.serviceAccountPublicKeyPath}`,
        `--service-account-signing-key-file=${pki.serviceAccountKeyPath}`,
        "--service-cluster-ip-range=127.96.0.0/16",
        "--disable-admission-plugins=ServiceAccount",
        `--audit-policy-file=${dir}/audit-policy.yaml`,
        `--audit-log-path=${auditLogPath}`,
        "--audit-log-format=json",
        "--profiling=false",
        "--v=1",
      ],
      readyTimeoutMs: 120_000,
      ready: async () => {
        const response = await request("/readyz");
        await response.body?.cancel();
        return response.ok;
      },
    });

  try {
    etcd = await startEtcd(dir, etcdPort, freePort());
    apiserver = await startApiserver();
  } catch (error) {
    await apiserver?.stop();
    await etcd?.stop();
    client.close();
    throw error;
  }
  const endpoint = { server, caPem: pki.caPem };
  const adminKubeconfig = `${dir}/admin.kubeconfig`;
  await Deno.writeTextFile(adminKubeconfig, kubeconfigFor(endpoint, admin));

  return {
    server,
    pki,
    admin,
    adminKubeconfig,
    auditLogPath,
    etcd: () => etcd!,
    apiserver: () => apiserver!,
    async kubeconfig(identity, namespace = "default") {
      const path = `${dir}/${identity.label.replace(/[^a-zA-Z0-9-]/g, "-")}.kubeconfig`;
      await Deno.writeTextFile(path, kubeconfigFor(endpoint, identity, namespace));
      return path;
    },
    request,
    async restartApiserver() {
      await apiserver!.stop();
      apiserver = await startApiserver();
    },
    async compact() {
      const etcdUrl = `http://127.0.0.1:${etcdPort}`;
      const range = await fetch(`${etcdUrl}/v3/kv/range`, {
        method: "POST",
        body: JSON.stringify({ key: btoa("/"), range_end: btoa("0"), keys_only: true, limit: 1 }),
      });
      const header = (await range.json() as { header?: { revision?: string } }).header;
      const revision = Number(header?.revision ?? 0);
      const compacted = await fetch(`${etcdUrl}/v3/kv/compaction`, {
        method: "POST",
        body: JSON.stringify({ revision: String(revision), physical: true }),
      });
      if (compacted.ok) {
        await compacted.body?.cancel();
        return revision;
      }
      const text = await compacted.text();
      // Already compacted at this revision (nothing written since an earlier call, or since
      // kube-apiserver's own compaction): the store is as this call wants it.
      if (text.includes("required revision has been compacted")) return revision;
      throw new Error(`etcd compaction to ${revision} failed: ${text}`);
    },
    async [Symbol.asyncDispose]() {
      await apiserver?.stop();
      await etcd?.stop();
      client.close();
    },
  };
}
