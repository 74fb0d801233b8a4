/**
 * `ouroboros dns` end to end: the real command as a child process with exactly the `dns`
 * permission set, against the fake API server (Pods, an Ingress, the proxy Service, par
 * Records, Deployments), a real dnsmasq as the upstream, and the real `dig` and `kdig` as
 * clients. Loopback has a whole /8, so each client pod gets its own 127.0.0.x address and dig
 * binds it (`-b`): the server tells the clients apart exactly as it does in a cluster.
 *
 * @module
 */

import assert from "node:assert/strict";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { type DnsProcess, runOuroboros, startDns } from "../support/ouroboros_process.ts";
import { parseMetrics } from "../support/scrape.ts";
import { tempDir } from "../support/temp_dir.ts";
import { waitFor } from "../support/wait.ts";
import { type DnsReply, queryDns, startDnsmasq } from "../support/dns_tools.ts";
import { skipWithout } from "../support/tools.ts";
import { ignoreWithoutKubectl, ok, withKubectl } from "../fake_apiserver/kubectl_run.ts";

const TOKEN = "dns-test-token";
const NAMESPACE = "ouroboros";
const CERT_MANAGER = "127.0.0.2";
const WEB = "127.0.0.3";
const NODE = "127.0.0.4";

function pod(
  server: FakeApiServer,
  namespace: string,
  name: string,
  ip: string,
  labels: Record<string, string>,
  hostNetwork = false,
): void {
  server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace, name, labels },
    spec: { hostNetwork, containers: [{ name: "main", image: "example" }] },
    status: { phase: "Running", podIP: ip, podIPs: [{ ip }] },
  });
}

function service(server: FakeApiServer, name: string, clusterIPs: readonly string[], selector = {}): void {
  const object = {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace: NAMESPACE, name },
    spec: { type: "ClusterIP", clusterIP: clusterIPs[0], clusterIPs, selector, ports: [{ port: 443 }] },
  };
  if (server.get("v1", "Service", NAMESPACE, name) === undefined) server.create(object);
  else server.update(object);
}

function records(server: FakeApiServer): void {
  server.create({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { namespace: "shop", name: "partner" },
    spec: {
      a: [{
        labels: { app: "web" },
        hostname: "partner.example.org",
        "ip-addresses": ["192.0.2.9", "2001:db8::9"],
        "forward-type": "manager",
      }],
    },
  });
}

async function cluster() {
  const server = await startFakeApiServer({ token: TOKEN, bookmarkIntervalMs: 0 });
  const dir = await tempDir("dns-");
  const kubeconfig = `${dir.path}/kubeconfig`;
  await writeKubeconfig(kubeconfig, { server: server.url, token: TOKEN });
  pod(server, "cert-manager", "cert-manager-7d9f", CERT_MANAGER, {
    "app.kubernetes.io/name": "cert-manager",
  });
  pod(server, "shop", "web-5c4b", WEB, { app: "web" });
  pod(server, "kube-system", "node-agent", NODE, { app: "web" }, true);
  server.create({
    apiVersion: "networking.k8s.io/v1",
    kind: "Ingress",
    metadata: { namespace: "shop", name: "shop" },
    spec: { tls: [{ hosts: ["shop.example.com"] }], rules: [{ host: "shop.example.com" }] },
  });
  service(server, "ouroboros-proxy", ["10.96.0.7", "fd00::7"]);
  records(server);
  return {
    server,
    kubeconfig,
    async [Symbol.asyncDispose]() {
      await server.close();
      await dir[Symbol.asyncDispose]();
    },
  };
}

function start(kubeconfig: string, upstream: string, more: readonly string[] = []): Promise<DnsProcess> {
  return startDns([
    "--listen-dns=127.0.0.1:0",
    "--listen-health=127.0.0.1:0",
    `--upstream=${upstream}`,
    `--kubeconfig=${kubeconfig}`,
    "--upstream-timeout=500ms",
    "--drain-delay=0s",
    ...more,
  ], { env: { POD_NAMESPACE: NAMESPACE, HOSTNAME: "ouroboros-dns-test" } });
}

