import assert from "node:assert/strict";
import {
  externalDnsWiringCheck,
  type ExternalDnsWiringSettings,
} from "../../../lib/doctor/checks/external_dns_wiring_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { about, ingress } from "./wiring_support.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { buildRecords } from "../../../lib/controller/modes/external_dns/build_records.ts";
import type { ExternalDnsModeSettings } from "../../../lib/controller/modes/external_dns/external_dns_mode.ts";
import { targetsFromAddresses } from "../../../lib/controller/modes/external_dns/targets.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { runOuroboros } from "../../support/ouroboros_process.ts";
import { startCluster } from "../../controller/cluster_fixture.ts";

const API = "externaldns.k8s.io/v1alpha1";
const PROXY_IP = "10.96.0.20";

const RECORDS: ExternalDnsModeSettings = {
  output: "crd",
  namespace: "ouroboros",
  instance: "release",
  recordTtl: 60,
  annotationPrefix: "external-dns.alpha.kubernetes.io/",
  annotations: {},
  labels: {},
  proxyIp: "",
  proxyService: "ouroboros-proxy",
  proxyServiceNamespace: "ouroboros",
};

function settings(records: Partial<ExternalDnsModeSettings> = {}): ExternalDnsWiringSettings {
  return {
    externalDns: { ...RECORDS, ...records },
    podNamespace: undefined,
    // As the controller's defaults make it (--wildcards=rewrite).
    desired: { clusterDomain: "cluster.local", wildcards: "include" },
    gatewayApi: false,
  };
}

const PROXY_SERVICE = {
  apiVersion: "v1",
  kind: "Service",
  metadata: { namespace: "ouroboros", name: "ouroboros-proxy" },
  spec: {
    type: "ClusterIP",
    clusterIP: PROXY_IP,
    clusterIPs: [PROXY_IP],
    ports: [{ name: "https", port: 443 }],
  },
};

/**
 * The records the controller writes for `hosts` pointing at `address`, as manifests (from the
 * controller's own builder), with `status.observedGeneration: 1` unless `consumed` is false.
 */
function records(
  hosts: readonly string[],
  options: { address?: string; output?: "crd" | "service"; consumed?: boolean } = {},
): Record<string, unknown>[] {
  const output = options.output ?? "crd";
  const sources = new Map(hosts.map((host) => [host, ["ingress" as const]]));
  return buildRecords({
    hosts,
    targets: targetsFromAddresses([options.address ?? PROXY_IP], "test"),
    settings: { ...RECORDS, output },
    sources,
  }).flatMap((build) => build.kind === "built" ? build.records : []).map((record) =>
    ({
      ...record.manifest,
      ...(output === "crd" && options.consumed !== false ? { status: { observedGeneration: 1 } } : {}),
    }) as Record<string, unknown>
  );
}

async function cluster(seed: readonly Record<string, unknown>[]): Promise<FakeApiServer> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const object of seed) server.create(object);
  return server;
}

/** Runs the check with the wall clock two minutes ahead, past the status grace period. */
async function run(
  server: FakeApiServer,
  overrides: Partial<ExternalDnsModeSettings> = {},
  aheadMs = 120_000,
): Promise<Finding[]> {
  using api = new KubeClient({ server: server.url });
  const check = externalDnsWiringCheck({ timeoutMs: 5_000, now: () => new Date(Date.now() + aheadMs) });
  return [...await check.run({ api, settings: settings(overrides) }, AbortSignal.timeout(20_000))];
}

const SHOP = ingress("shop", ["shop.example.com"]);

Deno.test("external-dns (crd): records for every host at the proxy's address, consumed: ok throughout", async () => {
  await using server = await cluster([SHOP, PROXY_SERVICE, ...records(["shop.example.com"])]);
  const findings = await run(server);
  assert.deepEqual(findings.map((finding) => finding.verdict), ["ok", "ok"], JSON.stringify(findings));
  assert.ok(findings.every((finding) => finding.check === "dns-wiring" && finding.todo === undefined));
  const present = about(findings, /wanted hostnames has its DNSEndpoint/);
  assert.equal(present.subject, "DNSEndpoints in ouroboros (instance release)");
  assert.match(present.saw, /pointing at 10\.96\.0\.20 \(Service ouroboros\/ouroboros-proxy\)/);
  about(findings, /external-dns has observed the current generation of 1 DNSEndpoints/);
});

