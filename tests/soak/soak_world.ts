/**
 * The soak's cluster and workloads: the in-memory API server, two elected controller replicas
 * (coredns mode), two elected kuberture replicas, one `ouroboros dns` with a scripted upstream,
 * and the proxy in front of nginx with `proxy_protocol`; and how each step of the plan is carried
 * out on them.
 *
 * Decisions a reader could not guess:
 * - Every process runs as its own API user, so the audit log tells the replicas apart and one
 *   can be partitioned; the election durations are the demo's (3 s lease), so a failover takes
 *   seconds.
 * - The server sends a BOOKMARK every second on watches that ask for them, as a real apiserver
 *   does (about once a minute there).
 * - A fault with a duration registers its own end in {@linkcode SoakWorld.heal}, which the driver
 *   calls before every quiet period; a stall has no end but the clients' own detection.
 * - A SIGKILLed replica is started again at once, as its Deployment would.
 *
 * Effects: starts and stops processes, writes files in a temporary folder, serves HTTP.
 *
 * @module
 */

import { KUBEADM } from "../controller/modes/coredns/fixtures/corefiles.ts";
import { ELECTION_FLAGS, podOf } from "../demo/elected_replicas.ts";
import { KUBERTURE_CONFIG, KUBERTURE_NAMESPACE, KUBERTURE_SERVICE } from "../demo/kuberture_publisher.ts";
import { putClientPods, type Responder, startResponder } from "../demo/dns_responder.ts";
import { putApiServerSlice } from "../support/api_server_slice.ts";
import { type Daemon, freePort, startNginx } from "../support/daemons.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
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
import type { ChurnStep, FaultStep, Pair, PlannedHost } from "./soak_plan.ts";

/** The rewrite target the controllers write. */
export const PROXY_FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
/** The proxy Service's ClusterIP, which `ouroboros dns` answers for hairpinned names. */
export const PROXY_CLUSTER_IP = "10.96.0.7";
/** The kuberture replicas' Lease. */
export const KUBERTURE_LEASE = { namespace: KUBERTURE_NAMESPACE, name: "kuberture-soak" } as const;
/** The replicas of each pair, as API users and pod names. */
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

/** A replica process of either pair. */
type ReplicaProcess = ControllerProcess | KubertureProcess;

/** One replica: its user and the process running now (replaced after a SIGKILL). */
export interface Replica {
  readonly pair: Pair;
  readonly user: string;
  process: ReplicaProcess;
  /** How many times it was started (1 + restarts). */
  starts: number;
  /** True between SIGSTOP and SIGCONT. */
  stopped: boolean;
}

/** Outcome of a hairpinned call: undefined when nginx saw the caller's address. */
export type HairpinProblem = string | undefined;

/** Everything the soak runs. */
export class SoakWorld implements AsyncDisposable {
  readonly server: FakeApiServer;
  readonly replicas: readonly Replica[];
  readonly dns: Responder;
  readonly proxy: ProxyProcess;
  readonly #nginx: Daemon;
  readonly #dir: TempDir;
  readonly #kubertureConfig: string;
  /** Ends of faults in progress, run by {@linkcode heal}. */
  readonly #pending = new Map<number, { timer: ReturnType<typeof setTimeout>; end: () => Promise<void> }>();
  #serial = 0;
  /** The Corefile outside our block as the last hand edit left it. */
  expectedOutside: string;
  /** Told of each process the soak is about to SIGKILL, so its exit is not taken for a crash. */
  onKill: (process: object) => void = () => {};

  private constructor(parts: {
    server: FakeApiServer;
    replicas: Replica[];
    dns: Responder;
    proxy: ProxyProcess;
    nginx: Daemon;
    dir: TempDir;
    kubertureConfig: string;
    expectedOutside: string;
  }) {
    this.server = parts.server;
    this.replicas = parts.replicas;
    this.dns = parts.dns;
    this.proxy = parts.proxy;
    this.#nginx = parts.nginx;
    this.#dir = parts.dir;
    this.#kubertureConfig = parts.kubertureConfig;
    this.expectedOutside = parts.expectedOutside;
  }

