/**
 * Scenario 7 of the real-component suite: the list-watch caches of every subcommand that keeps
 * one, against a real apiserver's watch cache. One release runs the controller (coredns mode),
 * `ouroboros dns` and kuberture, as the chart runs them, over 2,000 Ingresses, while a churn of
 * spec changes runs through two faults: an apiserver restart (its watch cache starts again, so
 * every resumed watch is too old: 410 Gone), and an etcd compaction followed by a restart. After
 * each fault every one must converge on what the apiserver holds:
 * - the controller: the Corefile's hosts are exactly the Ingresses' hosts;
 * - dns: every host the churn changed answers a pod with the proxy's ClusterIP, and the host it
 *   replaced no longer does;
 * - kuberture: an address change of the EndpointSlice made after the fault is published.
 * And the apiserver's audit log must show, per identity and per collection it watches (a kind in a
 * namespace with a selector: one reflector), at most 2 lists per fault: a reflector that relists
 * in a loop, or on every watch reconnect, fails here. (kuberture also lists its own Services and
 * DNSEndpoints once per pass, by design; it never watches those, so they are not judged here.)
 *
 * @module
 */

import assert from "node:assert/strict";
import { parse, stringify } from "yaml";
import { withOutputs } from "../../chart/kuberture_support.ts";
import { freePort } from "../../support/daemons.ts";
import { queryDns, startDnsmasq } from "../../support/dns_tools.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController, startDns, startKuberture } from "../../support/ouroboros_process.ts";
import { prng } from "../../support/random.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import type { AuditedRequest } from "../rbac_usage.ts";
import { apiServerSlice, SECOND_SLICE } from "../../support/api_server_slice.ts";
import { markPodRunning } from "../running_pod.ts";
import { type RenderedRelease, type Stack, startStack } from "../stack.ts";

const COUNT = 2_000;
const NAMESPACES = 20;

const COREFILE = `.:53 {
    errors
    forward . /etc/resolv.conf
    cache 30
    reload
}
`;

function ingress(index: number, version: number): Record<string, unknown> {
  const host = `app-${index}-v${version}.example.com`;
  return ingressManifest({
    namespace: `tenant-${index % NAMESPACES}`,
    name: `app-${index}`,
    tls: { hosts: [host], secretName: `app-${index}-tls` },
    ruleHosts: [host],
    service: { name: `app-${index}`, port: 80 },
  });
}

/** The TLS hosts of every Ingress the apiserver holds now (read as the admin). */
async function hostsInApi(stack: Stack): Promise<string[]> {
  const response = await stack.plane.request("/apis/networking.k8s.io/v1/ingresses");
  if (!response.ok) throw new Error(`listing Ingresses: ${response.status} ${await response.text()}`);
  const list = await response.json() as { items: { spec?: { tls?: { hosts?: string[] }[] } }[] };
  return list.items.flatMap((item) => (item.spec?.tls ?? []).flatMap((tls) => tls.hosts ?? [])).sort();
}

/** The hosts of the controller's block in the Corefile. */
async function hostsInCorefile(stack: Stack): Promise<string[]> {
  const response = await stack.plane.request("/api/v1/namespaces/kube-system/configmaps/coredns");
  if (!response.ok) throw new Error(`reading the ConfigMap: ${response.status} ${await response.text()}`);
  const corefile = (await response.json() as { data?: { Corefile?: string } }).data?.Corefile ?? "";
  return [...corefile.matchAll(/^\s*rewrite name (\S+) /gm)].map((match) => match[1]!).sort();
}

/** A churn under way: how many changes it has made so far, which Ingresses it changed, and its end. */
interface Churn {
  readonly made: () => number;
  /** Per Ingress index changed in this churn: its version now. */
  readonly changed: ReadonlyMap<number, number>;
  readonly done: Promise<number>;
}

/**
 * Spec changes one after another until aborted: a random Ingress gets a new host. A change the
 * apiserver could not take (restarting) is simply not made; the truth is read back afterwards.
 */
