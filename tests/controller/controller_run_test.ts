/**
 * `ouroboros controller` end to end: the real command as a child process with exactly the
 * `controller` permission set, against the fake API server through a kubeconfig, checked the
 * way an operator would check it (the Corefile, the audit log, /readyz, /metrics, the exit
 * status).
 *
 * @module
 */

import assert from "node:assert/strict";
import { metric } from "../support/scrape.ts";
import { parseLogLines, runOuroboros, startController } from "../support/ouroboros_process.ts";
import { waitFor } from "../support/wait.ts";
import { type Cluster, PROXY_FQDN, startCluster } from "./cluster_fixture.ts";
import { KUBEADM } from "./modes/coredns/fixtures/corefiles.ts";
import { applyCorefileBlock } from "../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { BEGIN, END } from "./modes/coredns/support.ts";
import { tempDir } from "../support/temp_dir.ts";

/** Waits until our block holds exactly `hosts` (sorted); `[]` means no block at all. */
function converged(cluster: Cluster, hosts: readonly string[], timeoutMs = 10_000): Promise<true> {
  const expected = JSON.stringify(hosts.length === 0 ? undefined : hosts);
  return waitFor(
    `the Corefile block to hold ${expected}`,
    () => JSON.stringify(cluster.blockHosts()) === expected,
    { timeoutMs },
  );
}

/** The Corefile with our block removed, to compare bytes outside the markers. */
function outsideBlock(corefile: string): string {
  return corefile.replace(/\n[ \t]*# === BEGIN ouroboros[\s\S]*?# === END ouroboros ===/, "");
}

Deno.test("controller (coredns): Ingress create, update and delete drive the Corefile block; drift and churn", async (t) => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com", "www.shop.example.com"] });
  await using controller = await startController([...cluster.flags, "--resync=10m"]);

  await t.step("the start-up line says what runs, and read access is given up", () => {
    assert.equal(controller.starting.mode, "coredns");
    assert.equal(controller.starting.proxyFqdn, PROXY_FQDN);
    assert.equal(controller.starting.target, "coredns kube-system/coredns[Corefile]");
    assert.equal(controller.starting.readAccess, "none");
    assert.equal(controller.starting.resyncSeconds, 600);
  });

  await t.step("existing Ingresses are written after the first sync", async () => {
    await converged(cluster, ["shop.example.com", "www.shop.example.com"]);
    assert.equal(outsideBlock(cluster.corefile()), KUBEADM, "nothing outside the markers moved");
    await waitFor(
      "/readyz to answer 200",
      async () => (await controller.healthGet("/readyz")).status === 200,
    );
  });

  await t.step("create, update and delete converge", async () => {
    cluster.ingress("blog/site", { tls: ["blog.example.com"] });
    await converged(cluster, ["blog.example.com", "shop.example.com", "www.shop.example.com"]);
    cluster.ingress("shop/web", { tls: ["shop.example.com"] });
    await converged(cluster, ["blog.example.com", "shop.example.com"]);
    cluster.deleteIngress("blog/site");
    await converged(cluster, ["shop.example.com"]);
    const updates = controller.logs.filter((line) => line.msg === "hostnames updated");
    assert.deepEqual(updates.at(-1) && { added: updates.at(-1)?.added, removed: updates.at(-1)?.removed }, {
      added: 0,
      removed: 1,
    });
  });

  await t.step(
    "a hostile hostname from the API server never reaches the Corefile (T-3.1, T-3.8)",
    async () => {
      const hostile = "evil.example.com\n    forward . 6.6.6.6";
      cluster.ingress("evil/x", { tls: [hostile, "fine.example.com"] });
      await converged(cluster, ["fine.example.com", "shop.example.com"]);
      assert.ok(!cluster.corefile().includes("6.6.6.6"));
      const warning = await controller.waitForLog(
        "the refused-hostname WARN",
        (line) => line.msg.startsWith("hostname refused"),
      );
      assert.equal(warning.level, "WARN");
      assert.equal(warning.value, hostile, "the value is raw, not quoted inside the JSON");
      assert.equal(warning.object, "evil/x");
    },
  );

  await t.step("5,000 status-only Ingress updates cause zero ConfigMap writes (T-1.30)", async () => {
    const before = cluster.configMapWrites().length;
    for (let i = 0; i < 5_000; i++) {
      cluster.ingress("shop/web", { tls: ["shop.example.com"], statusIp: `10.0.${i >> 8}.${i & 255}` });
    }
    // A status-only update wakes no recompute, so there is nothing to wait for but the watch. A
    // real change after the churn: once it is written, every earlier event was processed.
    cluster.ingress("marker/last", { tls: ["last.example.com"] });
    await controller.explain(() =>
      converged(cluster, ["fine.example.com", "last.example.com", "shop.example.com"], 30_000)
    );
    assert.equal(cluster.configMapWrites().length - before, 1, "only the real change was written");
  });

  await t.step(
    "someone deleting our block gets it restored at once, without waiting for the resync (T-1.28)",
    async () => {
      const withBlock = cluster.corefile();
      cluster.setCorefile(outsideBlock(withBlock));
      assert.equal(cluster.blockHosts(), undefined);
      await converged(cluster, ["fine.example.com", "last.example.com", "shop.example.com"]);
    },
  );

  await t.step("SIGTERM stops the controller with exit status 0", async () => {
    controller.kill("SIGTERM");
    const status = await controller.status;
    assert.equal(status.code, 0);
    assert.ok(controller.logs.some((line) => line.msg === "controller stopped"));
    assert.deepEqual(controller.logs.filter((line) => line.level === "ERROR"), []);
  });
});

