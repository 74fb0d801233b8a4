/**
 * The soak's cluster on the real stack: etcd and kube-apiserver built from their Go modules
 * (`tests/real/stack.ts`, RBAC on, the chart's RBAC objects applied as rendered), with the soak's
 * processes talking to the apiserver through the fault gate (`tests/real/api_gate.ts`), each as
 * its own token. The apiserver's audit log is the record the single-writer judge reads.
 *
 * Decisions a reader could not guess:
 * - Identities: each soak process is one replica of a chart ServiceAccount (the stack's
 *   `replicas`: same user, so the chart's RBAC judges it, and its own uid, so the audit log tells
 *   the replicas apart). Nothing is granted by hand: a verb the chart forgot is a 403 here.
 * - The soak's own reads and writes go straight to the apiserver as the admin. Writes are
 *   server-side applies (field manager `soak`, forced), so a put creates or replaces in one
 *   request; a `status` is applied through the status subresource, as a kubelet writes it. While
 *   the apiserver restarts they are retried until it answers (so churn pauses through a restart).
 * - The audit log is read incrementally; a rotation (at kube-apiserver's default 100 MB, hours of
 *   soak) starts the reading over on the new file, losing the rotated tail's last lines.
 *
 * Effects: processes (etcd, kube-apiserver, kubectl, Helm), files in the stack's folder, sockets.
 *
 * @module
 */

import { writeKubeconfig } from "../support/kubeconfig.ts";
import { startApiGate } from "../real/api_gate.ts";
import { GO_COMPONENTS } from "../real/versions.ts";
import { type AuditedRequest, parseAuditLog } from "../real/rbac_usage.ts";
import { type ReleaseSpec, type Stack, startStack } from "../real/stack.ts";
import type { Identity } from "../real/identities.ts";
import { type ObjectRef, refOf, RefusedObject, type SoakCluster } from "./soak_cluster.ts";

/** A soak identity and the chart ServiceAccount (in the release's namespace) it runs as. */
export interface RealIdentity {
  readonly name: string;
  readonly account: string;
}

/** What the real cluster is started with. */
export interface RealClusterOptions {
  /** The chart release whose RBAC is installed. */
  readonly release: ReleaseSpec;
  readonly identities: readonly RealIdentity[];
  /** Objects to apply as the admin once the RBAC is in (CRDs first, by the stack). */
  readonly objects?: readonly Record<string, unknown>[];
}

/** Plural resource names of the kinds the soak reads and writes. */
const RESOURCES: Readonly<Record<string, string>> = {
  ConfigMap: "configmaps",
  Service: "services",
  Pod: "pods",
  Namespace: "namespaces",
  EndpointSlice: "endpointslices",
  Ingress: "ingresses",
  HTTPRoute: "httproutes",
  Records: "records",
  Lease: "leases",
};

const CLUSTER_SCOPED = new Set(["Namespace"]);

/** How long a soak write keeps trying while the apiserver cannot answer. */
const WRITE_PATIENCE_MS = 180_000;

function objectPath(ref: ObjectRef): string {
  const resource = RESOURCES[ref.kind];
  if (resource === undefined) throw new Error(`the soak's real cluster knows no resource for ${ref.kind}`);
  const base = ref.apiVersion.includes("/") ? `/apis/${ref.apiVersion}` : `/api/${ref.apiVersion}`;
  const scope = CLUSTER_SCOPED.has(ref.kind) ? "" : `/namespaces/${ref.namespace}`;
  return `${base}${scope}/${resource}/${ref.name}`;
}

