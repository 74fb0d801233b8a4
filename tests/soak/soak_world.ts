/**
 * The soak's cluster and workloads: a {@linkcode SoakCluster} (the in-memory API server or the
 * real etcd + kube-apiserver stack), two elected controller replicas (coredns mode, Gateway API
 * routes on), two elected kuberture replicas, one `ouroboros dns` with a scripted upstream, and
 * the proxy in front of nginx with `proxy_protocol`; and how each step of the plan is carried out
 * on them.
 *
 * Decisions a reader could not guess:
 * - Every process runs as its own identity, so the server's record tells the replicas apart and
 *   one can be partitioned; the election durations are the demo's (3 s lease), so a failover
 *   takes seconds.
 * - The names (namespace `ouroboros`, the Leases `ouroboros-controller` and `kuberture-leader`,
 *   the proxy Service) are the chart's for a release `ouroboros`, so on the real stack the chart's
 *   own RBAC admits the processes; the fake uses the same names. The proxy Service's ClusterIP is
 *   in the real stack's Service range (127.96.0.0/16).
 * - The API server's addresses are a second EndpointSlice of `default/kubernetes`
 *   (`SECOND_SLICE`): the real apiserver keeps its own slice (empty on loopback) to itself.
 * - HTTPRoutes: the real stack gets a schema-less HTTPRoute CRD, not Gateway API's own, whose
 *   hostname pattern would refuse the plan's hostile and mixed-case names before ouroboros ever
 *   saw them; the soak is about ouroboros's hostname check, and routes keep every name reaching it.
 * - The real apiserver refuses Ingress TLS hosts that are not lowercase RFC 1123 names (mixed
 *   case, a trailing dot, most hostile names). Such a put is made again without the hosts it
 *   names, and {@linkcode SoakWorld.churn} returns what was stored, for the driver to tell the
 *   model: those names never reach ouroboros in a real cluster either. On the fake every name is
 *   stored as the plan wrote it.
 * - A fault with a duration registers its own end in {@linkcode SoakWorld.heal}, which the driver
 *   calls before every quiet period; a stall has no end but the clients' own detection. An
 *   apiserver restart runs beside the churn (writes wait for the server) and is awaited by heal.
 * - A SIGKILLed replica is started again at once, as its Deployment would.
 *
 * Effects: starts and stops processes, writes files in a temporary folder, serves HTTP.
 *
 * @module
 */

import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";
import { ELECTION_FLAGS, LEASE as CONTROLLER_LEASE, podOf } from "../demo/elected_replicas.ts";
import { API_HOSTNAME, KUBERTURE_CONFIG, KUBERTURE_SERVICE } from "../demo/kuberture_publisher.ts";
import { CERT_MANAGER_IP, OTHER_POD_IP, type Responder, startResponder } from "../demo/dns_responder.ts";
import { withOutputs } from "../chart/kuberture_support.ts";
import { apiServerSlice, SECOND_SLICE } from "../support/api_server_slice.ts";
import { type Daemon, freePort, startNginx } from "../support/daemons.ts";
import {
  type ControllerProcess,
  type KubertureProcess,
  type ProxyProcess,
  startController,
  startKuberture,
  startProxy,
} from "../support/ouroboros_process.ts";
import { type TempDir, tempDir } from "../support/temp_dir.ts";
import { requireTool } from "../support/tools.ts";
import {
  type Backend,
  type ObjectRef,
  RefusedObject,
  type SoakCluster,
  startFakeCluster,
} from "./soak_cluster.ts";
import type { ChurnStep, FaultStep, Pair, PlannedHost } from "./soak_plan.ts";