Deno.test("controller: /readyz is 503 until the caches have synced, nothing is written before; resyncs write nothing (T-1.31)", async () => {
  // A previous run left a block: writing before the Ingress list arrives would empty it.
  const edit = applyCorefileBlock(KUBEADM, { hosts: ["shop.example.com"], fqdn: PROXY_FQDN });
  assert.equal(edit.kind, "changed");
  await using cluster = await startCluster({ corefile: edit.kind === "changed" ? edit.corefile : "" });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  // The Ingress list takes 3 s to answer, as on a slow API server.
  cluster.server.faults.inject("list", { type: "delay", ms: 3_000 }, { path: /ingresses/ });
  await using controller = await startController([...cluster.flags, "--resync=1s"]);

  const before = await controller.healthGet("/readyz");
  assert.equal(before.status, 503);
  assert.match(before.body, /^not ready: waiting for the first list of: Ingress/);
  assert.equal((await controller.healthGet("/healthz")).status, 200, "alive while not ready");
  assert.deepEqual(cluster.configMapWrites(), [], "no write while a kind has not listed");

  await waitFor("/readyz to answer 200", async () => (await controller.healthGet("/readyz")).status === 200);
  assert.deepEqual(cluster.blockHosts(), ["shop.example.com"]);
  assert.deepEqual(
    cluster.configMapWrites(),
    [],
    "the block already matched: never emptied, never rewritten",
  );

  await waitFor(
    "three resyncs that found the Corefile matching",
    async () =>
      await metric(controller, ["ouroboros_controller_reconciles_total", { result: "unchanged" }]) >= 3,
  );
  assert.deepEqual(cluster.configMapWrites(), [], "unchanged resyncs wrote nothing");
  assert.equal(await metric(controller, ["ouroboros_controller_writes_total", {}]), 0);
  assert.equal(await metric(controller, ["ouroboros_controller_desired_hostnames", {}]), 1);
  assert.equal(await metric(controller, ["ouroboros_controller_cache_synced", { kind: "Ingress" }]), 1);
  assert.ok(
    await metric(controller, ["ouroboros_controller_last_successful_reconcile_timestamp_seconds", {}]) > 0,
  );
});

Deno.test("controller: --ingress-class and --gateway-class filter what is written; Gateways and HTTPRoutes count (T-3.12)", async () => {
  await using cluster = await startCluster();
  cluster.ingress("a/nginx", { tls: ["nginx.example.com"], className: "nginx" });
  cluster.ingress("b/traefik", { tls: ["traefik.example.com"], className: "traefik" });
  cluster.ingress("c/classless", { tls: ["classless.example.com"] });
  cluster.gateway("gw/public", "public", ["gw.example.com"]);
  cluster.gateway("gw/internal", "internal", ["internal.example.com"]);
  cluster.route("apps/shop", ["route.example.com"], ["gw/public"]);
  cluster.route("apps/intranet", ["intranet.example.com"], ["gw/internal"]);
  await using controller = await startController([
    ...cluster.flags,
    "--ingress-class=nginx",
    "--gateway-api",
    "--gateway-class=public",
  ]);
  await converged(cluster, ["gw.example.com", "nginx.example.com", "route.example.com"]);

  cluster.route("apps/late", ["late.example.com"], ["gw/public"]);
  cluster.gateway("gw/other", "public", ["other.example.com"]);
  await converged(cluster, [
    "gw.example.com",
    "late.example.com",
    "nginx.example.com",
    "other.example.com",
    "route.example.com",
  ]);
  assert.equal(controller.starting.gatewayApi, true);
});