Deno.test("external-dns: a wanted host without a record is a problem naming it", async () => {
  await using server = await cluster([
    SHOP,
    ingress("api", ["api.example.com"]),
    PROXY_SERVICE,
    ...records(["shop.example.com"]),
  ]);
  const missing = about(await run(server), /no DNSEndpoint for/);
  assert.equal(missing.verdict, "problem");
  assert.match(missing.saw, /no DNSEndpoint for 1 of the 2 wanted hostnames \(api\.example\.com\)/);
  assert.match(missing.todo ?? "", /check 6/);
});

Deno.test("external-dns: records at an old proxy address are a problem pointing at the controller's health", async () => {
  await using server = await cluster([
    SHOP,
    PROXY_SERVICE,
    ...records(["shop.example.com"], { address: "10.96.0.99" }),
  ]);
  const stale = about(await run(server), /do not point at the proxy's current addresses/);
  assert.equal(stale.verdict, "problem");
  assert.match(stale.saw, /shop\.example\.com points at 10\.96\.0\.99/);
  assert.match(stale.todo ?? "", /not reconciling.*check 6/);
});

Deno.test("external-dns: --external-dns-proxy-ip is the target instead of the Service", async () => {
  await using server = await cluster([SHOP, ...records(["shop.example.com"], { address: "10.0.0.5" })]);
  const findings = await run(server, { proxyIp: "10.0.0.5" });
  about(findings, /pointing at 10\.0\.0\.5 \(--external-dns-proxy-ip\)/);
  assert.ok(findings.every((finding) => finding.verdict === "ok"));
});

Deno.test("external-dns: a DNSEndpoint external-dns never processed is a warning about its flags", async () => {
  await using server = await cluster([
    SHOP,
    PROXY_SERVICE,
    ...records(["shop.example.com"], { consumed: false }),
  ]);
  const pending = about(await run(server), /external-dns has not processed/);
  assert.equal(pending.verdict, "warning");
  assert.match(pending.saw, /1 of 1 DNSEndpoints \(1 without status\.observedGeneration\)/);
  assert.match(pending.todo ?? "", /--source=crd --crd-source-apiversion=externaldns\.k8s\.io\/v1alpha1/);
  assert.match(pending.todo ?? "", /--crd-source-kind=DNSEndpoint, watches namespace ouroboros/);
});

Deno.test("external-dns: a DNSEndpoint behind its generation is a warning; a fresh one is not judged yet", async () => {
  const [record] = records(["shop.example.com"]);
  await using server = await cluster([SHOP, PROXY_SERVICE, { ...record, status: { observedGeneration: 0 } }]);
  const lagging = about(await run(server), /has not processed/);
  assert.match(lagging.saw, /1 behind their generation/);

  await using fresh = await cluster([
    SHOP,
    PROXY_SERVICE,
    ...records(["shop.example.com"], { consumed: false }),
  ]);
  const young = about(await run(fresh, {}, 0), /less than 60s ago/);
  assert.equal(young.verdict, "could-not-check");
});

Deno.test("external-dns (service): annotated Services are judged, their consumption honestly could-not-check", async () => {
  await using server = await cluster([
    SHOP,
    PROXY_SERVICE,
    ...records(["shop.example.com"], { output: "service" }),
  ]);
  const findings = await run(server, { output: "service" });
  const present = about(findings, /wanted hostnames has its Service/);
  assert.equal(present.verdict, "ok");
  assert.equal(present.subject, "Services in ouroboros (instance release)");
  const consumed = about(findings, /carry no status/);
  assert.equal(consumed.verdict, "could-not-check");
  assert.match(consumed.todo ?? "", /--source=service/);

  await using stale = await cluster([
    SHOP,
    PROXY_SERVICE,
    ...records(["shop.example.com"], { output: "service", address: "10.96.0.99" }),
  ]);
  assert.equal(about(await run(stale, { output: "service" }), /current addresses/).verdict, "problem");
});

Deno.test("external-dns: foreign records are not judged; our records no longer wanted are a warning", async () => {
  const foreign = { ...records(["other.example.com"])[0] } as Record<string, unknown>;
  foreign.metadata = { namespace: "ouroboros", name: "hand-written", labels: { team: "dns" } };
  await using server = await cluster([
    SHOP,
    PROXY_SERVICE,
    ...records(["shop.example.com", "old.example.com"]),
    foreign,
  ]);
  const findings = await run(server);
  const unwanted = about(findings, /no longer wanted/);
  assert.equal(unwanted.verdict, "warning");
  assert.match(unwanted.saw, /1 hostnames no longer wanted \(old\.example\.com\)/);
  assert.ok(!JSON.stringify(findings).includes("other.example.com"), "the foreign record is not mentioned");
  assert.ok(!JSON.stringify(findings).includes("hand-written"));
});

Deno.test("external-dns: a missing proxy Service is a problem naming where it was looked up", async () => {
  await using server = await cluster([SHOP, ...records(["shop.example.com"])]);
  const nowhere = about(await run(server), /no address to point at/);
  assert.equal(nowhere.verdict, "problem");
  assert.match(nowhere.saw, /the proxy Service ouroboros\/ouroboros-proxy does not exist/);
});

Deno.test("external-dns: without the DNSEndpoint CRD, crd output is a problem", async () => {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0, omitGroups: ["externaldns.k8s.io"] });
  await using _ = server;
  server.create(SHOP);
  server.create(PROXY_SERVICE);
  const crd = about(await run(server), /CRD/);
  assert.equal(crd.verdict, "problem");
  assert.match(crd.todo ?? "", /--external-dns-output=service/);
});