/** The rewrite target the controllers write. */
export const PROXY_FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
/** The proxy Service's ClusterIP, which `ouroboros dns` answers for hairpinned names. */
export const PROXY_CLUSTER_IP = "127.96.0.7";
/** The release namespace: every ouroboros process runs here. */
export const NAMESPACE = "ouroboros";
/** The controller replicas' Lease (the chart's name for a release `ouroboros`). */
export { CONTROLLER_LEASE };
/** The kuberture replicas' Lease (the chart's default id). */
export const KUBERTURE_LEASE = { namespace: NAMESPACE, name: "kuberture-leader" } as const;
/** The Service kuberture publishes, in {@linkcode NAMESPACE}. */
export { KUBERTURE_SERVICE };
/** The replicas of each pair, as soak identities and pod names. */
export const REPLICAS: Readonly<Record<Pair, readonly string[]>> = {
  controller: ["controller-a", "controller-b"],
  kuberture: ["kuberture-a", "kuberture-b"],
};
const DNS_USER = "dns";
const KUBERTURE_FLAGS = [
  "--leader-elect=true",
  `--leader-election-namespace=${KUBERTURE_LEASE.namespace}`,
  `--leader-election-id=${KUBERTURE_LEASE.name}`,
  "--leader-election-lease-duration=3s",
  "--leader-election-renew-deadline=2s",
  "--leader-election-retry-period=500ms",
];
const INVALID_KUBERTURE_CONFIG = "outputs: [ {name: api, hostname: \n";

/** The chart release whose RBAC the real stack installs: what the soak's processes need, no more. */
const RELEASE = {
  release: "ouroboros",
  namespace: NAMESPACE,
  set: [
    "controller.replicaCount=2",
    "controller.leaderElection.enabled=true",
    "controller.gatewayApi.enabled=true",
    "controller.gatewayApi.routeKinds={HTTPRoute}",
    "dns.enabled=true",
    "dns.replicaCount=1",
    "kuberture.replicaCount=2",
  ],
  values: withOutputs([{ name: "api", hostname: [API_HOSTNAME], serviceName: KUBERTURE_SERVICE }]),
};

/** The chart ServiceAccount each soak identity runs as on the real stack. */
const ACCOUNTS = [
  ...REPLICAS.controller.map((name) => ({ name, account: "ouroboros" })),
  ...REPLICAS.kuberture.map((name) => ({ name, account: "ouroboros-kuberture" })),
  { name: DNS_USER, account: "ouroboros-dns" },
];

/** HTTPRoute with no schema: see the module doc. */
const HTTP_ROUTE_CRD = {
  apiVersion: "apiextensions.k8s.io/v1",
  kind: "CustomResourceDefinition",
  metadata: {
    name: "httproutes.gateway.networking.k8s.io",
    // A *.k8s.io group needs it; Gateway API's own CRDs carry this one.
    annotations: { "api-approved.kubernetes.io": "https://github.com/kubernetes-sigs/gateway-api/pull/2466" },
  },
  spec: {
    group: "gateway.networking.k8s.io",
    scope: "Namespaced",
    names: { kind: "HTTPRoute", listKind: "HTTPRouteList", plural: "httproutes", singular: "httproute" },
    versions: [{
      name: "v1",
      served: true,
      storage: true,
      schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } },
    }],
  },
};

/** A replica process of either pair. */
type ReplicaProcess = ControllerProcess | KubertureProcess;

/** One replica: its identity and the process running now (replaced after a SIGKILL). */
export interface Replica {
  readonly pair: Pair;
  readonly user: string;
  process: ReplicaProcess;
  /** How many times it was started (1 + restarts). */
  starts: number;
  /** True between SIGSTOP and SIGCONT. */
  stopped: boolean;
}

/** What came of a churn step. */
export interface ChurnOutcome {
  /** What went wrong (a hairpinned call that failed or lost the caller's address). */
  readonly problem?: string;
  /**
   * The step as the server stored it, when it refused some of the step's hosts (see the module
   * doc): the model must hold this instead.
   */
  readonly stored?: ChurnStep;
}

const COREDNS: ObjectRef = { apiVersion: "v1", kind: "ConfigMap", namespace: "kube-system", name: "coredns" };
const LEASES: Readonly<Record<Pair, ObjectRef>> = {
  controller: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...CONTROLLER_LEASE },
  kuberture: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", ...KUBERTURE_LEASE },
};
const PUBLISHED: ObjectRef = {
  apiVersion: "v1",
  kind: "Service",
  namespace: NAMESPACE,
  name: KUBERTURE_SERVICE,
};

