/**
 * Every subcommand's `/metrics`, scraped from the real processes (each with exactly its
 * permission set) the way Prometheus would: the exposition passes `promtool check metrics`, the
 * standard process series are there under their conventional names (and the fd ones absent, as
 * docs/operations.md says, because Deno refuses `/proc` reads under a permission set), the API client
 * series count the traffic to the fake API server, build info names the revision, and counters
 * with known label values exist at zero before their first event.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startCluster } from "./controller/cluster_fixture.ts";
import { startController, startDns, startKuberture, startProxy } from "./support/ouroboros_process.ts";
import { parseMetrics, type Sample } from "./support/scrape.ts";
import { tempDir } from "./support/temp_dir.ts";
import { freePort } from "./support/daemons.ts";
import { findTool, requireTool, skipWithout } from "./support/tools.ts";
import { waitFor } from "./support/wait.ts";

/** Runs `promtool check metrics` on an exposition; skipped (with a reason printed) without promtool. */
async function promtoolCheck(what: string, text: string): Promise<void> {
  if (findTool("promtool") === undefined && skipWithout(`promtool check of ${what}`, ["promtool"])) return;
  const child = new Deno.Command(requireTool("promtool"), {
    args: ["check", "metrics"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  const said = decoder.decode(output.stdout) + decoder.decode(output.stderr);
  assert.equal(output.code, 0, `promtool check metrics on ${what}:\n${said}`);
  assert.equal(said.trim(), "", `promtool has remarks on ${what}:\n${said}`);
}

function find(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): Sample[] {
  return samples.filter((sample) =>
    sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value)
  );
}

function one(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = find(samples, name, labels);
  assert.equal(found.length, 1, `exactly one ${name}${JSON.stringify(labels)}, found ${found.length}`);
  return found[0]!.value;
}

/** What every subcommand's exposition holds: the process series, once each, and build info. */
function assertProcessSeries(what: string, samples: readonly Sample[]): void {
  const now = Date.now() / 1000;
  assert.ok(one(samples, "process_cpu_seconds_total") > 0, `${what}: CPU seconds`);
  assert.ok(one(samples, "process_resident_memory_bytes") > 1_000_000, `${what}: RSS`);
  const start = one(samples, "process_start_time_seconds");
  assert.ok(start <= now && start > now - 600, `${what}: start time ${start} is recent`);
  assert.ok(one(samples, "deno_heap_size_used_bytes") > 0, `${what}: heap used`);
  assert.ok(one(samples, "deno_heap_size_total_bytes") > 0, `${what}: heap total`);
  assert.ok(one(samples, "deno_external_memory_bytes") >= 0, `${what}: external memory`);
  // Deno refuses /proc reads unless the process has every permission; docs/operations.md says so.
  assert.equal(find(samples, "process_open_fds").length, 0, `${what}: no open fds under a permission set`);
  assert.equal(find(samples, "process_max_fds").length, 0, `${what}: no max fds under a permission set`);
  const build = find(samples, "ouroboros_build_info");
  assert.equal(build.length, 1, `${what}: one build_info`);
  assert.deepEqual(Object.keys(build[0]!.labels).sort(), ["revision", "version"]);
  assert.equal(build[0]!.labels.revision, "unknown", `${what}: run from source`);
}

/** Asserts the API client series after some traffic: lists that answered 200, timed. */
function assertKubeRequests(what: string, samples: readonly Sample[]): void {
  const lists = find(samples, "ouroboros_kube_requests_total", { verb: "list", code: "200" });
  assert.ok(lists.length > 0 && lists.every((sample) => sample.value >= 1), `${what}: successful lists`);
  for (const { labels } of lists) {
    const count = one(samples, "ouroboros_kube_request_duration_seconds_count", {
      verb: "list",
      resource: labels.resource!,
    });
    assert.ok(count >= 1, `${what}: list ${labels.resource} timed`);
  }
}

/** Scrapes until an API list has been counted, then checks the process and API request series. */
async function scrapeAfterLists(
  what: string,
  get: () => Promise<string>,
): Promise<{ body: string; samples: Sample[] }> {
  const body = await waitFor(`${what}: a list to be counted`, async () => {
    const text = await get();
    const lists = find(parseMetrics(text), "ouroboros_kube_requests_total", { verb: "list", code: "200" });
    return lists.length > 0 ? text : undefined;
  });
  const samples = parseMetrics(body);
  assertProcessSeries(what, samples);
  assertKubeRequests(what, samples);
  return { body, samples };
}

Deno.test("proxy --workers=2: process series once (not summed over workers), zero series, promtool-clean", async () => {
  const closed = freePort();
  await using proxy = await startProxy([
    "--workers=2",
    "--target-host=127.0.0.1",
    `--target-http-port=${closed}`,
    `--target-https-port=${closed}`,
  ]);
  // One connection, refused by the target: counted once in the sum over the two workers.
  const conn = await Deno.connect(proxy.http!);
  await conn.read(new Uint8Array(1)).catch(() => null);
  conn.close();
  const accepted = { listener: "http" };
  const body = await waitFor("the connection to be counted", async () => {
    const text = (await proxy.healthGet("/metrics")).body;
    return find(parseMetrics(text), "ouroboros_proxy_connections_accepted_total", accepted)[0]?.value === 1
      ? text
      : undefined;
  });
  const samples = parseMetrics(body);
  assertProcessSeries("proxy", samples);
  assert.equal(one(samples, "ouroboros_proxy_workers"), 2);
  for (const listener of ["http", "https"]) {
    assert.equal(one(samples, "ouroboros_proxy_accept_errors_total", { listener }), 0);
    assert.equal(one(samples, "ouroboros_proxy_idle_timeouts_total", { listener }), 0);
  }
  await promtoolCheck("the proxy's /metrics", body);
});

Deno.test("controller, kuberture and dns: process, API request, build and zero series, promtool-clean", async (t) => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  const kubeconfig = cluster.kubeconfig;

  await t.step("controller", async () => {
    await using controller = await startController([...cluster.flags, "--resync=10m"]);
    await waitFor(
      "/readyz to answer 200",
      async () => (await controller.healthGet("/readyz")).status === 200,
    );
    const { body } = await controller.healthGet("/metrics");
    const samples = parseMetrics(body);
    assertProcessSeries("controller", samples);
    assertKubeRequests("controller", samples);
    assert.ok(
      one(samples, "ouroboros_kube_requests_total", { verb: "list", resource: "ingresses", code: "200" }) >=
        1,
    );
    assert.equal(one(samples, "ouroboros_controller_reconciles_total", { result: "error" }), 0);
    assert.equal(one(samples, "ouroboros_controller_refusals_total", { problem: "no-root-block" }), 0);
    assert.equal(one(samples, "ouroboros_leader_transitions_total", { change: "lost" }), 0);
    await promtoolCheck("the controller's /metrics", body);
  });

  await t.step("kuberture", async () => {
    await using dir = await tempDir("metrics-kuberture-");
    const config = `${dir.path}/config.yaml`;
    await Deno.writeTextFile(
      config,
      'metricsBindAddress: "127.0.0.1:0"\nhealthProbeBindAddress: "127.0.0.1:0"\noutputs:\n' +
        "  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n    addressType: IPv4\n",
    );
    await using kuberture = await startKuberture(
      [`--kubeconfig=${kubeconfig}`, `--config=${config}`, "--leader-elect=false"],
      { env: { POD_NAMESPACE: "kuberture", HOSTNAME: "kuberture-metrics" } },
    );
    const { body, samples } = await scrapeAfterLists(
      "kuberture",
      async () => (await kuberture.get("/metrics", "metrics")).body,
    );
    assert.ok(find(samples, "kuberture_reconcile_total", { status: "error" }).length === 1);
    await promtoolCheck("kuberture's /metrics", body);
  });

  await t.step("dns", async () => {
    await using dns = await startDns([
      "--listen-dns=127.0.0.1:0",
      "--listen-health=127.0.0.1:0",
      `--upstream=127.0.0.1:${freePort()}`,
      `--kubeconfig=${kubeconfig}`,
      "--drain-delay=0s",
    ], { env: { POD_NAMESPACE: "ouroboros", HOSTNAME: "ouroboros-dns-metrics" } });
    const { body, samples } = await scrapeAfterLists("dns", async () => (await dns.get("/metrics")).body);
    assert.equal(one(samples, "ouroboros_dns_upstream_errors_total", { reason: "timeout" }), 0);
    await promtoolCheck("the DNS server's /metrics", body);
  });
});
