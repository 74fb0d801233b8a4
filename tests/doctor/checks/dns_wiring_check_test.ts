import assert from "node:assert/strict";
import { dnsWiringCheck, type DnsWiringSettings } from "../../../lib/doctor/checks/dns_wiring_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { about, ingress } from "./wiring_support.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { DEFAULT_MARKERS } from "../../../lib/controller/modes/markers.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { K3S, KUBEADM } from "../../controller/modes/coredns/fixtures/corefiles.ts";
import { BEGIN, END, expectedBlock, FQDN } from "../../controller/modes/coredns/support.ts";

const COREDNS = { namespace: "kube-system", configmap: "coredns", key: "Corefile" };
const IMPORT = { namespace: "kube-system", configmap: "coredns-custom", key: "ouroboros.override" };

function settings(overrides: Partial<DnsWiringSettings> = {}): DnsWiringSettings {
  return {
    mode: "coredns",
    coredns: COREDNS,
    corednsImport: IMPORT,
    markers: DEFAULT_MARKERS,
    proxyFqdn: FQDN,
    nodeLocalDns: { namespace: "kube-system", configmap: "node-local-dns", key: "Corefile", mode: "warn" },
    desired: { clusterDomain: "cluster.local" },
    gatewayApi: false,
    ...overrides,
  };
}

/** KUBEADM with our block (spelled out by hand) for `hosts` at the end of the root block. */
function withBlock(corefile: string, hosts: readonly string[]): string {
  return corefile.replace(/\n}\n$/, "\n" + expectedBlock(hosts, "    ").join("") + "}\n");
}

function configMap(name: string, data: Record<string, string>): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { namespace: "kube-system", name }, data };
}

function deployment(mount: Record<string, unknown> | undefined): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "kube-system", name: "coredns" },
    spec: {
      selector: { matchLabels: { "k8s-app": "kube-dns" } },
      template: {
        metadata: { labels: { "k8s-app": "kube-dns" } },
        spec: {
          containers: [{
            name: "coredns",
            image: "coredns/coredns",
            volumeMounts: [
              { name: "config-volume", mountPath: "/etc/coredns" },
              ...(mount === undefined ? [] : [{ name: "custom", ...mount }]),
            ],
          }],
          volumes: [
            { name: "config-volume", configMap: { name: "coredns" } },
            { name: "custom", configMap: { name: "coredns-custom", optional: true } },
          ],
        },
      },
    },
  };
}

async function run(server: FakeApiServer, overrides: Partial<DnsWiringSettings> = {}): Promise<Finding[]> {
  using api = new KubeClient({ server: server.url });
  return [
    ...await dnsWiringCheck({ timeoutMs: 5_000 }).run(
      { api, settings: settings(overrides) },
      AbortSignal.timeout(20_000),
    ),
  ];
}

async function cluster(seed: readonly Record<string, unknown>[]): Promise<FakeApiServer> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const object of seed) server.create(object);
  return server;
}

const SHOP = ingress("shop", ["shop.example.com"]);

Deno.test("coredns mode: a block that holds the desired set, with reload, is ok throughout", async () => {
  await using server = await cluster([
    SHOP,
    configMap("coredns", { Corefile: withBlock(KUBEADM, ["shop.example.com"]) }),
  ]);
  const findings = await run(server);
  assert.deepEqual(findings.map((finding) => finding.verdict), ["ok", "ok", "ok"]);
  assert.ok(findings.every((finding) => finding.check === "dns-wiring" && finding.todo === undefined));
  about(findings, /holds the 1 wanted hostnames/);
  about(findings, /node-local-dns is not installed/);
});

Deno.test("coredns mode: a Corefile without reload is a warning that says to add it", async () => {
  const corefile = withBlock(KUBEADM.replace("    reload\n", ""), ["shop.example.com"]);
  await using server = await cluster([SHOP, configMap("coredns", { Corefile: corefile })]);
  const reload = about(await run(server), /reload/);
  assert.equal(reload.verdict, "warning");
  assert.equal(reload.subject, "ConfigMap kube-system/coredns[Corefile]");
  assert.match(reload.todo ?? "", /add a line `reload` to the \.:53 server block/);
});

Deno.test("coredns mode: an Ingress added since the last write is a problem naming the missing name", async () => {
  await using server = await cluster([
    SHOP,
    ingress("api", ["api.example.com"]),
    configMap("coredns", { Corefile: withBlock(KUBEADM, ["old.example.com", "shop.example.com"]) }),
  ]);
  const block = about(await run(server), /ouroboros block/);
  assert.equal(block.verdict, "problem");
  assert.match(
    block.saw,
    /lacks 1 wanted \(api\.example\.com\) and holds 1 no longer wanted \(old\.example\.com\)/,
  );
  assert.match(block.todo ?? "", /controller is running/);
});

Deno.test("coredns mode: names no longer wanted alone are a warning", async () => {
  await using server = await cluster([
    configMap("coredns", { Corefile: withBlock(KUBEADM, ["old.example.com"]) }),
  ]);
  assert.equal(about(await run(server), /no longer wanted/).verdict, "warning");
});