  /** Starts the server, seeds it and starts every workload; `outsideOf` reads the untouched text. */
  static async start(outsideOf: (corefile: string) => string): Promise<SoakWorld> {
    const users = [...REPLICAS.controller, ...REPLICAS.kuberture, DNS_USER];
    const server = await startFakeApiServer({
      users: Object.fromEntries(users.map((user) => [`token-of-${user}`, user])),
      bookmarkIntervalMs: 1_000,
    });
    const dir = await tempDir("ouroboros-soak-");
    const stack: AsyncDisposable[] = [dir, { [Symbol.asyncDispose]: () => server.close() }];
    try {
      for (const user of users) {
        await writeKubeconfig(`${dir.path}/kubeconfig-${user}`, {
          server: server.url,
          token: `token-of-${user}`,
        });
      }
      seed(server);
      const kubertureConfig = `${dir.path}/kuberture.yaml`;
      await Deno.writeTextFile(kubertureConfig, KUBERTURE_CONFIG);
      const replicas: Replica[] = [];
      for (const pair of ["controller", "kuberture"] as const) {
        for (const user of REPLICAS[pair]) {
          const process = await startReplica({ pair, user, dir: dir.path, kubertureConfig });
          stack.push({ [Symbol.asyncDispose]: () => replicaDispose(replicas, user) });
          replicas.push({ pair, user, process, starts: 1, stopped: false });
        }
      }
      // Every pod is a client (the selector also limits Records answers); it watches no Gateway API.
      const dns = await startResponder(`${dir.path}/kubeconfig-${DNS_USER}`, { clientSelector: "" });
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
      const corefile = corefileOf(server);
      return new SoakWorld({
        server,
        replicas,
        dns,
        proxy,
        nginx,
        dir,
        kubertureConfig,
        expectedOutside: outsideOf(corefile),
      });
    } catch (error) {
      for (const part of stack.reverse()) await part[Symbol.asyncDispose]();
      throw error;
    }
  }

  /** The Corefile as stored now. */
  corefile(): string {
    return corefileOf(this.server);
  }

  /** The replica holding `pair`'s Lease now, if any. */
  leader(pair: Pair): Replica | undefined {
    const lease = pair === "controller"
      ? this.server.get("coordination.k8s.io/v1", "Lease", "ouroboros", "ouroboros-controller")
      : this.server.get("coordination.k8s.io/v1", "Lease", KUBERTURE_LEASE.namespace, KUBERTURE_LEASE.name);
    const holder = podOf(
      String((lease?.spec as { holderIdentity?: string } | undefined)?.holderIdentity ?? ""),
    );
    return this.replicas.find((replica) => replica.pair === pair && replica.user === holder);
  }

  /** The target annotation of kuberture's Service, split; `undefined` before it exists. */
  publishedTargets(): string[] | undefined {
    const service = this.server.get("v1", "Service", KUBERTURE_NAMESPACE, KUBERTURE_SERVICE);
    const annotations = (service?.metadata as { annotations?: Record<string, string> } | undefined)
      ?.annotations;
    const target = annotations?.["external-dns.alpha.kubernetes.io/target"];
    return target === undefined ? undefined : target.split(",").filter((item) => item !== "");
  }

  /** Carries out one churn step; a hairpin call returns what went wrong, if anything. */
  async churn(step: ChurnStep): Promise<HairpinProblem> {
    const server = this.server;
    switch (step.kind) {
      case "ingress-put":
        put(server, ingress(step.key, step.hosts));
        return undefined;
      case "ingress-delete":
        remove(server, "networking.k8s.io/v1", "Ingress", step.key);
        return undefined;
      case "route-put":
        put(server, route(step.key, step.hosts));
        return undefined;
      case "route-delete":
        remove(server, "gateway.networking.k8s.io/v1", "HTTPRoute", step.key);
        return undefined;
      case "slice-set":
        putApiServerSlice(
          server,
          step.endpoints.map((endpoint) => ({ addresses: [endpoint.ip], ready: endpoint.ready })),
        );
        return undefined;
      case "records-set":
        put(server, records(step.hostname, step.ips));
        return undefined;
      case "hairpin-call":
        return await this.#hairpin(step.source);
    }
  }