Deno.test("controller: --gateway-api on a cluster without the Gateway API still serves Ingresses", async () => {
  await using cluster = await startCluster({ omitGroups: ["gateway.networking.k8s.io"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  await using controller = await startController([...cluster.flags, "--gateway-api"]);
  await converged(cluster, ["shop.example.com"]);
  const warning = await controller.waitForLog(
    "the WARN that Gateways are not served",
    (line) => line.level === "WARN" && String(line.resource).includes("gateways"),
  );
  assert.match(warning.msg, /not served/);
  await waitFor("/readyz to answer 200", async () => (await controller.healthGet("/readyz")).status === 200);
  cluster.ingress("blog/site", { tls: ["blog.example.com"] });
  await converged(cluster, ["blog.example.com", "shop.example.com"]);
});

Deno.test("controller: GRPCRoute and TLSRoute hostnames reach the Corefile block, filtered by --gateway-class like HTTPRoutes", async () => {
  // TLSRoute served at v1alpha2 only (an experimental bundle up to Gateway API v1.3).
  await using cluster = await startCluster({
    omitKinds: ["gateway.networking.k8s.io/v1/TLSRoute", "gateway.networking.k8s.io/v1alpha3/TLSRoute"],
  });
  cluster.gateway("gw/public", "public", []);
  cluster.gateway("gw/internal", "internal", []);
  const routeOf = (version: string, kind: string, key: string, hostname: string, gateway: string) => {
    const [namespace, name] = key.split("/");
    cluster.server.create({
      apiVersion: `gateway.networking.k8s.io/${version}`,
      kind,
      metadata: { namespace, name },
      spec: { hostnames: [hostname], parentRefs: [{ namespace: "gw", name: gateway }] },
    });
  };
  routeOf("v1", "GRPCRoute", "shop/orders", "grpc.example.com", "public");
  routeOf("v1", "GRPCRoute", "shop/admin", "admin-grpc.example.com", "internal");
  routeOf("v1alpha2", "TLSRoute", "shop/db", "db.example.com", "public");
  routeOf("v1alpha2", "TLSRoute", "shop/vault", "vault.example.com", "internal");
  await using controller = await startController([
    ...cluster.flags,
    "--gateway-api",
    "--gateway-class=public",
  ]);
  await converged(cluster, ["db.example.com", "grpc.example.com"]);
  assert.equal(controller.starting.gatewayRouteKinds, "HTTPRoute,GRPCRoute,TLSRoute");

  routeOf("v1alpha2", "TLSRoute", "shop/cache", "cache.example.com", "public");
  await converged(cluster, ["cache.example.com", "db.example.com", "grpc.example.com"]);
  cluster.server.remove("gateway.networking.k8s.io/v1", "GRPCRoute", "shop", "orders");
  await converged(cluster, ["cache.example.com", "db.example.com"]);
});

Deno.test("controller: --gateway-route-kinds leaves a kind out; a kind without its CRD blocks nothing", async () => {
  await using cluster = await startCluster({ omitKinds: ["GRPCRoute"] });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  cluster.route("shop/http", ["http.example.com"], []);
  cluster.server.create({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "TLSRoute",
    metadata: { namespace: "shop", name: "db" },
    spec: { hostnames: ["db.example.com"] },
  });
  await using controller = await startController([
    ...cluster.flags,
    "--gateway-api",
    "--gateway-route-kinds=GRPCRoute,TLSRoute",
  ]);
  // HTTPRoutes are not chosen; GRPCRoute is not served; TLSRoute and Ingress still count.
  await converged(cluster, ["db.example.com", "shop.example.com"]);
  const warning = await controller.waitForLog(
    "the WARN that GRPCRoutes are not served",
    (line) => line.level === "WARN" && String(line.resource).includes("grpcroutes"),
  );
  assert.match(warning.msg, /not served/);
  await waitFor("/readyz to answer 200", async () => (await controller.healthGet("/readyz")).status === 200);
  assert.ok(!cluster.server.audit.some((entry) => entry.path.endsWith("/httproutes")));
});

Deno.test("controller (coredns-import): only our key of the import ConfigMap is written; the Corefile is untouched (T-2.19)", async () => {
  await using cluster = await startCluster({ importConfigMap: true });
  cluster.ingress("shop/web", { tls: ["shop.example.com", "api.shop.example.com"] });
  await using controller = await startController([...cluster.flags, "--mode=coredns-import"]);
  const data = () =>
    (cluster.server.get("v1", "ConfigMap", "kube-system", "coredns-custom")?.data ?? {}) as Record<
      string,
      string
    >;
  await waitFor("the import key to be written", () => data()["ouroboros.override"] !== undefined);
  assert.equal(
    data()["ouroboros.override"],
    `rewrite name api.shop.example.com ${PROXY_FQDN}\nrewrite name shop.example.com ${PROXY_FQDN}\n`,
  );
  assert.equal(
    data()["other.server"],
    "example.org:53 {\n    forward . 192.0.2.53\n}\n",
    "other keys intact",
  );
  assert.equal(cluster.corefile(), KUBEADM, "the Corefile is never written in this mode");
  assert.equal(controller.starting.target, "coredns-import kube-system/coredns-custom[ouroboros.override]");
  cluster.deleteIngress("shop/web");
  await waitFor("the import key to be removed", () => data()["ouroboros.override"] === undefined);
});

Deno.test("controller (etc-hosts): the hosts file block follows the Ingresses; --cleanup removes it without a cluster", async (t) => {
  await using cluster = await startCluster();
  const hosts = `${cluster.dir}/hosts`;
  const original = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n";
  await Deno.writeTextFile(hosts, original);
  cluster.ingress("shop/web", { tls: ["shop.example.com", "www.shop.example.com"] });
  const block = () => {
    const text = Deno.readTextFileSync(hosts);
    const match = /# === BEGIN ouroboros[^\n]*\n([\s\S]*?)# === END ouroboros ===/.exec(text);
    if (match === null) return undefined;
    return (match[1] ?? "").split("\n").map((line) => line.trim()).filter((line) => line !== "");
  };
  {
    await using controller = await startController([
      ...cluster.flags,
      "--mode=etc-hosts",
      "--proxy-ip=10.96.0.20",
      `--etc-hosts=${hosts}`,
    ]);
    await t.step("the start-up line names the file and the address", () => {
      assert.equal(controller.starting.mode, "etc-hosts");
      assert.equal(controller.starting.hostsFile, hosts);
      assert.equal(controller.starting.proxyIp, "10.96.0.20");
    });
    await t.step("existing Ingresses are written; the lines around the block are kept", async () => {
      await waitFor("the block to name both hosts", () => {
        const lines = block();
        return lines !== undefined && lines.some((l) =>
          /^10\.96\.0\.20\s.*\bwww\.shop\.example\.com\b/.test(l)
        ) &&
          lines.some((l) => /^10\.96\.0\.20\s.*\bshop\.example\.com\b/.test(l));
      });
      assert.ok(
        (await Deno.readTextFile(hosts)).startsWith(original),
        "the operator's lines stay first and intact",
      );
    });
    await t.step("a new Ingress is added and a deleted one leaves", async () => {
      cluster.ingress("blog/site", { tls: ["blog.example.com"] });
      await waitFor(
        "blog.example.com in the block",
        () => block()?.some((l) => l.includes("blog.example.com")),
      );
      cluster.deleteIngress("shop/web");
      await waitFor(
        "shop.example.com to leave the block",
        () => block()?.every((l) => !/\bshop\.example\.com\b/.test(l)) === true,
      );
      assert.ok(block()?.some((l) => l.includes("blog.example.com")));
    });
    await t.step("SIGTERM stops it cleanly and leaves the block in place", async () => {
      controller.kill("SIGTERM");
      assert.equal((await controller.status).code, 0);
      assert.ok(block()?.some((l) => l.includes("blog.example.com")));
    });
  }
  await t.step("--cleanup removes the block, touches nothing else, and needs no cluster", async () => {
    const result = await runOuroboros([
      "controller",
      "--mode=etc-hosts",
      "--cleanup",
      `--etc-hosts=${hosts}`,
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /removed the ouroboros block from the hosts file/);
    assert.equal(block(), undefined);
    assert.ok((await Deno.readTextFile(hosts)).startsWith(original));
    const again = await runOuroboros(["controller", "--mode=etc-hosts", "--cleanup", `--etc-hosts=${hosts}`]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /has no ouroboros block; nothing to remove/);
  });
  await t.step("--cleanup with a flag it cannot use is a usage error (exit 2) naming it", async () => {
    const result = await runOuroboros([
      "controller",
      "--mode=etc-hosts",
      "--cleanup",
      "--cleanup-quiesce=ouroboros/ouroboros",
      "--cleanup-quiesce-selector=a=b",
      "--proxy-ip=10.0.0.5",
    ]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /--cleanup-quiesce has no use in etc-hosts mode/);
  });
});

Deno.test("controller --cleanup: an I/O error on the hosts file is fatal (exit 1) and names the file", async () => {
  await using temp = await tempDir("ouroboros-cleanup-");
  const dir = temp.path;
  // A regular file where a directory should be: opening "<file>/hosts" fails with ENOTDIR.
  await Deno.writeTextFile(`${dir}/file`, "");
  const result = await runOuroboros([
    "controller",
    "--mode=etc-hosts",
    "--cleanup",
    `--etc-hosts=${dir}/file/hosts`,
  ]);
  assert.equal(result.code, 1, result.stderr);
  const fatal = parseLogLines(result.stderr).find((line) => line.level === "FATAL");
  assert.ok(fatal !== undefined, result.stderr);
  // The line says what failed; the error is its message as a string, with its name and OS code beside it.
  assert.match(fatal.msg, /^controller failed: cannot open .*\/file\/hosts: Not a directory/);
  assert.equal(typeof fatal.error, "string");
  assert.match(String(fatal.error), /^cannot open .*\/file\/hosts: Not a directory/);
  assert.equal(typeof fatal.errorName, "string");
});

Deno.test("controller (external-dns): DNSEndpoints follow the Ingresses and point at the proxy Service's address", async (t) => {
  await using cluster = await startCluster();
  cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.20"]);
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  cluster.ingress("blog/site", { tls: ["blog.example.com"] });
  await using controller = await startController([
    ...cluster.flags,
    "--mode=external-dns",
    "--external-dns-namespace=ouroboros",
    "--proxy-service-namespace=ouroboros",
  ], { env: { OUROBOROS_INSTANCE: "release" } });
  const records = () =>
    new Map(
      cluster.server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "ouroboros").map((object) => {
        const spec = object.spec as {
          endpoints: { dnsName: string; recordType: string; targets: string[] }[];
        };
        const endpoint = spec.endpoints[0];
        return [endpoint?.dnsName ?? "", `${endpoint?.recordType} ${endpoint?.targets.join(",")}`];
      }),
    );
  await t.step("the start-up line says where targets come from", () => {
    assert.equal(controller.starting.mode, "external-dns");
    assert.equal(controller.starting.targetsFrom, "Service ouroboros/ouroboros-proxy");
  });
  await t.step("one A record per hostname, at the Service's ClusterIP", async () => {
    await waitFor("two records", () => records().size === 2);
    assert.deepEqual(
      [...records()].sort(),
      [["blog.example.com", "A 10.96.0.20"], ["shop.example.com", "A 10.96.0.20"]],
    );
  });
  await t.step("a new ClusterIP re-targets every record", async () => {
    cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.99"]);
    await waitFor(
      "records at the new address",
      () => [...records().values()].every((v) => v === "A 10.96.0.99"),
    );
  });
  await t.step("a deleted Ingress's record is pruned", async () => {
    cluster.deleteIngress("blog/site");
    await waitFor("one record left", () => records().size === 1);
    assert.deepEqual([...records().keys()], ["shop.example.com"]);
  });
  await t.step("/readyz answers 200", async () => {
    await waitFor("/readyz 200", async () => (await controller.healthGet("/readyz")).status === 200);
  });
});

Deno.test("controller: an unusable kubeconfig, or no cluster at all, fails the start with a clear message (exit 1)", async (t) => {
  await using temp = await tempDir("ouroboros-kubeconfig-");
  const dir = temp.path;
  await t.step("a path that does not exist", async () => {
    const result = await runOuroboros([
      "controller",
      `--proxy-fqdn=${PROXY_FQDN}`,
      `--kubeconfig=${dir}/nope`,
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      new RegExp(`cannot use the --kubeconfig=${dir}/nope: kubeconfig ${dir}/nope does not exist`),
    );
  });
  await t.step("a file that is not a kubeconfig", async () => {
    await Deno.writeTextFile(`${dir}/broken`, "clusters: [this is: not {valid");
    const result = await runOuroboros([
      "controller",
      `--proxy-fqdn=${PROXY_FQDN}`,
      `--kubeconfig=${dir}/broken`,
    ]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /cannot use the --kubeconfig=/);
  });
  await t.step(
    "a user whose token comes from an exec plugin, which the permission set cannot run",
    async () => {
      await Deno.writeTextFile(
        `${dir}/exec`,
        [
          "apiVersion: v1",
          "kind: Config",
          "clusters: [{name: c, cluster: {server: 'http://127.0.0.1:9'}}]",
          "contexts: [{name: c, context: {cluster: c, user: u}}]",
          "current-context: c",
          "users:",
          "- name: u",
          "  user:",
          "    exec: {apiVersion: client.authentication.k8s.io/v1, command: aws, args: [eks, get-token], " +
          "interactiveMode: Never}",
          "",
        ].join("\n"),
      );
      const result = await runOuroboros([
        "controller",
        `--proxy-fqdn=${PROXY_FQDN}`,
        `--kubeconfig=${dir}/exec`,
      ]);
      assert.equal(result.code, 1, result.stderr);
      assert.match(
        result.stderr,
        /exec plugin aws, and this subcommand's permission set does not allow running programs/,
      );
    },
  );
  await t.step("no --kubeconfig outside a pod", async () => {
    const result = await runOuroboros(["controller", `--proxy-fqdn=${PROXY_FQDN}`]);
    assert.equal(result.code, 1, result.stderr);
    assert.match(
      result.stderr,
      /not running in a Kubernetes pod: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT/,
    );
  });
});

Deno.test("controller: start-up warnings: node-local-dns present, no reload plugin, cluster-domain mismatch", async () => {
  await using cluster = await startCluster({ corefile: KUBEADM.replace("    reload\n", "") });
  cluster.server.create({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { namespace: "kube-system", name: "node-local-dns" },
    data: { Corefile: "cluster.local:53 {\n    forward . 10.96.0.10\n}\n" },
  });
  await using controller = await startController([
    `--kubeconfig=${cluster.kubeconfig}`,
    `--proxy-fqdn=${PROXY_FQDN}`,
    "--cluster-domain=cozy.local",
  ]);
  const index = (predicate: (msg: string) => boolean) =>
    controller.logs.findIndex((line) => predicate(line.msg));
  await controller.waitForLog(
    "the mismatch WARN",
    (line) => line.msg.startsWith("proxy-fqdn suffix does not match"),
  );
  const mismatch = controller.logs[index((msg) => msg.startsWith("proxy-fqdn suffix does not match"))];
  assert.equal(mismatch?.level, "WARN");
  assert.equal(mismatch?.clusterDomain, "cozy.local");
  assert.ok(index((msg) => msg.startsWith("node-local-dns is installed")) >= 0, "node-local-dns WARN");
  assert.ok(index((msg) => msg.includes("no 'reload' plugin")) >= 0, "reload WARN");
  assert.ok(
    index((msg) => msg.startsWith("node-local-dns is installed")) <
      index((msg) => msg === "controller starting"),
    "the probes run before the controller starts watching",
  );
  assert.ok(
    index((msg) => msg === "controller starting") < index((msg) => msg.startsWith("proxy-fqdn suffix")),
  );
});

Deno.test("controller (coredns): two releases with --marker-id keep separate blocks and never fight", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"], className: "nginx" });
  cluster.ingress("edge/api", { tls: ["api.example.com"], className: "edge" });
  await using main = await startController([...cluster.flags, "--ingress-class=nginx"]);
  await using edge = await startController([...cluster.flags, "--ingress-class=edge", "--marker-id=edge"]);
  assert.equal(edge.starting.markerId, "edge");
  assert.equal(main.starting.markerId, undefined, "an empty marker id is left out of the line");
  const block = (id: string) => {
    const begin = `# === BEGIN ouroboros${id === "" ? "" : ` ${id}`} (do not edit by hand) ===`;
    const end = `# === END ouroboros${id === "" ? "" : ` ${id}`} ===`;
    const text = cluster.corefile();
    const from = text.indexOf(begin);
    const to = text.indexOf(end);
    if (from < 0 || to < 0) return undefined;
    return [...text.slice(from, to).matchAll(/rewrite name (\S+)/g)].map((match) => match[1]);
  };
  await waitFor(
    "both blocks written",
    () =>
      JSON.stringify(block("")) === '["shop.example.com"]' &&
      JSON.stringify(block("edge")) === '["api.example.com"]',
  );
  cluster.ingress("edge/api", { tls: ["api.example.com", "www.api.example.com"], className: "edge" });
  await waitFor("the edge block to follow", () => block("edge")?.length === 2);
  assert.deepEqual(block(""), ["shop.example.com"]);
  // Settled: status-only changes wake neither controller, and each one that sees the other's write
  // (a ConfigMap event) recomputes, finds nothing to do, and writes nothing: no fight.
  const writes = cluster.configMapWrites().length;
  const skipped = async (process: typeof main) =>
    await metric(process, ["ouroboros_controller_reconciles_skipped_total", {}]) +
    await metric(process, ["ouroboros_controller_reconciles_total", { result: "unchanged" }]);
  const before = await skipped(edge);
  cluster.ingress("shop/web", { tls: ["shop.example.com"], className: "nginx", statusIp: "192.0.2.7" });
  cluster.ingress("edge/api", {
    tls: ["api.example.com", "www.api.example.com"],
    className: "edge",
    statusIp: "192.0.2.8",
  });
  // A real change after them: once both have handled its write, every earlier event was processed.
  cluster.ingress("shop/web", { tls: ["shop.example.com", "www.shop.example.com"], className: "nginx" });
  await waitFor("the main block to follow", () => block("")?.length === 2);
  await waitFor(
    "the edge controller to see that write and leave it",
    async () => await skipped(edge) > before,
  );
  assert.equal(
    cluster.configMapWrites().length,
    writes + 1,
    "only the real change is written once both blocks are in place",
  );
  assert.equal(main.logs.filter((line) => line.level === "ERROR").length, 0);
  assert.equal(edge.logs.filter((line) => line.level === "ERROR").length, 0);
});

Deno.test("controller (coredns): a 410 relist through a slow two-page list never shrinks the block, deletions in the gap are found; deleting every Ingress removes the block exactly (T-1.6, T-1.7, T-2.18)", async (t) => {
  await using cluster = await startCluster();
  // 600 Ingresses: more than one list page (500), so a relist takes two requests.
  const hosts = Array.from({ length: 600 }, (_, i) => `h${String(i).padStart(3, "0")}.example.com`);
  hosts.forEach((host, i) => cluster.ingress(`apps/web${i}`, { tls: [host] }));
  await using controller = await startController([...cluster.flags]);
  await converged(cluster, hosts);

  await t.step(
    "the relist is invisible until its last page; then one write removes only the deleted host",
    async () => {
      const writesBefore = cluster.configMapWrites().length;
      const auditBefore = cluster.server.audit.length;
      // The next Ingress watch is told its resourceVersion is too old, and the relist's two pages
      // each take 750 ms: a cache filled page by page would be written half-full in between.
      cluster.server.faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" }, {
        path: /ingresses/,
      });
      // The relist at the last version (one request, served from the watch cache) finds that
      // version gone too, so the consistent read that follows is paged.
      cluster.server.faults.inject("list", { type: "status", code: 410, reason: "Expired" }, {
        path: /ingresses/,
      });
      cluster.server.faults.inject("list", { type: "delay", ms: 750 }, { path: /ingresses/, count: 2 });
      cluster.server.faults.dropWatches();
      // Deleted while no watch is open: only the relist can tell.
      cluster.deleteIngress("apps/web0");
      await converged(cluster, hosts.slice(1));

      const lists = cluster.server.audit.slice(auditBefore).filter((entry) =>
        entry.method === "GET" && entry.path.endsWith("/ingresses") && entry.query.watch !== "true"
      );
      assert.equal(lists[0]?.query.limit, undefined, "the relist at the last version is one request");
      const relist = lists.slice(1);
      assert.equal(relist.length, 2, "the relist took two pages");
      assert.ok(relist[1]?.query.continue, "the second page continued the first");
      assert.ok(
        await metric(controller, ["ouroboros_controller_watch_restarts_total", {
          kind: "Ingress",
          reason: "expired",
        }]) >=
          1,
      );
      assert.equal(
        cluster.configMapWrites().length - writesBefore,
        1,
        "exactly one write: no half-full or empty block was ever written",
      );
    },
  );

  await t.step("every Ingress deleted: the block goes and the Corefile is the original again", async () => {
    for (let i = 1; i < hosts.length; i++) cluster.deleteIngress(`apps/web${i}`);
    await converged(cluster, []);
    assert.equal(cluster.corefile(), KUBEADM);
  });
});

Deno.test("controller (coredns): damaged markers are refused end to end: no write, an ERROR, an Event, a metric, not ready; repairing them lets the block in (T-2.6)", async () => {
  const damaged = KUBEADM.replace(
    "    loadbalance\n",
    `    loadbalance\n    ${END}\n    rewrite name old.example.com ${PROXY_FQDN}\n    ${BEGIN}\n`,
  );
  await using cluster = await startCluster({ corefile: damaged });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  await using controller = await startController([...cluster.flags]);

  const refused = await controller.waitForLog("the refusal", (line) => line.msg.startsWith("write refused"));
  assert.equal(refused.level, "ERROR");
  assert.equal(refused.problem, "end-before-begin");
  assert.match(String(refused.message), /END marker on line \d+ comes before the BEGIN marker/);
  await waitFor(
    "a Warning Event on the ConfigMap",
    () =>
      cluster.server.list("v1", "Event", "kube-system").find((event) =>
        event.reason === "CorefileMarkersDamaged" && event.type === "Warning"
      ),
  );
  assert.ok(
    await metric(controller, ["ouroboros_controller_refusals_total", { problem: "end-before-begin" }]) >= 1,
    "counted under its problem",
  );
  const readiness = await controller.healthGet("/readyz");
  assert.equal(readiness.status, 503);
  assert.match(readiness.body, /refused \(end-before-begin\)/);
  assert.deepEqual(cluster.configMapWrites(), [], "nothing was written");
  assert.equal(cluster.corefile(), damaged, "the damaged Corefile is left exactly as it was");

  // The operator deletes the stray lines; the ConfigMap watch picks that up at once.
  cluster.setCorefile(KUBEADM);
  await converged(cluster, ["shop.example.com"]);
  await waitFor("/readyz to answer 200", async () => (await controller.healthGet("/readyz")).status === 200);
});

Deno.test("controller (coredns): conflicts beyond the five quick retries fail the reconcile, which backs off and then writes (T-2.1)", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  // Seven 409s: five attempts of the first reconcile and two of the retry after the backoff.
  cluster.server.faults.inject("patch", { type: "status", code: 409, reason: "Conflict" }, {
    path: /configmaps/,
    count: 7,
  });
  await using controller = await startController([...cluster.flags]);
  await converged(cluster, ["shop.example.com"]);

  const patches = cluster.server.audit.filter((entry) =>
    entry.method === "PATCH" && entry.path.includes("/configmaps")
  );
  assert.deepEqual(patches.map((entry) => entry.status), [409, 409, 409, 409, 409, 409, 409, 200]);
  const failed = controller.logs.filter((line) => line.msg.startsWith("reconcile failed"));
  assert.equal(failed.length, 1, "one failed reconcile, then the retry after the backoff succeeded");
  assert.match(String(failed[0]?.error), /409 Conflict/);
  assert.ok(Number(failed[0]?.retryInSeconds) > 0, "the retry waits");
  assert.equal(await metric(controller, ["ouroboros_controller_reconciles_total", { result: "error" }]), 1);
  assert.equal(await metric(controller, ["ouroboros_controller_writes_total", {}]), 1);
  assert.equal(outsideBlock(cluster.corefile()), KUBEADM);
});