function addresses(reply: DnsReply | undefined, type: string): string[] {
  return (reply?.answers ?? []).filter((record) => record.type === type).map((record) => record.data).sort();
}

/** One question from `source`; over TCP with `via` (kdig prints names lower-cased, so case checks use dig). */
async function ask(
  dns: DnsProcess,
  source: string,
  name: string,
  type = "A",
  via?: "dig" | "kdig",
): Promise<DnsReply> {
  const [reply] = await queryDns(
    { host: dns.dns.hostname, port: dns.dns.port },
    [{ name, type }],
    { source, ...(via === undefined ? {} : { tcp: true, client: via }) },
  );
  assert.ok(reply !== undefined, `no reply for ${name} ${type} from ${source}`);
  return reply;
}

Deno.test({
  name: "dns: hairpin, Records and forwarding per client, read with dig and kdig against dnsmasq",
  ignore: skipWithout("dns end to end", ["dig", "kdig", "dnsmasq"]),
  fn: async (t) => {
    await using env = await cluster();
    await using upstream = await startDnsmasq({
      hosts: [
        { name: "shop.example.com", addresses: ["203.0.113.10"] },
        { name: "partner.example.org", addresses: ["198.51.100.1"] },
        { name: "other.example.net", addresses: ["198.51.100.2"] },
      ],
    });
    await using dns = await start(env.kubeconfig, `${upstream.endpoint.host}:${upstream.endpoint.port}`);
    await waitFor("/readyz to answer 200", async () => (await dns.get("/readyz")).status === 200, {
      timeoutMs: 20_000,
    });

    await t.step(
      "a pod in scope gets the proxy's addresses for a hairpinned hostname, both families",
      async () => {
        const a = await ask(dns, CERT_MANAGER, "shop.example.com");
        assert.equal(a.status, "NOERROR");
        assert.deepEqual(addresses(a, "A"), ["10.96.0.7"]);
        assert.equal(a.answers[0]?.ttl, 30);
        assert.deepEqual(addresses(await ask(dns, CERT_MANAGER, "shop.example.com", "AAAA"), "AAAA"), [
          "fd00::7",
        ]);
        const mx = await ask(dns, CERT_MANAGER, "shop.example.com", "MX");
        assert.equal(mx.status, "NOERROR");
        assert.equal(mx.answers.length, 0, "other types: the name exists, with no data");
      },
    );

    await t.step("the answer keeps the client's letter case, over TCP too", async () => {
      const reply = await ask(dns, CERT_MANAGER, "ShOp.Example.COM", "A", "dig");
      assert.deepEqual(addresses(reply, "A"), ["10.96.0.7"]);
      assert.equal(reply.answers[0]?.name, "ShOp.Example.COM.");
    });

    await t.step("a source that is no pod, and a hostNetwork pod, are forwarded unchanged", async () => {
      assert.deepEqual(addresses(await ask(dns, "127.0.0.1", "shop.example.com"), "A"), ["203.0.113.10"]);
      assert.deepEqual(addresses(await ask(dns, NODE, "shop.example.com"), "A"), ["203.0.113.10"]);
    });

    await t.step("par Records answer only the pods they select", async () => {
      assert.deepEqual(addresses(await ask(dns, WEB, "partner.example.org"), "A"), ["192.0.2.9"]);
      assert.deepEqual(addresses(await ask(dns, WEB, "partner.example.org", "AAAA"), "AAAA"), [
        "2001:db8::9",
      ]);
      assert.deepEqual(addresses(await ask(dns, CERT_MANAGER, "partner.example.org"), "A"), ["198.51.100.1"]);
      assert.deepEqual(addresses(await ask(dns, WEB, "other.example.net", "A", "kdig"), "A"), [
        "198.51.100.2",
      ]);
    });

    await t.step("a new proxy address is answered without a restart", async () => {
      service(env.server, "ouroboros-proxy", ["10.96.0.8"]);
      await waitFor("the new proxy address", async () => {
        const reply = await ask(dns, CERT_MANAGER, "shop.example.com");
        return addresses(reply, "A")[0] === "10.96.0.8";
      });
      const aaaa = await ask(dns, CERT_MANAGER, "shop.example.com", "AAAA");
      assert.equal(aaaa.answers.length, 0, "an IPv4-only proxy: AAAA has no data, never the public address");
    });

    await t.step("metrics count outcomes without a client or a name in any label", async () => {
      const text = (await dns.get("/metrics")).body;
      const samples = parseMetrics(text);
      const local = samples.find((s) =>
        s.name === "ouroboros_dns_queries_total" && s.labels.transport === "udp" &&
        s.labels.outcome === "local"
      );
      assert.ok((local?.value ?? 0) >= 5, `local answers counted: ${local?.value}`);
      for (const leak of [CERT_MANAGER, WEB, "shop.example.com", "partner.example.org"]) {
        assert.ok(!text.includes(leak), `${leak} appears in /metrics`);
      }
      assert.equal(samples.find((s) => s.name === "ouroboros_dns_hairpin_hostnames")?.value, 1);
    });

    await t.step("the upstream gone: SERVFAIL, never an empty NOERROR, and /readyz says why", async () => {
      await upstream[Symbol.asyncDispose]();
      const reply = await ask(dns, CERT_MANAGER, "other.example.net");
      assert.equal(reply.status, "SERVFAIL");
      assert.deepEqual(addresses(await ask(dns, CERT_MANAGER, "shop.example.com"), "A"), ["10.96.0.8"]);
      const readyz = await waitFor("/readyz to fail", async () => {
        const answer = await dns.get("/readyz");
        return answer.status === 503 ? answer : undefined;
      }, { timeoutMs: 15_000 });
      assert.match(readyz.body, /no upstream answers/);
    });

    await t.step("SIGTERM ends it with status 0", async () => {
      dns.kill("SIGTERM");
      assert.equal((await dns.status).code, 0);
    });
  },
});