/** Everything the soak runs. */
export class SoakWorld implements AsyncDisposable {
  readonly cluster: SoakCluster;
  readonly replicas: readonly Replica[];
  readonly dns: Responder;
  readonly proxy: ProxyProcess;
  readonly #nginx: Daemon;
  readonly #dir: TempDir;
  readonly #kubertureConfig: string;
  /** Ends of faults in progress, run by {@linkcode heal}. */
  readonly #pending = new Map<number, { timer: ReturnType<typeof setTimeout>; end: () => Promise<void> }>();
  /** An apiserver restart under way. */
  #restarting: Promise<void> | undefined;
  #serial = 0;
  /** Resolved when kuberture's config file is good again; `undefined` while it is good. */
  #configRestored: PromiseWithResolvers<void> | undefined;
  /** Replicas that exited at start (an invalid config file) and were started again once it was good. */
  crashLoops = 0;
  /** The Corefile outside our block as the last hand edit left it. */
  expectedOutside: string;
  /** Told of each process the soak is about to SIGKILL, so its exit is not taken for a crash. */
  onKill: (process: object) => void = () => {};

  private constructor(parts: {
    cluster: SoakCluster;
    replicas: Replica[];
    dns: Responder;
    proxy: ProxyProcess;
    nginx: Daemon;
    dir: TempDir;
    kubertureConfig: string;
    expectedOutside: string;
  }) {
    this.cluster = parts.cluster;
    this.replicas = parts.replicas;
    this.dns = parts.dns;
    this.proxy = parts.proxy;
    this.#nginx = parts.nginx;
    this.#dir = parts.dir;
    this.#kubertureConfig = parts.kubertureConfig;
    this.expectedOutside = parts.expectedOutside;
  }

  /**
   * Starts the cluster of `backend`, seeds it and starts every workload; `outsideOf` reads the
   * untouched text of the Corefile.
   */
  static async start(
    backend: Backend,
    options: { outsideOf: (corefile: string) => string },
  ): Promise<SoakWorld> {
    const dir = await tempDir("ouroboros-soak-");
    const stack: AsyncDisposable[] = [dir];
    try {
      const cluster = backend === "fake"
        ? await startFakeCluster(ACCOUNTS.map((account) => account.name), { dir: dir.path })
        : await (await import("./soak_real_cluster.ts")).startRealCluster({
          release: RELEASE,
          identities: ACCOUNTS,
          objects: [HTTP_ROUTE_CRD],
        });
      stack.push(cluster);
      await seed(cluster);
      const kubertureConfig = `${dir.path}/kuberture.yaml`;
      await Deno.writeTextFile(kubertureConfig, KUBERTURE_CONFIG);
      const replicas: Replica[] = [];
      for (const pair of ["controller", "kuberture"] as const) {
        for (const user of REPLICAS[pair]) {
          const process = await startReplica({ pair, user, cluster, kubertureConfig });
          stack.push({ [Symbol.asyncDispose]: () => replicaDispose(replicas, user) });
          replicas.push({ pair, user, process, starts: 1, stopped: false });
        }
      }
      // Every pod is a client (the selector also limits Records answers); it watches no Gateway API.
      const dns = await startResponder(cluster.kubeconfig(DNS_USER), { clientSelector: "" });
      stack.push(dns);
      const nginxPort = freePort();
      const nginx = await startNginx(
        `server {
    listen 127.0.0.1:${nginxPort} proxy_protocol;
    location / { return 200 "client=$proxy_protocol_addr\\n"; }
  }`,
        [["127.0.0.1", nginxPort]],
      );
      stack.push(nginx);
      const proxy = await startProxy([
        "--target-host=127.0.0.1",
        `--target-http-port=${nginxPort}`,
        `--target-https-port=${nginxPort}`,
      ]);
      return new SoakWorld({
        cluster,
        replicas,
        dns,
        proxy,
        nginx,
        dir,
        kubertureConfig,
        expectedOutside: options.outsideOf(corefileOf(await cluster.get(COREDNS))),
      });
    } catch (error) {
      for (const part of stack.reverse()) await part[Symbol.asyncDispose]();
      throw error;
    }
  }

  /** The Corefile as stored now. */
  async corefile(): Promise<string> {
    return corefileOf(await this.cluster.get(COREDNS));
  }

