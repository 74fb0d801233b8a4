import assert from "node:assert/strict";
import { lookupAddresses } from "../../../lib/dns/upstream/lookup_addresses.ts";
import {
  queryName,
  resolutionCheck,
  type ResolutionContext,
} from "../../../lib/doctor/checks/resolution_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { type DnsEndpoint, startDnsmasq, startFakeUpstream } from "../../support/dns_tools.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { skipWithout } from "../../support/tools.ts";

const NO_DNSMASQ = skipWithout("the resolution check against dnsmasq", ["dnsmasq"]);
const PROXY = ["10.96.14.2", "fd00::e:2"];
const PUBLIC = ["203.0.113.7"];
const HOSTS = ["shop.example.com", "api.example.com"];

/** dnsmasq answering every host of `HOSTS` with `addresses` (TTL 20), or NXDOMAIN without. */
function dnsmasq(addresses: readonly string[] | "nxdomain") {
  return startDnsmasq({
    extraArgs: [
      "--local-ttl=20",
      ...HOSTS.flatMap((host) =>
        addresses === "nxdomain" ? [`--address=/${host}/`] : addresses.map((a) => `--address=/${host}/${a}`)
      ),
    ],
  });
}

/** The fake API server with the cluster DNS Service at 127.0.0.1 on `dns`'s port. */
async function cluster(dns: DnsEndpoint): Promise<FakeApiServer> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: "kube-system", name: "kube-dns" },
    spec: {
      type: "ClusterIP",
      clusterIP: "127.0.0.1",
      clusterIPs: ["127.0.0.1"],
      ports: [
        { name: "dns-tcp", protocol: "TCP", port: dns.port },
        { name: "dns", protocol: "UDP", port: dns.port },
      ],
      selector: { "k8s-app": "kube-dns" },
    },
  });
  return server;
}

async function run(
  server: FakeApiServer,
  pod: DnsEndpoint | undefined,
  overrides: Partial<ResolutionContext> = {},
): Promise<Finding[]> {
  using api = new KubeClient({ server: server.url });
  const context: ResolutionContext = {
    api,
    lookup: lookupAddresses,
    hosts: HOSTS,
    expected: PROXY,
    expectedFrom: "the ClusterIPs of Service ouroboros/ouroboros-proxy",
    resolvConf: pod === undefined
      ? undefined
      : `search default.svc.cluster.local\nnameserver ${pod.host}\noptions ndots:5\n`,
    ...(pod === undefined ? {} : { resolverPort: pod.port }),
    clusterDnsService: { namespace: "kube-system", name: "kube-dns" },
    inCluster: pod !== undefined,
    release: "ouro",
    ...overrides,
  };
  return [...await resolutionCheck({ dnsTimeoutMs: 200 }).run(context, AbortSignal.timeout(15_000))];
}

/** Runs the check with one dnsmasq as the pod's resolver and another as the cluster DNS Service. */
async function runAgainst(
  pod: readonly string[] | "nxdomain",
  clusterAnswers: readonly string[] | "nxdomain",
  overrides: Partial<ResolutionContext> = {},
): Promise<Finding[]> {
  await using podDns = await dnsmasq(pod);
  await using clusterDns = await dnsmasq(clusterAnswers);
  await using server = await cluster(clusterDns.endpoint);
  return await run(server, podDns.endpoint, overrides);
}

function summary(findings: readonly Finding[]): string[][] {
  return findings.map((finding) => [finding.verdict, finding.subject]);
}

Deno.test({
  name: "resolution: both resolvers give exactly the proxy's addresses → one ok for every host",
  ignore: NO_DNSMASQ,
  fn: async () => {
    const findings = await runAgainst(PROXY, PROXY, { sampledFrom: 41 });
    assert.deepEqual(summary(findings), [["ok", "2 hosts: shop.example.com, api.example.com"]]);
    assert.match(
      findings[0]!.saw,
      /^both resolvers give the proxy's 10\.96\.14\.2, fd00::e:2 .*a sample of 2 of 41/,
    );
  },
});

Deno.test({
  name:
    "resolution: the cluster DNS gives the public address → problem pointing at the dns-wiring check, TTL told",
  ignore: NO_DNSMASQ,
  fn: async () => {
    const [finding, ...rest] = await runAgainst(PUBLIC, PUBLIC);
    assert.deepEqual(rest, []);
    assert.equal(finding!.verdict, "problem");
    assert.match(
      finding!.saw,
      /cluster DNS 127\.0\.0\.1:\d+ gives 203\.0\.113\.7, not the proxy's .*the rewrite is not in effect; caches may keep this answer up to 20s/,
    );
    assert.match(finding!.todo ?? "", /dns-wiring check/);
  },
});

Deno.test({
  name:
    "resolution: the cluster DNS right, the pod's resolver (another server) wrong → problem naming dnsConfig",
  ignore: NO_DNSMASQ,
  fn: async () => {
    const [finding] = await runAgainst(PUBLIC, PROXY);
    assert.equal(finding!.verdict, "problem");
    assert.match(
      finding!.saw,
      /the pod's resolver 127\.0\.0\.1:\d+ gives 203\.0\.113\.7, while the cluster DNS/,
    );
    assert.match(finding!.saw, /a custom dnsConfig or a dnsPolicy other than ClusterFirst/);
  },
});