Deno.test({
  name: "dns --manage-workloads: a matched Deployment is pointed here and given back; kubectl reads both",
  ignore: ignoreWithoutKubectl,
  async fn() {
    await using env = await cluster();
    service(env.server, "ouroboros-dns", ["10.96.0.53"], { "app.kubernetes.io/component": "dns" });
    env.server.create({
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
    const more = ["--manage-workloads", "--dns-service-name=ouroboros-dns", "--cluster-domain=cluster.local"];
    await using dns = await start(env.kubeconfig, "127.0.0.1:9", more);
    // kubectl sends no bearer token over plain HTTP: authentication is off for this test.
    env.server.setToken(undefined);
    await withKubectl(env.server, async (kubectl) => {
      const read = async () =>
        JSON.parse(ok(await kubectl(["get", "deployment", "web", "-n", "shop", "-o", "json"])));
      const patched = await waitFor("the Deployment pointed at this server", async () => {
        const deployment = await read();
        return deployment.spec.template.spec.dnsPolicy === "None" ? deployment : undefined;
      }, { timeoutMs: 20_000 });
      assert.deepEqual(patched.spec.template.spec.dnsConfig, {
        nameservers: ["10.96.0.53"],
        searches: ["shop.svc.cluster.local", "svc.cluster.local", "cluster.local"],
        options: [{ name: "ndots", value: "5" }],
      });
      assert.ok(patched.metadata.annotations["ouroboros.dev/original-dns"], "the original settings are kept");

      env.server.remove("dns.par.dev/v1alpha1", "Records", "shop", "partner");
      const restored = await waitFor("the Deployment given back", async () => {
        const deployment = await read();
        return deployment.spec.template.spec.dnsPolicy === "ClusterFirst" ? deployment : undefined;
      }, { timeoutMs: 20_000 });
      assert.equal(restored.spec.template.spec.dnsConfig, undefined);
      assert.equal(restored.metadata.annotations?.["ouroboros.dev/original-dns"], undefined);

      records(env.server);
      await waitFor("patched again", async () => (await read()).spec.template.spec.dnsPolicy === "None", {
        timeoutMs: 20_000,
      });
      dns.kill("SIGTERM");
      assert.equal((await dns.status).code, 0);
      const hook = await runOuroboros(["dns", "--restore-workloads", `--kubeconfig=${env.kubeconfig}`], {
        env: { POD_NAMESPACE: NAMESPACE },
        permissionSet: "dns",
      });
      assert.equal(hook.code, 0, hook.stderr);
      const after = await read();
      assert.equal(after.spec.template.spec.dnsPolicy, "ClusterFirst");
      assert.equal(after.spec.template.spec.dnsConfig, undefined);
    });
  },
});

Deno.test("dns: bad flags exit 2 naming each problem", async () => {
  const run = await runOuroboros([
    "dns",
    "--upstream=kube-dns",
    "--client-selector=app=a b",
    "--max-udp-size=100",
  ], {
    permissionSet: "dns",
  });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--max-udp-size/);
  assert.match(run.stderr, /ouroboros dns --help/);
});

Deno.test("dns --manage-proxy-config: par's proxy ConfigMap is rendered with this server's address and its proxy rolls", async () => {
  await using env = await cluster();
  service(env.server, "ouroboros-dns", ["10.96.0.53"], { "app.kubernetes.io/component": "dns" });
  const template = "server {\n  listen 8080;\n  location / {\n    resolver {{ .dnsResolver }};\n  }\n}\n";
  env.server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: NAMESPACE, name: "par-proxy", labels: { "par.dev/proxy-config": "true" } },
    data: { serverBlock: template, untouched: "{{ .somethingElse }}" },
  });
  env.server.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: NAMESPACE, name: "par-proxy", labels: { "par.dev/proxy": "true" } },
    spec: {
      selector: { matchLabels: { app: "par-proxy" } },
      template: {
        metadata: { labels: { app: "par-proxy", "par.dev/proxy": "true" } },
        spec: { containers: [{ name: "nginx", image: "nginx" }] },
      },
    },
  });
  const configMap = () =>
    env.server.get("v1", "ConfigMap", NAMESPACE, "par-proxy") as { data: Record<string, string> };
  const rollHash = () =>
    (env.server.get("apps/v1", "Deployment", NAMESPACE, "par-proxy") as {
      spec: { template: { metadata: { annotations?: Record<string, string> } } };
    }).spec.template.metadata.annotations?.["ouroboros.dev/par-config-hash"];
  await using _dns = await start(env.kubeconfig, "127.0.0.1:9", [
    "--manage-proxy-config",
    "--dns-service-name=ouroboros-dns",
  ]);
  await waitFor(
    "the ConfigMap rendered",
    () => configMap().data.serverBlock?.includes("resolver 10.96.0.53;"),
    {
      timeoutMs: 20_000,
    },
  );
  assert.equal(configMap().data.untouched, "{{ .somethingElse }}", "no other template syntax is touched");
  const firstHash = await waitFor("the proxy rolled", rollHash, { timeoutMs: 20_000 });

  service(env.server, "ouroboros-dns", ["10.96.0.54"], { "app.kubernetes.io/component": "dns" });
  await waitFor(
    "rendered again for the new address",
    () => configMap().data.serverBlock?.includes("resolver 10.96.0.54;"),
    {
      timeoutMs: 20_000,
    },
  );
  await waitFor("the proxy rolled again", () => rollHash() !== firstHash && rollHash(), {
    timeoutMs: 20_000,
  });
});