  /** The replica holding `pair`'s Lease now, if any. */
  async leader(pair: Pair): Promise<Replica | undefined> {
    const lease = await this.cluster.get(LEASES[pair]);
    const holder = podOf(
      String((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? ""),
    );
    return this.replicas.find((replica) => replica.pair === pair && replica.user === holder);
  }

  /** The target annotation of kuberture's Service, split; `undefined` before it exists. */
  async publishedTargets(): Promise<string[] | undefined> {
    const service = await this.cluster.get(PUBLISHED);
    const annotations = (service?.metadata as { annotations?: Record<string, string> } | undefined)
      ?.annotations;
    const target = annotations?.["external-dns.alpha.kubernetes.io/target"];
    return target === undefined ? undefined : target.split(",").filter((item) => item !== "");
  }

  /** Carries out one churn step; says what went wrong, and what was stored when it differs. */
  async churn(step: ChurnStep): Promise<ChurnOutcome> {
    const cluster = this.cluster;
    switch (step.kind) {
      case "ingress-put": {
        const stored = await putWithHosts(cluster, step.hosts, (hosts) => ingress(step.key, hosts));
        return stored === step.hosts ? {} : { stored: { ...step, hosts: stored } };
      }
      case "ingress-delete":
        await cluster.remove({ apiVersion: "networking.k8s.io/v1", kind: "Ingress", ...split(step.key) });
        return {};
      case "route-put": {
        const stored = await putWithHosts(cluster, step.hosts, (hosts) => route(step.key, hosts));
        return stored === step.hosts ? {} : { stored: { ...step, hosts: stored } };
      }
      case "route-delete":
        await cluster.remove({
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "HTTPRoute",
          ...split(step.key),
        });
        return {};
      case "slice-set":
        await cluster.put(
          apiServerSlice(
            step.endpoints.map((endpoint) => ({ addresses: [endpoint.ip], ready: endpoint.ready })),
            { name: SECOND_SLICE },
          ),
        );
        return {};
      case "records-set":
        await cluster.put(records(step.hostname, step.ips));
        return {};
      case "hairpin-call": {
        const problem = await this.#hairpin(step.source);
        return problem === undefined ? {} : { problem };
      }
    }
  }

  /** Starts one fault; faults with a duration end by themselves or at {@linkcode heal}. */
  async fault(step: FaultStep): Promise<void> {
    const cluster = this.cluster;
    switch (step.kind) {
      case "apiserver-restart": {
        if (this.#restarting !== undefined) return;
        const restarting = cluster.restartApiserver(step.downMs).finally(() => this.#restarting = undefined);
        this.#restarting = restarting;
        return;
      }
      case "compaction":
        await cluster.compact();
        return;
      case "watches-cut":
        cluster.cutWatches();
        return;
      case "watches-stall":
        cluster.stallWatches();
        return;
      case "error-burst":
        cluster.errorBurst(step.code, step.count);
        return;
      case "slow-answers":
        cluster.slowAnswers(step.ms, step.count);
        return;
      case "leader-stop": {
        const leader = await this.leader(step.pair);
        if (leader === undefined || leader.stopped) return;
        leader.process.kill("SIGSTOP");
        leader.stopped = true;
        const process = leader.process;
        this.#until(step.ms, () => {
          process.kill("SIGCONT");
          leader.stopped = false;
          return Promise.resolve();
        });
        return;
      }
      case "leader-kill": {
        const leader = await this.leader(step.pair);
        if (leader === undefined || leader.stopped) return;
        this.onKill(leader.process);
        leader.process.kill("SIGKILL");
        await leader.process.status;
        leader.process = await this.#startAgain(leader);
        leader.starts++;
        return;
      }
      case "leader-partition": {
        const leader = await this.leader(step.pair);
        if (leader === undefined || cluster.partitioned(leader.user)) return;
        cluster.partition(leader.user);
        this.#until(step.ms, () => {
          cluster.heal(leader.user);
          return Promise.resolve();
        });
        return;
      }
      case "corefile-hand-edit":
        await this.#handEdit(step.where, step.mark);
        return;
      case "kuberture-config-invalid": {
        if (this.#configRestored !== undefined) return;
        const restored = Promise.withResolvers<void>();
        this.#configRestored = restored;
        await Deno.writeTextFile(this.#kubertureConfig, INVALID_KUBERTURE_CONFIG);
        this.#until(step.ms, async () => {
          await Deno.writeTextFile(this.#kubertureConfig, KUBERTURE_CONFIG);
          this.#configRestored = undefined;
          restored.resolve();
        });
        return;
      }
    }
  }