Deno.test({
  name: "resolution: NXDOMAIN from the cluster DNS → problem",
  ignore: NO_DNSMASQ,
  fn: async () => {
    const [finding] = await runAgainst("nxdomain", "nxdomain");
    assert.equal(finding!.verdict, "problem");
    assert.match(finding!.saw, /says NXDOMAIN/);
  },
});

Deno.test("resolution: from a workstation, a silent cluster DNS is could-not-check, and waited for once", async () => {
  await using silent = await startFakeUpstream();
  await using server = await cluster(silent.endpoint);
  const findings = await run(server, undefined, {
    hosts: ["a.example.com", "b.example.com", "c.example.com"],
  });
  assert.deepEqual(summary(findings), [[
    "could-not-check",
    "3 hosts: a.example.com, b.example.com, c.example.com",
  ]]);
  assert.match(
    findings[0]!.saw,
    /not in a pod.*127\.0\.0\.1:\d+ did not answer \(no reply within 200ms, asked 2 times\)/,
  );
  assert.equal(findings[0]!.todo, "not reachable from here; run it in the cluster: `helm test ouro`");
  // A and AAAA, two tries each, for the first host only.
  assert.equal(silent.received.length, 4);
});

Deno.test({
  name: "resolution: in a pod, a silent cluster DNS is a problem",
  ignore: NO_DNSMASQ,
  fn: async () => {
    await using podDns = await dnsmasq(PROXY);
    await using silent = await startFakeUpstream();
    await using server = await cluster(silent.endpoint);
    const [finding] = await run(server, podDns.endpoint, { hosts: ["shop.example.com"] });
    assert.equal(finding!.verdict, "problem");
    assert.match(finding!.todo ?? "", /NetworkPolicy/);
  },
});

Deno.test({
  name:
    "resolution: a 403 on the kube-dns Service is could-not-check naming it; the pod's resolver still counts",
  ignore: NO_DNSMASQ,
  fn: async () => {
    await using podDns = await dnsmasq(PROXY);
    await using server = await cluster(podDns.endpoint);
    server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, { path: /services/ });
    const findings = await run(server, podDns.endpoint);
    assert.deepEqual(summary(findings), [
      ["could-not-check", "Service kube-system/kube-dns"],
      ["ok", "2 hosts: shop.example.com, api.example.com"],
    ]);
    assert.equal(
      findings[0]!.saw,
      "the cluster DNS was not asked: RBAC does not allow get on services in namespace kube-system (403)",
    );
    assert.match(findings[0]!.todo ?? "", /allowed to get services in kube-system/);
  },
});

Deno.test({
  name: "resolution: a missing cluster DNS Service says to set --cluster-dns-service",
  ignore: NO_DNSMASQ,
  fn: async () => {
    await using podDns = await dnsmasq(PROXY);
    await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    const [missing] = await run(server, podDns.endpoint);
    assert.equal(missing!.verdict, "could-not-check");
    assert.match(missing!.saw, /Service kube-system\/kube-dns does not exist/);
    assert.match(missing!.todo ?? "", /--cluster-dns-service/);
  },
});

Deno.test("resolution: out of time, what was not asked says so", async () => {
  await using silent = await startFakeUpstream();
  await using server = await cluster(silent.endpoint);
  using api = new KubeClient({ server: server.url });
  const stop = new AbortController();
  const pending = resolutionCheck({ dnsTimeoutMs: 60_000 }).run({
    api,
    lookup: lookupAddresses,
    hosts: HOSTS,
    expected: PROXY,
    expectedFrom: "--proxy-ip",
    resolvConf: "nameserver 127.0.0.1\n",
    resolverPort: silent.endpoint.port,
    clusterDnsService: { namespace: "kube-system", name: "kube-dns" },
    inCluster: true,
  }, stop.signal);
  await silent.waitForPackets(4);
  stop.abort();
  const findings = await pending;
  assert.deepEqual(findings.map((finding) => finding.verdict), ["could-not-check"]);
  assert.match(findings[0]!.saw, /was not asked \(out of time \(--check-timeout\)\)/);
});

Deno.test("resolution: no hosts is ok; unknown proxy addresses are could-not-check; wildcards ask a name under them", async () => {
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const none = await run(server, undefined, { hosts: [] });
  assert.deepEqual(none.map((finding) => finding.verdict), ["ok"]);
  const unknown = await run(server, undefined, {
    expected: [],
    expectedFrom: "Service ouroboros/ouroboros-proxy has no ClusterIP",
  });
  assert.equal(unknown[0]!.verdict, "could-not-check");
  assert.match(unknown[0]!.saw, /has no ClusterIP/);
  assert.equal(queryName("*.apps.example.com"), "ouroboros-doctor-probe.apps.example.com");
  assert.equal(queryName("shop.example.com"), "shop.example.com");
});