Deno.test("coredns mode: a missing block lists a sample of the wanted names", async () => {
  const hosts = Array.from({ length: 8 }, (_, i) => `h${i}.example.com`);
  await using server = await cluster([ingress("many", hosts), configMap("coredns", { Corefile: KUBEADM })]);
  const block = about(await run(server), /no ouroboros block/);
  assert.equal(block.verdict, "problem");
  assert.match(block.saw, /8 hostnames are wanted \(h0\.example\.com, .*h4\.example\.com and 3 more\)/);
});

Deno.test("coredns mode: damaged markers are a problem with the sink's own explanation", async () => {
  const corefile = KUBEADM.replace("    loadbalance\n", `    loadbalance\n    ${END}\n    ${BEGIN}\n`);
  await using server = await cluster([SHOP, configMap("coredns", { Corefile: corefile })]);
  const block = about(await run(server), /cannot edit this Corefile/);
  assert.equal(block.verdict, "problem");
  assert.match(block.saw, /END|BEGIN/);
  assert.match(block.todo ?? "", /delete the ouroboros marker lines/);
});

Deno.test("coredns mode: a missing CoreDNS ConfigMap is a problem naming the flags", async () => {
  await using server = await cluster([SHOP]);
  const missing = about(await run(server), /does not exist/);
  assert.equal(missing.verdict, "problem");
  assert.match(missing.todo ?? "", /--coredns-namespace and --coredns-configmap/);
});

Deno.test("a 403 on the Corefile is could-not-check naming the verb, resource and namespace", async () => {
  await using server = await cluster([SHOP, configMap("coredns", { Corefile: KUBEADM })]);
  server.faults.inject("get", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /configmaps\/coredns$/,
  });
  const denied = about(await run(server), /403/);
  assert.equal(denied.verdict, "could-not-check");
  assert.equal(denied.saw, "RBAC does not allow get on configmaps in namespace kube-system (403)");
});

Deno.test("a 403 on listing Ingresses is could-not-check for the desired set", async () => {
  await using server = await cluster([SHOP, configMap("coredns", { Corefile: KUBEADM })]);
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /ingresses/ });
  const denied = about(await run(server), /403/);
  assert.equal(denied.subject, "desired hostnames");
  assert.equal(denied.saw, "RBAC does not allow list on ingresses.networking.k8s.io in all namespaces (403)");
});

const RULES = `rewrite name shop.example.com ${FQDN}\n`;
const DIRECTORY = { mountPath: "/etc/coredns/custom" };

/** A coredns-import cluster: SHOP, the k3s-style Corefile, the import ConfigMap and a CoreDNS Deployment. */
function importCluster(parts: {
  readonly corefile?: string;
  readonly data?: Record<string, string>;
  /** The custom volume's mount; `null`: no container mounts it; absent: no Deployment. */
  readonly mount?: Record<string, unknown> | null;
}): Promise<FakeApiServer> {
  return cluster([
    SHOP,
    configMap("coredns", { Corefile: parts.corefile ?? K3S }),
    configMap("coredns-custom", parts.data ?? { "ouroboros.override": RULES }),
    ...(parts.mount === undefined ? [] : [deployment(parts.mount ?? undefined)]),
  ]);
}

Deno.test("coredns-import mode: key, import line, mount and reload all ok", async () => {
  await using server = await importCluster({ mount: DIRECTORY });
  const findings = await run(server, { mode: "coredns-import" });
  assert.deepEqual(findings.map((finding) => finding.verdict), ["ok", "ok", "ok", "ok", "ok"]);
  about(findings, /imports a pattern that matches "ouroboros\.override"/);
  about(findings, /mounts ConfigMap coredns-custom as a directory \(coredns:\/etc\/coredns\/custom\)/);
});

Deno.test("coredns-import mode: an import glob that misses the key is a problem with the line to add", async () => {
  await using server = await importCluster({
    corefile: K3S.replace("custom/*.override\n}", "custom/*.server\n}"),
    mount: DIRECTORY,
  });
  const line = about(await run(server, { mode: "coredns-import" }), /no import line/);
  assert.equal(line.verdict, "problem");
  assert.equal(line.todo, 'add "import /etc/coredns/custom/*.override" to the .:53 server block');
});

Deno.test("coredns-import mode: no Deployment mounting the ConfigMap is a problem", async () => {
  await using server = await importCluster({});
  const mount = about(await run(server, { mode: "coredns-import" }), /no Deployment/);
  assert.equal(mount.verdict, "problem");
  assert.match(mount.todo ?? "", /mount it at \/etc\/coredns\/custom as a directory \(no subPath\)/);
});

Deno.test("coredns-import mode: a volume no container mounts is a problem", async () => {
  await using server = await importCluster({ mount: null });
  const mount = about(await run(server, { mode: "coredns-import" }), /mounted by no container/);
  assert.equal(mount.subject, "Deployment kube-system/coredns");
  assert.equal(mount.verdict, "problem");
});