  /** Ends every fault in progress now (partitions healed, stopped processes continued, files back). */
  async heal(): Promise<void> {
    for (const [id, pending] of [...this.#pending]) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      await pending.end();
    }
    await this.#restarting;
  }

  /** A person's edit of the Corefile: a rule line dropped or added in our block, or a comment outside. */
  async #handEdit(where: "block" | "outside", mark: number): Promise<void> {
    let edited: string | undefined;
    await this.cluster.edit(COREDNS, (stored) => {
      edited = undefined;
      const lines = corefileOf(stored).split("\n");
      if (where === "outside") {
        // Inside the server block, after its first line: where an operator adds a plugin.
        lines.splice(1, 0, `    # soak hand edit ${mark}`);
      } else {
        const rule = lines.findIndex((line) => line.trim().startsWith("rewrite name "));
        const end = lines.findIndex((line) => line.trim() === "# === END ouroboros ===");
        if (rule >= 0 && mark % 2 === 0) lines.splice(rule, 1);
        else if (end >= 0) {
          lines.splice(end, 0, `    rewrite name stale-${mark}.soak.example.com ${PROXY_FQDN}`);
        } else return undefined;
      }
      edited = lines.join("\n");
      return { ...stored, data: { ...(stored.data as object), Corefile: edited } };
    });
    if (where === "outside" && edited !== undefined) this.expectedOutside = this.#outsideAfter(edited);
  }

  #outsideAfter(text: string): string {
    const lines = text.split("\n");
    const begin = lines.findIndex((line) => line.trim().startsWith("# === BEGIN ouroboros"));
    const end = lines.findIndex((line) => line.trim() === "# === END ouroboros ===");
    return begin < 0 || end < begin ? text : [...lines.slice(0, begin), ...lines.slice(end + 1)].join("\n");
  }

  async #hairpin(source: string): Promise<string | undefined> {
    const port = this.proxy.http?.port;
    const output = await new Deno.Command(requireTool("curl"), {
      args: [
        "--silent",
        "--show-error",
        "--max-time",
        "5",
        "--interface",
        source,
        `http://127.0.0.1:${port}/`,
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const body = new TextDecoder().decode(output.stdout);
    if (output.code !== 0) {
      return `hairpinned call from ${source} failed: ${new TextDecoder().decode(output.stderr).trim()}`;
    }
    return body === `client=${source}\n`
      ? undefined
      : `hairpinned call from ${source}: the backend saw ${JSON.stringify(body.trim())}`;
  }

  /**
   * Starts a killed replica again, as its Deployment would. A kuberture replica started while its
   * config file is invalid exits at once (it refuses a bad file before contacting the cluster):
   * then, as the kubelet keeps restarting a crashing container, it is started again once the file
   * is good.
   */
  async #startAgain(replica: Replica): Promise<ReplicaProcess> {
    const start = () =>
      startReplica({
        pair: replica.pair,
        user: replica.user,
        cluster: this.cluster,
        kubertureConfig: this.#kubertureConfig,
      });
    const restored = this.#configRestored;
    if (replica.pair !== "kuberture" || restored === undefined) return await start();
    try {
      return await start();
    } catch {
      this.crashLoops++;
      await restored.promise;
      return await start();
    }
  }

  #until(ms: number, end: () => Promise<void>): void {
    const id = ++this.#serial;
    const timer = setTimeout(() => {
      this.#pending.delete(id);
      void end();
    }, ms);
    this.#pending.set(id, { timer, end });
  }

  async [Symbol.asyncDispose](): Promise<void> {
    for (const pending of this.#pending.values()) clearTimeout(pending.timer);
    for (const replica of this.replicas) {
      this.onKill(replica.process);
      if (replica.stopped) replica.process.kill("SIGCONT");
      replica.process.kill("SIGKILL");
      await replica.process.status;
    }
    await this.proxy[Symbol.asyncDispose]();
    await this.#nginx[Symbol.asyncDispose]();
    await this.dns[Symbol.asyncDispose]();
    await this.#restarting?.catch(() => {});
    await this.cluster[Symbol.asyncDispose]();
    await this.#dir[Symbol.asyncDispose]();
  }
}

async function replicaDispose(replicas: readonly Replica[], user: string): Promise<void> {
  const replica = replicas.find((candidate) => candidate.user === user);
  if (replica === undefined) return;
  replica.process.kill("SIGKILL");
  await replica.process.status;
}