Deno.test("external-dns: a 403 listing the records is could-not-check naming verb, resource and namespace", async () => {
  await using server = await cluster([SHOP, PROXY_SERVICE, ...records(["shop.example.com"])]);
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /dnsendpoints/ });
  const findings = await run(server);
  const denied = about(findings, /403/);
  assert.equal(denied.verdict, "could-not-check");
  assert.equal(denied.subject, "DNSEndpoints in ouroboros (instance release)");
  assert.equal(
    denied.saw,
    "RBAC does not allow list on dnsendpoints.externaldns.k8s.io in namespace ouroboros (403)",
  );
  assert.ok(findings.every((finding) => finding.verdict !== "problem"), "nothing judged without the records");
});

Deno.test("external-dns: a 403 reading the proxy Service is could-not-check naming it", async () => {
  await using server = await cluster([SHOP, PROXY_SERVICE, ...records(["shop.example.com"])]);
  server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /services\/ouroboros-proxy$/,
  });
  const denied = about(await run(server), /403/);
  assert.equal(denied.subject, "Service ouroboros/ouroboros-proxy");
  assert.equal(denied.saw, "RBAC does not allow get on services in namespace ouroboros (403)");
});

Deno.test("external-dns: a record at the right address with another TTL is a warning, not a problem", async () => {
  await using server = await cluster([SHOP, PROXY_SERVICE, ...records(["shop.example.com"])]);
  const findings = await run(server, { recordTtl: 300 });
  const differs = about(findings, /differ from what the controller writes/);
  assert.equal(differs.verdict, "warning");
  assert.ok(findings.every((finding) => finding.verdict !== "problem"));
});

for (const output of ["crd", "service"] as const) {
  Deno.test(`external-dns (${output}): what the real controller writes (--once), the doctor finds ok`, async () => {
    await using cluster = await startCluster();
    cluster.ingress("shop/web", { tls: ["shop.example.com", "*.apps.example.com"] });
    cluster.ingress("shop/api", { tls: ["api.example.com"] });
    cluster.service("ouroboros/ouroboros-proxy", [PROXY_IP]);
    const controller = await runOuroboros([
      "controller",
      ...cluster.flags,
      "--mode=external-dns",
      `--external-dns-output=${output}`,
      "--external-dns-namespace=ouroboros",
      "--proxy-service-namespace=ouroboros",
      "--once",
    ], { env: { OUROBOROS_INSTANCE: "release" } });
    assert.equal(controller.code, 3, controller.stderr);
    cluster.server.setToken(undefined);

    const findings = await run(cluster.server, { output });
    const present = about(findings, /wanted hostnames has its/);
    assert.equal(present.verdict, "ok");
    assert.match(present.saw, /every one of the 3 wanted hostnames/, "the wildcard too: this mode writes it");
    if (output === "service") {
      assert.deepEqual(findings.map((finding) => finding.verdict), ["ok", "could-not-check"]);
      return;
    }
    assert.equal(
      about(findings, /has not processed 3 of 3 DNSEndpoints/).verdict,
      "warning",
      "no external-dns yet",
    );
    // external-dns' CRD source processes them: status.observedGeneration follows metadata.generation.
    for (const record of cluster.server.list(API, "DNSEndpoint", "ouroboros")) {
      const generation = (record.metadata as Record<string, unknown>).generation;
      cluster.server.update({ ...record, status: { observedGeneration: generation } });
    }
    assert.deepEqual((await run(cluster.server, { output })).map((finding) => finding.verdict), ["ok", "ok"]);
  });
}
