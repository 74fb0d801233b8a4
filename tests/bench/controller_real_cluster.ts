/**
 * The real API server for `deno task bench:controller --apiserver=real`: etcd and kube-apiserver
 * built from their Go modules (`deno task real:build`, into `.ci/cache/real`) and started on
 * loopback by the real-component suite's `control_plane.ts`, holding the same CoreDNS ConfigMap
 * and Ingresses as the fake one, as a {@linkcode BenchCluster}.
 *
 * Decisions:
 * - The controller runs as the admin (system:masters): the benchmark measures speed and memory,
 *   not RBAC, which the real-component suite proves with the chart's own roles.
 * - Write times come from a watch on the ConfigMap held by this process: a write is seen when
 *   its event arrives, after etcd committed it (the fake's audit log times the request's
 *   arrival instead, a few milliseconds earlier). The benchmark's own write (putting kubeadm's
 *   Corefile back) is waited for until the watch has seen it, so it never counts as the
 *   controller's.
 * - Ingresses are created 16 at a time, each its own POST, as `kubectl apply` of many files
 *   would; the time taken is reported, since at 10,000 it is most of the run.
 *
 * Effects: processes (etcd, kube-apiserver), files in `dir`, HTTP to the apiserver.
 *
 * @module
 */

import { startControlPlane } from "../real/control_plane.ts";
import { LineSplitter } from "../../lib/kube/line_splitter.ts";
import {
  type BenchCluster,
  benchIngress,
  COREDNS,
  corednsConfigMap,
  type CorefileWrite,
  HostModel,
  initialHosts,
} from "./controller_cluster.ts";
import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";
import { waitFor } from "../support/wait.ts";

const CONFIGMAP_PATH = `/api/v1/namespaces/${COREDNS.namespace}/configmaps`;
/** Ingress creations in flight at once. */
const CREATE_CONCURRENCY = 16;

/** What a watch event on the ConfigMap carries that the benchmark reads. */
interface ConfigMapEvent {
  readonly type: string;
  readonly object: {
    readonly metadata?: { readonly resourceVersion?: string };
    readonly data?: Record<string, string>;
  };
}

/** Where an Ingress lives, from its manifest. */
function ingressPath(ingress: Record<string, unknown>): { collection: string; item: string } {
  const metadata = ingress.metadata as { namespace: string; name: string };
  const collection = `/apis/networking.k8s.io/v1/namespaces/${metadata.namespace}/ingresses`;
  return { collection, item: `${collection}/${metadata.name}` };
}

/** Throws with the apiserver's answer unless `response` is a success; drains its body. */
async function ok(response: Response, what: string): Promise<void> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
}

/**
 * Starts etcd and kube-apiserver in `dir`, creates the CoreDNS ConfigMap and starts watching
 * it; `say` hears the progress of the slow steps.
 */
export async function realCluster(dir: string, say: (line: string) => void): Promise<BenchCluster> {
  const started = performance.now();
  const plane = await startControlPlane({ dir, identities: [] });
  say(`  kube-apiserver and etcd ready after ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const model = new HostModel();
  const namespaces = new Set(["kube-system"]);
  const writes: CorefileWrite[] = [];
  let corefile = KUBEADM;
  let seenVersion = "";
  const watchAbort = new AbortController();

  try {
    const created = await plane.request(CONFIGMAP_PATH, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(corednsConfigMap()),
    });
    const createdText = await created.text();
    if (!created.ok) throw new Error(`creating the CoreDNS ConfigMap: ${created.status} ${createdText}`);
    seenVersion = (JSON.parse(createdText) as ConfigMapEvent["object"]).metadata?.resourceVersion ?? "";
  } catch (error) {
    await plane[Symbol.asyncDispose]();
    throw error;
  }

  // The watch: every MODIFIED event of the ConfigMap is a write; restarted from the last version
  // seen if the apiserver ends it.
  const watching = (async () => {
    while (!watchAbort.signal.aborted) {
      try {
        const response = await plane.request(
          `${CONFIGMAP_PATH}?watch=1&fieldSelector=metadata.name%3D${COREDNS.name}` +
            `&resourceVersion=${seenVersion}&allowWatchBookmarks=false`,
          { signal: watchAbort.signal },
        );
        if (!response.ok || response.body === null) {
          await response.body?.cancel();
          throw new Error(`watch answered ${response.status}`);
        }
        const splitter = new LineSplitter();
        for await (const chunk of response.body) {
          const at = Date.now();
          for (const line of splitter.push(chunk)) {
            const event = JSON.parse(line) as ConfigMapEvent;
            if (event.type !== "MODIFIED" && event.type !== "ADDED") continue;
            seenVersion = event.object.metadata?.resourceVersion ?? seenVersion;
            corefile = event.object.data?.[COREDNS.key] ?? "";
            if (event.type === "MODIFIED") writes.push({ at });
          }
        }
      } catch (error) {
        if (watchAbort.signal.aborted) return;
        say(
          `  (the ConfigMap watch broke: ${error instanceof Error ? error.message : String(error)}; again)`,
        );
      }
    }
  })();

  const createNamespace = async (name: string) => {
    if (namespaces.has(name)) return;
    namespaces.add(name);
    const response = await plane.request("/api/v1/namespaces", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
    });
    if (response.status === 409) {
      await response.body?.cancel();
      return;
    }
    await ok(response, `creating namespace ${name}`);
  };

  return {
    name: "kube-apiserver (real, with etcd, on loopback; write times: a watch on the ConfigMap)",
    kubeconfig: plane.adminKubeconfig,
    model,
    async grow(count) {
      const from = model.size;
      if (count <= from) return;
      const began = performance.now();
      for (let i = from; i < Math.min(count, from + 97); i++) {
        const metadata = benchIngress(i, []).metadata as { namespace: string };
        await createNamespace(metadata.namespace);
      }
      let next = from;
      const worker = async () => {
        while (next < count) {
          const i = next++;
          const hosts = initialHosts(i);
          const ingress = benchIngress(i, hosts);
          const response = await plane.request(ingressPath(ingress).collection, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(ingress),
          });
          await ok(response, `creating Ingress ${i}`);
          model.set(i, hosts);
        }
      };
      await Promise.all(Array.from({ length: CREATE_CONCURRENCY }, worker));
      const seconds = (performance.now() - began) / 1000;
      say(
        `  created Ingresses ${from + 1} to ${count} in ${seconds.toFixed(1)} s (${
          Math.round((count - from) / seconds)
        }/s, ${CREATE_CONCURRENCY} at a time)`,
      );
    },
    async change(i, hosts) {
      const ingress = benchIngress(i, hosts);
      // No resourceVersion: an unconditional update, as `kubectl replace --force` would not need.
      const response = await plane.request(ingressPath(ingress).item, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(ingress),
      });
      await ok(response, `updating Ingress ${i}`);
      model.set(i, hosts);
    },
    writes: () => writes,
    corefile: () => corefile,
    async resetCorefile() {
      const response = await plane.request(`${CONFIGMAP_PATH}/${COREDNS.name}`, {
        method: "PUT",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(corednsConfigMap()),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`putting kubeadm's Corefile back: ${response.status} ${text}`);
      const version = (JSON.parse(text) as ConfigMapEvent["object"]).metadata?.resourceVersion;
      await waitFor("the watch to see kubeadm's Corefile put back", () => seenVersion === version, {
        timeoutMs: 30_000,
        intervalMs: 5,
      });
    },
    async [Symbol.asyncDispose]() {
      watchAbort.abort();
      await watching;
      await plane[Symbol.asyncDispose]();
    },
  };
}