Deno.test("coredns-import mode: a subPath mount is a problem: it never updates", async () => {
  await using server = await importCluster({
    mount: { mountPath: "/etc/coredns/custom/ouroboros.override", subPath: "ouroboros.override" },
  });
  const mount = about(await run(server, { mode: "coredns-import" }), /subPath/);
  assert.equal(mount.verdict, "problem");
  assert.match(mount.saw, /never sees the ConfigMap change/);
});

Deno.test("coredns-import mode: a mount elsewhere than the import line reads is a problem naming both", async () => {
  await using server = await importCluster({ mount: { mountPath: "/somewhere/else" } });
  const mount = about(await run(server, { mode: "coredns-import" }), /mounts ConfigMap coredns-custom/);
  assert.equal(mount.verdict, "problem");
  assert.equal(mount.subject, "Deployment kube-system/coredns");
  assert.match(
    mount.saw,
    /at coredns:\/somewhere\/else, but the Corefile's import reads \/etc\/coredns\/custom/,
  );
  assert.match(mount.todo ?? "", /mount the volume at \/etc\/coredns\/custom/);
  // A relative import reads from the Corefile's folder, and a trailing slash on the mount is the same folder.
  await using relative = await importCluster({
    corefile: K3S.replace("/etc/coredns/custom/*.override", "custom/*.override"),
    mount: { mountPath: "/etc/coredns/custom/" },
  });
  assert.equal(
    about(await run(relative, { mode: "coredns-import" }), /mounts ConfigMap coredns-custom/).verdict,
    "ok",
  );
});

Deno.test("coredns-import mode: an absent key with wanted names is a problem", async () => {
  await using server = await importCluster({ data: {}, mount: DIRECTORY });
  const key = about(await run(server, { mode: "coredns-import" }), /key is absent/);
  assert.equal(key.verdict, "problem");
  assert.match(key.saw, /shop\.example\.com/);
});

Deno.test("node-local-dns installed without manage is a warning pointing at --node-local-dns=manage", async () => {
  await using server = await cluster([
    configMap("coredns", { Corefile: KUBEADM }),
    configMap("node-local-dns", {
      Corefile: "cluster.local:53 {\n    forward . __PILLAR__CLUSTER__DNS__\n}\n",
    }),
  ]);
  const nodeLocal = about(await run(server), /node-local-dns is installed/);
  assert.equal(nodeLocal.verdict, "warning");
  assert.equal(nodeLocal.todo, "run the controller with --node-local-dns=manage");
});

Deno.test("node-local-dns managed but without our block while names are wanted is a problem", async () => {
  await using server = await cluster([
    SHOP,
    configMap("coredns", { Corefile: withBlock(KUBEADM, ["shop.example.com"]) }),
    configMap("node-local-dns", {
      Corefile: "cluster.local:53 {\n    forward . __PILLAR__CLUSTER__DNS__\n}\n",
    }),
  ]);
  const nodeLocal = settings().nodeLocalDns;
  const finding = about(
    await run(server, { nodeLocalDns: { ...nodeLocal, mode: "manage" } }),
    /node-local-dns block lacks 1 wanted \(shop\.example\.com\)/,
  );
  assert.equal(finding.verdict, "problem");
});

Deno.test("node-local-dns under manage but absent is a warning", async () => {
  await using server = await cluster([configMap("coredns", { Corefile: KUBEADM })]);
  const nodeLocal = settings().nodeLocalDns;
  const finding = about(
    await run(server, { nodeLocalDns: { ...nodeLocal, mode: "manage" } }),
    /nothing to manage/,
  );
  assert.equal(finding.verdict, "warning");
});

Deno.test("with --gateway-api a Gateway listener's hostname belongs to the desired set", async () => {
  await using server = await cluster([
    SHOP,
    configMap("coredns", { Corefile: withBlock(KUBEADM, ["shop.example.com"]) }),
    {
      apiVersion: "gateway.networking.k8s.io/v1",
      kind: "Gateway",
      metadata: { namespace: "shop", name: "web" },
      spec: {
        gatewayClassName: "public",
        listeners: [{ name: "https", hostname: "gw.example.com", protocol: "HTTPS", port: 443 }],
      },
    },
  ]);
  assert.equal(about(await run(server), /ouroboros block/).verdict, "ok");
  const block = about(await run(server, { gatewayApi: true }), /ouroboros block/);
  assert.equal(block.verdict, "problem");
  assert.match(block.saw, /lacks 1 wanted \(gw\.example\.com\)/);
});

Deno.test("coredns-import mode: a 403 listing Deployments is could-not-check naming the namespace", async () => {
  await using server = await importCluster({ mount: DIRECTORY });
  server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /deployments/ });
  const denied = about(await run(server, { mode: "coredns-import" }), /403/);
  assert.equal(denied.subject, "Deployments in kube-system");
  assert.equal(denied.saw, "RBAC does not allow list on deployments.apps in namespace kube-system (403)");
});