Deno.test("controller (coredns-import): someone deleting our key gets it back at once, without waiting for the resync (T-1.28)", async () => {
  await using cluster = await startCluster({ importConfigMap: true });
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  await using _controller = await startController([
    ...cluster.flags,
    "--mode=coredns-import",
    "--resync=10m",
  ]);
  const stored = () => cluster.server.get("v1", "ConfigMap", "kube-system", "coredns-custom");
  const key = () => ((stored()?.data ?? {}) as Record<string, string>)["ouroboros.override"];
  const expected = `rewrite name shop.example.com ${PROXY_FQDN}\n`;
  await waitFor("the import key to be written", () => key() === expected);

  const current = stored()!;
  const { "ouroboros.override": _ours, ...others } = current.data as Record<string, string>;
  cluster.server.update({ ...current, data: others });
  assert.equal(key(), undefined);
  await waitFor("the import key to be restored", () => key() === expected);
  assert.equal(
    ((stored()?.data ?? {}) as Record<string, string>)["other.server"],
    others["other.server"],
    "the other key is untouched",
  );
});

Deno.test("controller (external-dns): a DNSEndpoint someone deletes is re-created by the next resync (T-1.28)", async () => {
  await using cluster = await startCluster();
  cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.20"]);
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  cluster.ingress("blog/site", { tls: ["blog.example.com"] });
  await using _controller = await startController([
    ...cluster.flags,
    "--mode=external-dns",
    "--external-dns-namespace=ouroboros",
    "--proxy-service-namespace=ouroboros",
    "--resync=1s",
  ], { env: { OUROBOROS_INSTANCE: "release" } });
  const endpoints = () => cluster.server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "ouroboros");
  const nameFor = (host: string) =>
    endpoints().find((object) =>
      (object.spec as { endpoints: { dnsName: string }[] }).endpoints[0]?.dnsName === host
    )?.metadata as { name: string; uid: string } | undefined;
  await waitFor("both records", () => endpoints().length === 2);
  const deleted = nameFor("shop.example.com")!;
  const blog = nameFor("blog.example.com")!;

  cluster.server.remove("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "ouroboros", deleted.name);
  assert.equal(nameFor("shop.example.com"), undefined);
  const restored = await waitFor("the record to be re-created", () => nameFor("shop.example.com"));
  assert.equal(restored.name, deleted.name, "under the same name");
  assert.notEqual(restored.uid, deleted.uid, "as a new object");
  assert.equal(nameFor("blog.example.com")?.uid, blog.uid, "the other record was left alone");
});