function startReplica(
  options: { pair: Pair; user: string; cluster: SoakCluster; kubertureConfig: string },
): Promise<ReplicaProcess> {
  const kubeconfig = `--kubeconfig=${options.cluster.kubeconfig(options.user)}`;
  if (options.pair === "controller") {
    return startController(
      [
        kubeconfig,
        `--proxy-fqdn=${PROXY_FQDN}`,
        "--cluster-domain=cluster.local",
        "--mode=coredns",
        "--gateway-api",
        "--gateway-route-kinds=HTTPRoute",
        ...ELECTION_FLAGS,
      ],
      { env: { HOSTNAME: options.user } },
    );
  }
  return startKuberture(
    [kubeconfig, `--config=${options.kubertureConfig}`, ...KUBERTURE_FLAGS],
    { env: { POD_NAMESPACE: NAMESPACE, HOSTNAME: options.user } },
  );
}

function corefileOf(stored: Record<string, unknown> | undefined): string {
  return ((stored?.data ?? {}) as Record<string, string>).Corefile ?? "";
}

/** A client pod as a kubelet leaves it: Running, with its address. */
function clientPod(namespace: string, name: string, ip: string, labels: Record<string, string>) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, labels },
    spec: { containers: [{ name: "main", image: "example" }] },
    status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
  };
}

async function seed(cluster: SoakCluster): Promise<void> {
  for (const name of ["shop", "cert-manager", NAMESPACE]) {
    await cluster.put({ apiVersion: "v1", kind: "Namespace", metadata: { name } });
  }
  await cluster.put({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-system", name: "coredns" },
    data: { Corefile: KUBEADM },
  });
  await cluster.put(apiServerSlice(["198.51.100.1"], { name: SECOND_SLICE }));
  await cluster.put(
    clientPod("cert-manager", "cert-manager-7d9f", CERT_MANAGER_IP, {
      "app.kubernetes.io/name": "cert-manager",
    }),
  );
  await cluster.put(clientPod("shop", "web-5c4b", OTHER_POD_IP, { app: "web" }));
  await cluster.put({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: NAMESPACE, name: "ouroboros-proxy" },
    spec: {
      type: "ClusterIP",
      clusterIP: PROXY_CLUSTER_IP,
      clusterIPs: [PROXY_CLUSTER_IP],
      ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }],
    },
  });
  await cluster.put(records("partner.soak.example.org", ["192.0.2.10"]));
}

/**
 * Puts the object `make` builds from `hosts` and returns the hosts stored: `hosts` itself, or,
 * when the server refused some of them as invalid (the fields it names end in `hosts[i]` or
 * `hostnames[i]`), the others, put again (see the module doc).
 */
async function putWithHosts(
  cluster: SoakCluster,
  hosts: readonly PlannedHost[],
  make: (hosts: readonly PlannedHost[]) => Record<string, unknown>,
): Promise<readonly PlannedHost[]> {
  try {
    await cluster.put(make(hosts));
    return hosts;
  } catch (error) {
    if (!(error instanceof RefusedObject)) throw error;
    const refused = new Set(error.fields.flatMap((field) => {
      const match = /(?:hosts|hostnames)\[(\d+)\]$/.exec(field);
      return match === null ? [] : [Number(match[1])];
    }));
    if (refused.size === 0) throw error;
    const kept = hosts.filter((_, index) => !refused.has(index));
    await cluster.put(make(kept));
    return kept;
  }
}

function split(key: string): { namespace: string; name: string } {
  const [namespace = "", name = ""] = key.split("/");
  return { namespace, name };
}

function ingress(key: string, hosts: readonly PlannedHost[]): Record<string, unknown> {
  const { namespace, name } = split(key);
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace, name },
    spec: {
      // The real apiserver wants a backend or rules; hostnames come from spec.tls only (--ingress-hosts=tls).
      defaultBackend: { service: { name: "web", port: { number: 80 } } },
      tls: [{ hosts: hosts.map((host) => host.raw), secretName: `${name}-tls` }],
    },
  };
}

function route(key: string, hosts: readonly PlannedHost[]): Record<string, unknown> {
  const { namespace, name } = split(key);
  return {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    metadata: { namespace, name },
    spec: { hostnames: hosts.map((host) => host.raw), parentRefs: [{ name: "gateway" }] },
  };
}

function records(hostname: string, ips: readonly string[]): Record<string, unknown> {
  return {
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { namespace: "shop", name: "partner" },
    spec: { a: [{ labels: { app: "web" }, hostname, "ip-addresses": ips, "forward-type": "manager" }] },
  };
}
