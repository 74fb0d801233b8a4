/**
 * Scenario 7 of the real-component suite: the list-watch cache against a real apiserver's watch
 * cache. The controller (coredns mode, as the chart runs it) follows 2,000 Ingresses while a
 * churn of spec changes runs through two faults: an apiserver restart (its watch cache starts
 * again, so every resumed watch is too old: 410 Gone), and an etcd compaction followed by a
 * restart. After each fault it must converge on exactly the hostnames the apiserver holds, and the
 * apiserver's audit log must show at most 2 lists per kind (Ingresses, the ConfigMap) per fault:
 * a reflector that relists in a loop, or on every watch reconnect, fails here.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController } from "../../support/ouroboros_process.ts";
import { prng } from "../../support/random.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import type { AuditedRequest } from "../rbac_usage.ts";
import { type Stack, startStack } from "../stack.ts";

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

/** A churn under way: how many changes it has made so far, and its end. */
interface Churn {
  readonly made: () => number;
  readonly done: Promise<number>;
}

/**
 * Spec changes one after another until aborted: a random Ingress gets a new host. A change the
 * apiserver could not take (restarting) is simply not made; the truth is read back afterwards.
 */
function churn(stack: Stack, signal: AbortSignal, random: () => number): Churn {
  const versions = new Map<number, number>();
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
  return { made: () => made, done };
}

/** The controller's lists of each resource received at or after `from` and before `to`. */
function listsBetween(requests: readonly AuditedRequest[], user: string, from: string, to: string) {
  const counts: Record<string, number> = {};
  for (const request of requests) {
    if (request.user !== user || request.verb !== "list") continue;
    if (request.received < from || request.received >= to) continue;
    counts[request.resource] = (counts[request.resource] ?? 0) + 1;
  }
  return counts;
}

Deno.test("real: the reflectors against a real watch cache — 2,000 Ingresses, restarts and a compaction during churn", async () => {
  await using stack = await startStack({ releases: [{ release: "ouroboros", namespace: "ouroboros" }] });
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
    ]);
    for (let start = 0; start < COUNT; start += 500) {
      await stack.apply(Array.from({ length: 500 }, (_, offset) => ingress(start + offset, 0)));
    }
    const launch = await chartLaunch(stack, release, { workload: "ouroboros", container: "controller" });
    await using controller = await startController(launch.args, { env: launch.env });
    const converged = async (what: string) => {
      await controller.explain(() =>
        waitFor(what, async () => {
          const [api, written] = await Promise.all([hostsInApi(stack), hostsInCorefile(stack)]);
          return api.length === COUNT && JSON.stringify(api) === JSON.stringify(written);
        }, { timeoutMs: 120_000, intervalMs: 500 })
      );
    };
    await converged("the first write of all 2,000 hosts");

    const user = stack.identity("ouroboros", "ouroboros").user;
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
    for (const phase of phases) {
      const from = new Date().toISOString();
      const stop = new AbortController();
      const changes = churn(stack, stop.signal, random);
      // The churn runs on both sides of the fault: 100 changes before it, 100 after it.
      await waitFor("100 changes before the fault", () => changes.made() >= 100, { timeoutMs: 60_000 });
      await phase.fault();
      const before = changes.made();
      await waitFor("100 changes after the fault", () => changes.made() >= before + 100, {
        timeoutMs: 60_000,
      });
      stop.abort();
      await changes.done;
      await converged(`the Corefile to match the apiserver after ${phase.name}`);
      const to = new Date(Date.now() + 1_000).toISOString();
      const counts = listsBetween(await stack.audited(), user, from, to);
      for (const resource of ["ingresses", "configmaps"]) {
        assert.ok(
          (counts[resource] ?? 0) <= 2,
          `${phase.name}: the controller listed ${resource} ${counts[resource]} times (at most 2 expected)`,
        );
      }
    }
    // The faults did make watches fail with 410: some relist at the last version happened (one
    // request, no limit, so the watch cache answers with data at least that new).
    const relists = (await stack.audited()).filter((request) =>
      request.user === user && request.verb === "list" && /[?&]resourceVersion=[1-9]/.test(request.requestURI)
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