Deno.test("controller (external-dns): no record is deleted while the Ingress cache is unsynced or relisting (T-5.4, T-5.2)", async (t) => {
  await using cluster = await startCluster();
  cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.20"]);
  const hosts = Array.from({ length: 600 }, (_, i) => `h${String(i).padStart(3, "0")}.example.com`);
  hosts.forEach((host, i) => cluster.ingress(`apps/web${i}`, { tls: [host] }));
  const flags = [
    ...cluster.flags,
    "--mode=external-dns",
    "--external-dns-namespace=ouroboros",
    "--proxy-service-namespace=ouroboros",
  ];
  const env = { env: { OUROBOROS_INSTANCE: "release" } };
  const records = () => cluster.server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "ouroboros").length;
  const deletes = (from: number) =>
    cluster.server.audit.slice(from).filter((entry) =>
      entry.method === "DELETE" && entry.path.includes("dnsendpoints")
    );
  {
    await using first = await startController(flags, env);
    await waitFor("600 records", () => records() === 600, { timeoutMs: 20_000 });
    first.kill("SIGTERM");
    await first.status;
  }

  const auditBefore = cluster.server.audit.length;
  cluster.server.faults.inject("list", { type: "delay", ms: 1_500 }, { path: /ingresses/, count: 2 });
  await using second = await startController(flags, env);

  await t.step(
    "a restart whose first Ingress list is slow deletes nothing before it has synced",
    async () => {
      await waitFor("/readyz 200", async () => (await second.healthGet("/readyz")).status === 200, {
        timeoutMs: 20_000,
      });
      assert.equal(deletes(auditBefore).length, 0);
      assert.equal(records(), 600);
    },
  );

  await t.step("a 410 relist through slow pages deletes exactly the Ingress deleted meanwhile", async () => {
    const auditStart = cluster.server.audit.length;
    cluster.server.faults.inject("watch", { type: "watch-error-event", code: 410, reason: "Expired" }, {
      path: /ingresses/,
    });
    cluster.server.faults.inject("list", { type: "delay", ms: 750 }, { path: /ingresses/, count: 2 });
    cluster.server.faults.dropWatches();
    cluster.deleteIngress("apps/web0");
    await waitFor("599 records", () => records() === 599, { timeoutMs: 20_000 });
    assert.equal(deletes(auditStart).length, 1, "one delete: the cache was never seen half-filled");
  });
});
