/**
 * The dns runtime on the shared control loop, in-process on a manual clock against the fake API
 * server: a par write that fails is tried again after 10 s with nothing else changing, and a
 * first 409 in a row (usually our own write not yet in the cache) is said at DEBUG, not ERROR.
 *
 * @module
 */

import assert from "node:assert/strict";
import { createDnsCaches } from "../../lib/dns/dns_caches.ts";
import { DnsRuntime, RETRY_MS } from "../../lib/dns/dns_runtime.ts";
import { KubeClient } from "../../lib/kube/client.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { FakeClock } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import { waitFor } from "../support/wait.ts";

/** The fake cluster, a runtime on a manual clock, and the first `failures` patches of web answered `code`. */
async function setUp(code: 409 | 500, failures: number) {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "ouroboros", name: "ouroboros-dns" },
    spec: {
      type: "ClusterIP",
      clusterIP: "10.96.0.53",
      clusterIPs: ["10.96.0.53"],
      selector: { app: "dns" },
    },
  });
  server.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "shop", name: "web" },
    spec: {
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: { dnsPolicy: "ClusterFirst", containers: [{ name: "web", image: "example" }] },
      },
    },
  });
  server.create({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { namespace: "shop", name: "partner" },
    spec: {
      a: [{
        labels: { app: "web" },
        hostname: "partner.example.org",
        "ip-addresses": ["192.0.2.9"],
        "forward-type": "manager",
      }],
    },
  });
  server.faults.inject(
    "patch",
    { type: "status", code, reason: code === 409 ? "Conflict" : "InternalError" },
    {
      path: /deployments\/web/,
      count: failures,
    },
  );
  const client = new KubeClient({ server: server.url });
  const caches = createDnsCaches(client, {
    clientSelector: "",
    hairpin: false,
    gatewayApi: false,
    proxyService: { namespace: "ouroboros", name: "ouroboros-proxy" },
    parNamespace: "ouroboros",
    dnsService: { namespace: "ouroboros", name: "ouroboros-dns" },
    manageWorkloads: true,
    manageProxyConfig: false,
  });
  const clock = new FakeClock();
  const log = new LogRecorder();
  const runtime = new DnsRuntime({
    caches,
    api: client,
    hostnames: { clusterDomain: "cluster.local" },
    clusterDomain: "cluster.local",
    parNamespace: "ouroboros",
    ttlSeconds: 30,
    setAnswerer: () => {},
    clock,
    log,
  });
  const policy = () => ((server.get("apps/v1", "Deployment", "shop", "web")?.spec as {
    template: { spec: { dnsPolicy: string } };
  }).template.spec.dnsPolicy);
  const stop = new AbortController();
  const running = runtime.run(stop.signal);
  const failedLines = (level: string) =>
    log.entries.filter((line) => line.level === level && /failed; tried again/.test(line.message));
  return {
    clock,
    policy,
    failedLines,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await running;
      client.close();
      await server.close();
    },
  };
}

Deno.test("dns runtime: a failed par write is logged and tried again after 10 s, with no other change", async () => {
  await using run = await setUp(500, 1);
  const { clock, policy } = run;
  await waitFor("the failed write logged", async () => {
    await clock.advance(0);
    return run.failedLines("error").length === 1;
  });
  assert.equal(policy(), "ClusterFirst", "nothing written yet");
  await clock.advance(RETRY_MS - 1);
  assert.equal(policy(), "ClusterFirst", "not before the 10 s");
  await waitFor("the write tried again", async () => {
    await clock.advance(1);
    return policy() === "None";
  });
});

Deno.test("dns runtime: a first 409 in a row is retried quietly (DEBUG); a second in a row is an ERROR", async () => {
  await using run = await setUp(409, 2);
  const { clock, policy } = run;
  await waitFor("the first conflict", async () => {
    await clock.advance(0);
    return run.failedLines("debug").length === 1;
  });
  assert.equal(run.failedLines("error").length, 0, "no ERROR for a first conflict");
  await waitFor("the second conflict, an ERROR", async () => {
    await clock.advance(RETRY_MS);
    return run.failedLines("error").length === 1;
  });
  await waitFor("the write at the third try", async () => {
    await clock.advance(RETRY_MS);
    return policy() === "None";
  });
});