  /** Starts one fault; faults with a duration end by themselves or at {@linkcode heal}. */
  async fault(step: FaultStep): Promise<void> {
    const server = this.server;
    switch (step.kind) {
      case "apiserver-restart":
        await server.stop();
        this.#until(step.downMs, () => server.restart());
        return;
      case "compaction":
        server.compact();
        return;
      case "watches-cut":
        server.faults.dropWatches();
        return;
      case "watches-stall":
        server.faults.stallWatches();
        return;
      case "error-burst":
        server.faults.inject("any", {
          type: "status",
          code: step.code,
          reason: step.code === 429 ? "TooManyRequests" : "InternalError",
          ...(step.code === 429 ? { retryAfterSeconds: 1 } : {}),
        }, { count: step.count });
        return;
      case "slow-answers":
        server.faults.inject("any", { type: "delay", ms: step.ms }, { count: step.count });
        return;
      case "leader-stop": {
        const leader = this.leader(step.pair);
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
        const leader = this.leader(step.pair);
        if (leader === undefined || leader.stopped) return;
        this.onKill(leader.process);
        leader.process.kill("SIGKILL");
        await leader.process.status;
        leader.process = await startReplica({
          pair: leader.pair,
          user: leader.user,
          dir: this.#dir.path,
          kubertureConfig: this.#kubertureConfig,
        });
        leader.starts++;
        return;
      }
      case "leader-partition": {
        const leader = this.leader(step.pair);
        if (leader === undefined || server.partitioned().includes(leader.user)) return;
        server.partition(leader.user);
        this.#until(step.ms, () => {
          server.heal(leader.user);
          return Promise.resolve();
        });
        return;
      }
      case "corefile-hand-edit":
        this.#handEdit(step.where, step.mark);
        return;
      case "kuberture-config-invalid":
        await Deno.writeTextFile(this.#kubertureConfig, INVALID_KUBERTURE_CONFIG);
        this.#until(step.ms, () => Deno.writeTextFile(this.#kubertureConfig, KUBERTURE_CONFIG));
        return;
    }
  }

  /** Ends every fault in progress now (partitions healed, stopped processes continued, files back). */
  async heal(): Promise<void> {
    for (const [id, pending] of [...this.#pending]) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      await pending.end();
    }
  }

  /** A person's edit of the Corefile: a rule line dropped or added in our block, or a comment outside. */
  #handEdit(where: "block" | "outside", mark: number): void {
    const stored = this.server.get("v1", "ConfigMap", "kube-system", "coredns");
    if (stored === undefined) return;
    const corefile = corefileOf(this.server);
    const lines = corefile.split("\n");
    if (where === "outside") {
      // Inside the server block, after its first line: where an operator adds a plugin.
      lines.splice(1, 0, `    # soak hand edit ${mark}`);
    } else {
      const rule = lines.findIndex((line) => line.trim().startsWith("rewrite name "));
      const end = lines.findIndex((line) => line.trim() === "# === END ouroboros ===");
      if (rule >= 0 && mark % 2 === 0) lines.splice(rule, 1);
      else if (end >= 0) {
        lines.splice(end, 0, `    rewrite name stale-${mark}.soak.example.com ${PROXY_FQDN}`);
      } else return;
    }
    const text = lines.join("\n");
    const { resourceVersion: _, ...metadata } = stored.metadata as Record<string, unknown>;
    this.server.update({ ...stored, metadata, data: { ...(stored.data as object), Corefile: text } });
    if (where === "outside") this.expectedOutside = this.#outsideAfter(text);
  }

  #outsideAfter(text: string): string {
    const lines = text.split("\n");
    const begin = lines.findIndex((line) => line.trim().startsWith("# === BEGIN ouroboros"));
    const end = lines.findIndex((line) => line.trim() === "# === END ouroboros ===");
    return begin < 0 || end < begin ? text : [...lines.slice(0, begin), ...lines.slice(end + 1)].join("\n");
  }

  async #hairpin(source: string): Promise<HairpinProblem> {
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
      if (replica.stopped) replica.process.kill("SIGCONT");
      replica.process.kill("SIGKILL");
      await replica.process.status;
    }
    await this.proxy[Symbol.asyncDispose]();
    await this.#nginx[Symbol.asyncDispose]();
    await this.dns[Symbol.asyncDispose]();
    await this.server.close();
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
  options: { pair: Pair; user: string; dir: string; kubertureConfig: string },
): Promise<ReplicaProcess> {
  const kubeconfig = `--kubeconfig=${options.dir}/kubeconfig-${options.user}`;
  if (options.pair === "controller") {
    return startController(
      [
        kubeconfig,
        `--proxy-fqdn=${PROXY_FQDN}`,
        "--cluster-domain=cluster.local",
        "--mode=coredns",
        ...ELECTION_FLAGS,
      ],
      { env: { HOSTNAME: options.user } },
    );
  }
  return startKuberture(
    [kubeconfig, `--config=${options.kubertureConfig}`, ...KUBERTURE_FLAGS],
    { env: { POD_NAMESPACE: KUBERTURE_NAMESPACE, HOSTNAME: options.user } },
  );
}

function corefileOf(server: FakeApiServer): string {
  const stored = server.get("v1", "ConfigMap", "kube-system", "coredns");
  return ((stored?.data ?? {}) as Record<string, string>).Corefile ?? "";
}

function seed(server: FakeApiServer): void {
  server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-system", name: "coredns" },
    data: { Corefile: KUBEADM },
  });
  putApiServerSlice(server, ["198.51.100.1"]);
  putClientPods(server);
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "ouroboros", name: "ouroboros-proxy" },
    spec: {
      type: "ClusterIP",
      clusterIP: PROXY_CLUSTER_IP,
      clusterIPs: [PROXY_CLUSTER_IP],
      ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }],
    },
  });
  put(server, records("partner.soak.example.org", ["192.0.2.10"]));
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
    spec: { tls: [{ hosts: hosts.map((host) => host.raw), secretName: `${name}-tls` }] },
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

function put(server: FakeApiServer, object: Record<string, unknown>): void {
  const { namespace, name } = object.metadata as { namespace: string; name: string };
  if (server.get(String(object.apiVersion), String(object.kind), namespace, name) === undefined) {
    server.create(object);
  } else server.update(object);
}

function remove(server: FakeApiServer, apiVersion: string, kind: string, key: string): void {
  const { namespace, name } = split(key);
  if (server.get(apiVersion, kind, namespace, name) !== undefined) {
    server.remove(apiVersion, kind, namespace, name);
  }
}