/** Starts the stack, installs the release's RBAC and the objects, and opens the gate. */
export async function startRealCluster(options: RealClusterOptions): Promise<SoakCluster> {
  const counts = new Map<string, number>();
  for (const { account } of options.identities) counts.set(account, (counts.get(account) ?? 0) + 1);
  const namespace = options.release.namespace;
  const stack: Stack = await startStack({
    releases: [options.release],
    replicas: [...counts].map(([name, count]) => ({ namespace, name, count })),
    ...(options.objects === undefined ? {} : { objects: options.objects }),
  });
  const gate = startApiGate({ upstream: stack.plane.server, caPem: stack.plane.pki.caPem });
  const identities = new Map<string, Identity>();
  const seen = new Map<string, number>();
  try {
    for (const { name, account } of options.identities) {
      const index = (seen.get(account) ?? 0) + 1;
      seen.set(account, index);
      const identity = stack.identity(namespace, `${account}@${index}`);
      identities.set(name, identity);
      await writeKubeconfig(`${stack.dir}/kubeconfig-${name}`, {
        server: gate.url,
        token: identity.token,
        namespace,
      });
    }
  } catch (error) {
    stack.keep();
    await gate[Symbol.asyncDispose]();
    await stack[Symbol.asyncDispose]();
    throw error;
  }
  const identity = (name: string) => {
    const found = identities.get(name);
    if (found === undefined) throw new Error(`the soak's real cluster has no identity ${name}`);
    return found;
  };

  /** An admin request, retried while the apiserver cannot answer (refused, reset, 5xx). */
  const request = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const deadline = performance.now() + WRITE_PATIENCE_MS;
    let last = "";
    while (performance.now() < deadline) {
      try {
        const response = await stack.plane.request(path, { ...init, signal: AbortSignal.timeout(30_000) });
        if (response.status < 500) return response;
        last = `${response.status} ${await response.text()}`;
      } catch (error) {
        last = error instanceof Error ? error.message : String(error);
      }
      // The apiserver is restarting: poll again shortly, up to the deadline.
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`${init.method ?? "GET"} ${path}: the apiserver did not answer in time (${last})`);
  };
  const failed = async (what: string, response: Response): Promise<never> => {
    const text = await response.text();
    if (response.status === 422) {
      let fields: string[] = [];
      try {
        const causes = (JSON.parse(text) as { details?: { causes?: { field?: string }[] } }).details?.causes;
        fields = (causes ?? []).flatMap((cause) => cause.field === undefined ? [] : [cause.field]);
      } catch { /* not a Status: no fields */ }
      throw new RefusedObject(`${what}: ${text}`, fields);
    }
    throw new Error(`${what}: ${response.status} ${text}`);
  };
  const apply = async (path: string, object: Record<string, unknown>) => {
    const response = await request(`${path}?fieldManager=soak&force=true`, {
      method: "PATCH",
      headers: { "Content-Type": "application/apply-patch+yaml" },
      body: JSON.stringify(object),
    });
    if (!response.ok) await failed(`applying ${path}`, response);
    await response.body?.cancel();
  };

  let auditText = "";
  let auditBytes = 0;
  const audited: AuditedRequest[] = [];
  const decoder = new TextDecoder();

  const [etcd, apiserver] = ["etcd", "kube-apiserver"].map((name) =>
    GO_COMPONENTS.find((component) => component.name === name)?.version ?? "?"
  );
  return {
    backend: "real",
    description: `the real apiserver stack (etcd ${etcd}, kube-apiserver ${apiserver}, the chart's RBAC; ` +
      `faults through the gate)`,
    kubeconfig: (name) => `${stack.dir}/kubeconfig-${name}`,
    uidOf: (name) => identity(name).uid,
    async get(ref) {
      const response = await request(objectPath(ref));
      if (response.status === 404) {
        await response.body?.cancel();
        return undefined;
      }
      if (!response.ok) await failed(`reading ${objectPath(ref)}`, response);
      return await response.json() as Record<string, unknown>;
    },
    async put(object) {
      const path = objectPath(refOf(object));
      const { status, ...spec } = object;
      await apply(path, spec);
      if (status !== undefined) await apply(`${path}/status`, { ...spec, status });
    },
    async edit(ref, change) {
      const path = objectPath(ref);
      for (let attempt = 0; attempt < 10; attempt++) {
        const read = await request(path);
        if (!read.ok) await failed(`reading ${path}`, read);
        const changed = change(await read.json() as Record<string, unknown>);
        if (changed === undefined) return;
        const written = await request(path, {
          method: "PUT",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(changed),
        });
        if (written.ok) {
          await written.body?.cancel();
          return;
        }
        // Someone wrote between the read and the write: read again, as a person would.
        if (written.status !== 409) await failed(`replacing ${path}`, written);
        await written.body?.cancel();
      }
      throw new Error(`replacing ${path}: a conflict ten times running`);
    },
    async remove(ref) {
      const response = await request(objectPath(ref), { method: "DELETE" });
      if (!response.ok && response.status !== 404) await failed(`deleting ${objectPath(ref)}`, response);
      await response.body?.cancel();
    },
    async requests() {
      const bytes = await Deno.readFile(stack.plane.auditLogPath).catch(() => new Uint8Array());
      if (bytes.length < auditBytes) auditBytes = 0; // rotated
      const fresh = auditText + decoder.decode(bytes.subarray(auditBytes), { stream: true });
      auditBytes = bytes.length;
      const end = fresh.lastIndexOf("\n");
      audited.push(...parseAuditLog(fresh.slice(0, end + 1)));
      auditText = fresh.slice(end + 1);
      return audited;
    },
    restartApiserver: () => stack.plane.restartApiserver(),
    async compact() {
      await stack.plane.compact();
    },
    cutWatches: () => gate.cutWatches(),
    stallWatches: () => gate.stallWatches(),
    errorBurst: (code, count) => gate.failNext({ code, count }),
    slowAnswers: (ms, count) => gate.delayNext({ ms, count }),
    partition: (name) => gate.partition(identity(name).token),
    heal: (name) => gate.heal(identity(name).token),
    partitioned: (name) => gate.partitioned(identity(name).token),
    async [Symbol.asyncDispose]() {
      await gate[Symbol.asyncDispose]();
      await stack[Symbol.asyncDispose]();
    },
  };
}
