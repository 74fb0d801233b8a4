/**
 * The real CoreDNS, run as a cluster runs it: its Corefile is the `Corefile` key of a ConfigMap in
 * the real apiserver, copied into a folder by the kubelet's atomic layout (`configmap_volume.ts`),
 * read with `-conf`, and reloaded by the `reload` plugin when it changes; the `kubernetes` plugin
 * watches the real apiserver as CoreDNS's own ServiceAccount. So whatever the controller writes
 * into the ConfigMap, CoreDNS parses and serves, or refuses in its log.
 *
 * Choices a reader could not guess:
 * - The server blocks keep `:53` (the controller looks for the root block on port 53, as kubeadm
 *   writes it), and CoreDNS listens on a loopback address of its own (`bind`), which needs root:
 *   the suite runs as root, as CI does.
 * - `reload 2s 1s`, the plugin's smallest interval, so a scenario waits seconds, not 30.
 * - `health` and `ready` listen on free loopback ports; ready means the `kubernetes` plugin has
 *   synced with the apiserver.
 *
 * Effects: processes, files, the API (as the admin, for the ConfigMap copy).
 *
 * @module
 */

import { freePort } from "../support/daemons.ts";
import { queryDns } from "../support/dns_tools.ts";
import { ensureBuilt } from "./build.ts";
import { type ComponentProcess, startComponent } from "./component_process.ts";
import { type ConfigMapVolume, mirrorConfigMap } from "./configmap_volume.ts";
import type { Stack } from "./stack.ts";

/** CoreDNS's ServiceAccount and what its own manifest grants it (read-only, cluster-wide). */
export const COREDNS_ACCOUNT = {
  namespace: "kube-system",
  name: "coredns",
  rules: [
    { apiGroups: [""], resources: ["endpoints", "services", "pods", "namespaces"], verbs: ["list", "watch"] },
    { apiGroups: ["discovery.k8s.io"], resources: ["endpointslices"], verbs: ["list", "watch"] },
  ],
} as const;

/** Where a CoreDNS serves. */
export interface CorednsAddress {
  /** The loopback address it binds, port 53. */
  readonly host: string;
  readonly port: number;
}

/** Values for the Corefile template. */
export interface CorefileValues {
  /** The address for `bind`. */
  readonly bind: string;
  readonly healthPort: number;
  readonly readyPort: number;
  /** The kubeconfig file CoreDNS's `kubernetes` plugin uses. */
  readonly kubeconfig: string;
  /** Where `forward .` sends what is not the cluster's (default: nowhere, answered SERVFAIL). */
  readonly upstream?: string;
}

/**
 * The Corefile kubeadm installs, with the loopback additions: `bind`, `health` and `ready` on
 * their ports, the `kubernetes` plugin's kubeconfig, and the quick `reload`.
 */
export function kubeadmStyleCorefile(values: CorefileValues): string {
  return `.:53 {
    errors
    bind ${values.bind}
    health 127.0.0.1:${values.healthPort} {
       lameduck 1s
    }
    ready 127.0.0.1:${values.readyPort}
    kubernetes cluster.local in-addr.arpa ip6.arpa {
       kubeconfig ${values.kubeconfig}
       pods insecure
       fallthrough in-addr.arpa ip6.arpa
       ttl 30
    }
    prometheus 127.0.0.1:${values.healthPort + 1}
    forward . ${values.upstream ?? "127.0.0.1:9"} {
       max_concurrent 1000
    }
    cache 30
    loop
    reload 2s 1s
    loadbalance
}
`;
}

/** A running CoreDNS and the folder it reads. */
export interface Coredns extends AsyncDisposable {
  readonly address: CorednsAddress;
  readonly process: ComponentProcess;
  readonly volume: ConfigMapVolume;
  /** Lines CoreDNS logged that report a Corefile it could not load (parse or set-up errors). */
  configErrors(): string[];
}