function churn(
  stack: Stack,
  versions: Map<number, number>,
  signal: AbortSignal,
  random: () => number,
): Churn {
  const changed = new Map<number, number>();
  let made = 0;
  const done = (async () => {
    while (!signal.aborted) {
      const index = Math.floor(random() * COUNT);
      const version = (versions.get(index) ?? 0) + 1;
      const host = `app-${index}-v${version}.example.com`;
      try {
        const response = await stack.plane.request(
          `/apis/networking.k8s.io/v1/namespaces/tenant-${index % NAMESPACES}/ingresses/app-${index}`,
          {
            method: "PATCH",
            headers: { "Content-Type": "application/merge-patch+json" },
            body: JSON.stringify({ spec: { tls: [{ hosts: [host], secretName: `app-${index}-tls` }] } }),
            signal: AbortSignal.timeout(5_000),
          },
        );
        await response.body?.cancel();
        if (response.ok) {
          versions.set(index, version);
          changed.set(index, version);
          made++;
        } else {
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      } catch {
        // The apiserver is restarting: try again shortly.
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    return made;
  })();
  return { made: () => made, changed, done };
}

/**
 * The collection a list or watch reads: resource, namespace and selectors (one reflector each; dns
 * has three of Services: the proxy's, its own, and par's proxies by label).
 */
function collection(request: AuditedRequest): string {
  const query = new URL(request.requestURI, "https://apiserver").searchParams;
  const selectors = ["labelSelector", "fieldSelector"].map((key) => query.get(key)).filter((value) =>
    value !== null
  );
  return [request.resource, request.namespace ?? "*", ...selectors].join(" ");
}

/** An identity's lists of each collection it watches, received at or after `from` and before `to`. */
function listsOfWatched(requests: readonly AuditedRequest[], user: string, from: string, to: string) {
  const own = requests.filter((request) => request.user === user);
  const watched = new Set(own.filter((request) => request.verb === "watch").map(collection));
  const lists = new Map<string, number>([...watched].map((key) => [key, 0]));
  for (const request of own) {
    if (request.verb !== "list" || request.received < from || request.received >= to) continue;
    const key = collection(request);
    if (watched.has(key)) lists.set(key, lists.get(key)! + 1);
  }
  return lists;
}

/** The kuberture config the chart renders, its listeners moved to free loopback ports, as a file. */
async function kubertureConfigFile(stack: Stack, release: RenderedRelease): Promise<string> {
  const [configMap] = renderedOfKind(release, "ConfigMap").filter((object) =>
    (object.metadata as { name: string }).name === KUBERTURE
  );
  if (configMap === undefined) throw new Error("the render has no kuberture ConfigMap");
  const rendered = parse((configMap.data as Record<string, string>)["config.yaml"]!) as Record<
    string,
    unknown
  >;
  const path = `${stack.dir}/kuberture-config.yaml`;
  await Deno.writeTextFile(
    path,
    stringify({
      ...rendered,
      metricsBindAddress: `127.0.0.1:${freePort()}`,
      healthProbeBindAddress: `127.0.0.1:${freePort()}`,
    }),
  );
  return path;
}

const KUBERTURE = "ouroboros-kuberture";
/** The pod dns answers: hairpinned hosts are answered for pods only. */
const POD_IP = "127.0.62.1";

Deno.test("real: the reflectors against a real watch cache — 2,000 Ingresses, restarts and a compaction during churn; controller, dns and kuberture", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: ["dns.enabled=true", "dns.replicaCount=1"],
      values: withOutputs([{ name: "api", hostname: ["api.k8s.example.com"], serviceName: "kuberture-api" }]),
    }],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply([
      ...renderedOfKind(release, "Service"),
      {
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name: "coredns", namespace: "kube-system" },
        data: { Corefile: COREFILE },
      },
      apiServerSlice(["192.0.2.1"], { name: SECOND_SLICE }),
      {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "client", namespace: "tenant-0" },
        spec: { containers: [{ name: "app", image: "registry.invalid/app:1" }] },
      },
    ]);
    await markPodRunning(stack, {
      metadata: { name: "client", namespace: "tenant-0" },
      spec: {
        containers: [{ name: "app", image: "registry.invalid/app:1" }],
      },
    }, POD_IP);
    const proxyIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    for (let start = 0; start < COUNT; start += 500) {
      await stack.apply(Array.from({ length: 500 }, (_, offset) => ingress(start + offset, 0)));
    }

    const controllerLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros",
      container: "controller",
    });
    await using controller = await startController(controllerLaunch.args, { env: controllerLaunch.env });
    await using upstream = await startDnsmasq();
    const dnsLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros-dns",
      container: "dns",
      overrides: [`--upstream=${upstream.endpoint.host}:${upstream.endpoint.port}`],
    });
    await using dns = await startDns(dnsLaunch.args, { env: dnsLaunch.env });
    const kubertureLaunch = await chartLaunch(stack, release, {
      workload: KUBERTURE,
      container: "kuberture",
      overrides: [`--config=${await kubertureConfigFile(stack, release)}`],
    });
    await using kuberture = await startKuberture(kubertureLaunch.args, { env: kubertureLaunch.env });

    /** What dns answers the pod for each name: the proxy's ClusterIP or something else. */
    const hairpinned = async (names: readonly string[]): Promise<boolean[]> => {
      const replies = await queryDns(
        { host: dns.dns.hostname, port: dns.dns.port },
        names.map((name) => ({ name })),
        { source: POD_IP, timeoutSeconds: 2 },
      );
      return replies.map((reply) => (reply.answers ?? []).some((answer) => answer.data === proxyIp));
    };
    // The Service does not exist until kuberture's first pass: NotFound is "not published yet".
    const kubertureTarget = async () => {
      const run = await stack.kubectl([
        "get",
        "service",
        "-n",
        "ouroboros",
        "kuberture-api",
        "-o",
        "jsonpath={.metadata.annotations.external-dns\\.alpha\\.kubernetes\\.io/target}",
      ]);
      if (run.code !== 0 && run.stderr.includes("NotFound")) return "";
      if (run.code !== 0) {
        throw new Error(`kubectl get service kuberture-api failed (${run.code}): ${run.stderr}`);
      }
      return run.stdout.trim();
    };
    const explain = <T>(wait: () => Promise<T>) =>
      controller.explain(async () => {
        try {
          return await wait();
        } catch (error) {
          const tail = (logs: readonly unknown[]) =>
            logs.slice(-10).map((line) => JSON.stringify(line)).join("\n");
          throw new Error(
            `${error instanceof Error ? error.message : String(error)}\ndns's last lines:\n${
              tail(dns.logs)
            }\nkuberture's last lines:\n${tail(kuberture.logs)}`,
          );
        }
      });
    const versions = new Map<number, number>();
    const converged = async (what: string, changed: ReadonlyMap<number, number>, address: string) => {
      await explain(() =>
        waitFor(`${what}: the Corefile to hold exactly the apiserver's hosts`, async () => {
          const [api, written] = await Promise.all([hostsInApi(stack), hostsInCorefile(stack)]);
          return api.length === COUNT && JSON.stringify(api) === JSON.stringify(written);
        }, { timeoutMs: 120_000, intervalMs: 500 })
      );
      const hosts = [...changed].map(([index, version]) => `app-${index}-v${version}.example.com`);
      const replaced = [...changed].map(([index, version]) => `app-${index}-v${version - 1}.example.com`);
      await explain(() =>
        waitFor(
          `${what}: dns to answer the pod for the ${hosts.length} changed hosts, and not the replaced ones`,
          async () => {
            for (let start = 0; start < hosts.length; start += 50) {
              const now = await hairpinned(hosts.slice(start, start + 50));
              if (now.some((answered) => !answered)) return false;
              const old = await hairpinned(replaced.slice(start, start + 50));
              if (old.some((answered) => answered)) return false;
            }
            return true;
          },
          { timeoutMs: 60_000, intervalMs: 500 },
        )
      );
      await explain(() =>
        waitFor(
          `${what}: kuberture to publish ${address}`,
          async () => (await kubertureTarget()) === address,
          {
            timeoutMs: 60_000,
            intervalMs: 500,
          },
        )
      );
    };
    await converged("the start", new Map(), "192.0.2.1");
    assert.deepEqual(await hairpinned(["app-0-v0.example.com", "app-1999-v0.example.com"]), [true, true]);

    const users = {
      controller: stack.identity("ouroboros", "ouroboros").user,
      dns: stack.identity("ouroboros", "ouroboros-dns").user,
      kuberture: stack.identity("ouroboros", KUBERTURE).user,
    };
    const random = prng(7);
    const phases: { name: string; fault: () => Promise<void> }[] = [
      { name: "an apiserver restart", fault: () => stack.plane.restartApiserver() },
      {
        name: "an etcd compaction and an apiserver restart",
        fault: async () => {
          await stack.plane.compact();
          await stack.plane.restartApiserver();
        },
      },
    ];
    const windows: { name: string; from: string; to: string }[] = [];
    for (const [number, phase] of phases.entries()) {
      const from = new Date().toISOString();
      const stop = new AbortController();
      const changes = churn(stack, versions, stop.signal, random);
      // The churn runs on both sides of the fault: 100 changes before it, 100 after it.
      await waitFor("100 changes before the fault", () => changes.made() >= 100, { timeoutMs: 60_000 });
      await phase.fault();
      const before = changes.made();
      await waitFor("100 changes after the fault", () => changes.made() >= before + 100, {
        timeoutMs: 60_000,
      });
      stop.abort();
      await changes.done;
      // The EndpointSlice moves after the fault: only a kuberture whose watch resumed sees it.
      const address = `192.0.2.${number + 2}`;
      await stack.apply([apiServerSlice([address], { name: SECOND_SLICE })]);
      await converged(`after ${phase.name}`, changes.changed, address);
      windows.push({ name: phase.name, from, to: new Date(Date.now() + 1_000).toISOString() });
    }

    // The watches are audited when they end: stop everything, then judge each fault's window.
    for (const process of [controller, dns, kuberture]) {
      process.kill("SIGTERM");
      await process.status;
    }
    const audited = await stack.audited();
    for (const [name, user] of Object.entries(users)) {
      for (const window of windows) {
        const lists = listsOfWatched(audited, user, window.from, window.to);
        assert.ok(lists.size > 0, `${name} watched nothing`);
        for (const [watched, count] of lists) {
          assert.ok(
            count <= 2,
            `${window.name}: ${name} listed ${watched} ${count} times (at most 2 expected)`,
          );
        }
      }
    }
    // The faults did make watches fail with 410: some relist at the last version happened (one
    // request, no limit, so the watch cache answers with data at least that new).
    const relists = audited.filter((request) =>
      Object.values(users).includes(request.user) && request.verb === "list" &&
      /[?&]resourceVersion=[1-9]/.test(request.requestURI)
    );
    assert.ok(relists.length > 0, "no watch was refused as too old: the faults did not reach the reflectors");
    for (const relist of relists) {
      assert.doesNotMatch(relist.requestURI, /[?&]limit=/, "a relist at a version is one request");
    }
  } catch (error) {
    stack.keep();
    throw error;
  }
});