/** What {@linkcode startCoredns} is told. */
export interface StartCorednsOptions {
  /** The ConfigMap holding the Corefile (it must exist). */
  readonly namespace: string;
  readonly configmap: string;
  /** The key CoreDNS reads (default `Corefile`). */
  readonly key?: string;
  /** The loopback address to serve on, port 53. */
  readonly bind: string;
  /** A name for its log file (default `coredns`). */
  readonly name?: string;
}

/** The lines of CoreDNS's output that report a configuration it refused. */
export function corefileErrors(output: string): string[] {
  return output.split("\n").filter((line) =>
    /\[ERROR\] Restart failed|Corefile:\d+ - Error|plugin\/reload: .*error|Error during parsing/i.test(line)
  );
}

/** Starts CoreDNS reading the ConfigMap through the kubelet-style copy; waits until it is ready. */
export async function startCoredns(stack: Stack, options: StartCorednsOptions): Promise<Coredns> {
  const name = options.name ?? "coredns";
  const key = options.key ?? "Corefile";
  const read = async () => {
    const response = await stack.plane.request(
      `/api/v1/namespaces/${options.namespace}/configmaps/${options.configmap}`,
    );
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (!response.ok) throw new Error(`reading the ConfigMap: ${response.status} ${await response.text()}`);
    const object = await response.json() as {
      data?: Record<string, string>;
      metadata: { resourceVersion: string };
    };
    return { data: object.data ?? {}, resourceVersion: object.metadata.resourceVersion };
  };
  const volume = await mirrorConfigMap(`${stack.dir}/${name}-volume`, read);
  const readyPort = /ready 127\.0\.0\.1:(\d+)/;
  let process: ComponentProcess;
  try {
    const corefile = await Deno.readTextFile(`${volume.dir}/${key}`);
    const port = readyPort.exec(corefile)?.[1];
    process = await startComponent({
      name,
      command: await ensureBuilt("coredns"),
      args: ["-conf", `${volume.dir}/${key}`],
      dir: stack.dir,
      ready: async () => {
        if (port !== undefined) {
          const response = await fetch(`http://127.0.0.1:${port}/ready`);
          await response.body?.cancel();
          if (!response.ok) return false;
        }
        // The ready plugin can answer before the server listens on its address: ask it something.
        const [reply] = await queryDns({ host: options.bind, port: 53 }, [{ name: "ready.invalid" }], {
          timeoutSeconds: 1,
        });
        return reply !== undefined;
      },
    });
  } catch (error) {
    await volume[Symbol.asyncDispose]();
    throw error;
  }
  return {
    address: { host: options.bind, port: 53 },
    process,
    volume,
    configErrors: () => corefileErrors(process.output()),
    async [Symbol.asyncDispose]() {
      await volume[Symbol.asyncDispose]();
      await process.stop();
    },
  };
}

/**
 * Writes the kubeadm-style Corefile (serving on `bind`) into the ConfigMap `kube-system/coredns`
 * and starts CoreDNS on it as its own ServiceAccount (the stack needs {@linkcode COREDNS_ACCOUNT}
 * among its peers).
 */
export async function startKubeadmCoredns(
  stack: Stack,
  options: { bind: string; upstream?: string; name?: string },
): Promise<Coredns> {
  const corefile = kubeadmStyleCorefile({
    bind: options.bind,
    healthPort: freePortPair(),
    readyPort: freePortPair(),
    kubeconfig: await stack.kubeconfig(COREDNS_ACCOUNT.namespace, COREDNS_ACCOUNT.name),
    ...(options.upstream === undefined ? {} : { upstream: options.upstream }),
  });
  await stack.apply([{
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "coredns", namespace: "kube-system" },
    data: { Corefile: corefile },
  }]);
  return await startCoredns(stack, {
    namespace: "kube-system",
    configmap: "coredns",
    bind: options.bind,
    ...(options.name === undefined ? {} : { name: options.name }),
  });
}

/** A free health port whose next port (for `prometheus`) was free a moment ago too. */
export function freePortPair(): number {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = freePort();
    try {
      const next = Deno.listen({ hostname: "127.0.0.1", port: port + 1 });
      next.close();
      return port;
    } catch {
      // The next port is taken: try another.
    }
  }
  throw new Error("no two consecutive free ports on 127.0.0.1");
}
