/**
 * Scenario 2 of the real-component suite: coredns-import mode through the import glob, and
 * node-local-dns `manage` against a node-local-dns-style Corefile served by a real CoreDNS (the
 * node-local-dns cache, node-cache, is CoreDNS).
 *
 * coredns-import: the Corefile (which the controller may only read, at start) imports
 * `<folder>/*.override` in its root block, and the import ConfigMap is a second volume of the
 * CoreDNS pod, mounted at that folder; both are copied with the kubelet's atomic layout. The
 * controller writes only its key; CoreDNS's `reload` notices the imported file changing although
 * the Corefile itself never changes (its hash covers the Corefile with the imports spliced in), so
 * hostnames come and go, the operator's own key keeps working, and a key deleted at zero hosts is
 * an empty glob for CoreDNS, not an error.
 *
 * node-local-dns: its Corefile as the addon ships it (a cluster-domain block forwarding over TCP
 * to the cluster's DNS, a `.:53` block forwarding to the node's upstream), rendered with loopback
 * addresses. An upstream CoreDNS stands for the world outside, answering the Ingress hostname with
 * a public address: before the controller's block, node-local-dns answers that address (the
 * hairpin); with it, the name goes to the cluster's CoreDNS, whose rewrite answers the proxy's
 * ClusterIP, while other names still go where they went.
 *
 * Both end with the audit log: no request of the controller was refused (403), the start-up
 * probe's read of the main Corefile in coredns-import mode included (the chart grants `get` on
 * that one ConfigMap, so the probe's WARNs about `reload` and the import line can be given).
 *
 * @module
 */

import assert from "node:assert/strict";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController } from "../../support/ouroboros_process.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { COREDNS_ACCOUNT, freePortPair, kubeadmStyleCorefile, startCoredns } from "../coredns.ts";
import {
  aRecords,
  completedReloads,
  mirrorVolume,
  startStaticCoredns,
  withRootDirective,
} from "../coredns_setups.ts";
import { CONTROLLER_EVENT_GRANTS, describeRequest, forbidden } from "../rbac_usage.ts";
import { type Stack, startStack } from "../stack.ts";

/** Generous: another scenario may be running on the same two cores. */
const WAIT = { timeoutMs: 60_000, intervalMs: 250 };

async function clusterIp(stack: Stack, namespace: string, name: string): Promise<string> {
  return (await stack.kubectlOk([
    "get",
    "service",
    "-n",
    namespace,
    name,
    "-o",
    "jsonpath={.spec.clusterIP}",
  ]))
    .trim();
}

async function configMapData(stack: Stack, namespace: string, name: string): Promise<Record<string, string>> {
  const text = await stack.kubectlOk(["get", "configmap", "-n", namespace, name, "-o", "json"]);
  return (JSON.parse(text) as { data?: Record<string, string> }).data ?? {};
}

/** The controller's requests the apiserver refused, after it has stopped. */
async function refusedRequests(stack: Stack, namespace: string, account: string): Promise<string[]> {
  return forbidden(await stack.audited(), stack.identity(namespace, account).user).map(describeRequest);
}

Deno.test("real: coredns-import mode — the controller's key, mounted where the import glob reads, is served and reloaded by a real CoreDNS", async () => {
  await using stack = await startStack({
    releases: [{ release: "ouroboros", namespace: "ouroboros", set: ["controller.mode=coredns-import"] }],
    peers: [COREDNS_ACCOUNT],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply(renderedOfKind(release, "Service"));
    const proxyIp = await clusterIp(stack, "ouroboros", "ouroboros-proxy");
    const apiIp = await clusterIp(stack, "default", "kubernetes");
    assert.match(proxyIp, /^127\.96\./);

    // The import ConfigMap exists first (the controller never creates it), with a key of the
    // operator's own that the same glob imports.
    const team = "rewrite name api.example.org kubernetes.default.svc.cluster.local.\n";
    await stack.apply([{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns-custom", namespace: "kube-system" },
      data: { "team.override": team },
    }]);
    // The pod's second volume: where `/etc/coredns/custom` would be. A folder beside the Corefile's
    // own volume, not inside it: the kubelet's layout of that volume owns every name in its folder.
    await using custom = await mirrorVolume(stack, {
      namespace: "kube-system",
      configmap: "coredns-custom",
      dir: `${stack.dir}/coredns-custom-volume`,
    });
    const importLine = `import ${custom.dir}/*.override`;
    const bind = "127.0.56.1";
    await stack.apply([{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: "kube-system" },
      data: {
        Corefile: withRootDirective(
          kubeadmStyleCorefile({
            bind,
            healthPort: freePortPair(),
            readyPort: freePortPair(),
            kubeconfig: await stack.kubeconfig("kube-system", "coredns"),
          }),
          importLine,
        ),
      },
    }]);
    await using coredns = await startCoredns(stack, {
      namespace: "kube-system",
      configmap: "coredns",
      bind,
      name: "coredns-import",
    });
    const answer = (name: string) => aRecords(coredns.address, name);
    // The glob is read at start: the operator's key already answers.
    await waitFor(
      "the operator's imported key to answer",
      async () => (await answer("api.example.org")) === apiIp,
      WAIT,
    );
    const reloadsBefore = completedReloads(coredns.process.output());
    const corefileWrites = coredns.volume.writes();

    const launch = await chartLaunch(stack, release, { workload: "ouroboros", container: "controller" });
    const controller = await startController(launch.args, { env: launch.env });
    try {
      await stack.apply([
        ingressManifest({
          namespace: "shop",
          name: "shop",
          tls: { hosts: ["shop.example.com", "*.apps.example.com"], secretName: "shop-tls" },
          ruleHosts: ["shop.example.com"],
          service: { name: "shop", port: 80 },
        }),
        ingressManifest({
          namespace: "blog",
          name: "blog",
          tls: { hosts: ["blog.example.com"], secretName: "blog-tls" },
          ruleHosts: ["blog.example.com"],
          service: { name: "blog", port: 80 },
        }),
      ]);
      const until = (what: string, check: () => Promise<boolean>) =>
        controller.explain(() => waitFor(what, check, WAIT));
      await until(
        "shop.example.com to answer the proxy",
        async () => (await answer("shop.example.com")) === proxyIp,
      );
      await until(
        "blog.example.com to answer the proxy",
        async () => (await answer("blog.example.com")) === proxyIp,
      );
      await until(
        "x.apps.example.com to answer the proxy",
        async () => (await answer("x.apps.example.com")) === proxyIp,
      );
      assert.notEqual(await answer("a.b.apps.example.com"), proxyIp, "two labels under a wildcard");
      assert.equal(await answer("api.example.org"), apiIp, "the operator's key still answers");

      // Only the controller's key was written; the file CoreDNS imports is exactly that value.
      const data = await configMapData(stack, "kube-system", "coredns-custom");
      assert.equal(data["team.override"], team, "the operator's key is untouched");
      assert.match(
        data["ouroboros.override"] ?? "",
        /^rewrite name blog\.example\.com ouroboros-proxy\.ouroboros\.svc\.cluster\.local\.\n/,
      );
      await custom.synced();
      assert.equal(await Deno.readTextFile(`${custom.dir}/ouroboros.override`), data["ouroboros.override"]);

      // The finding this scenario exists for: the reload plugin noticed a change of an imported
      // file alone. The Corefile's ConfigMap, and so its copy, never changed.
      assert.equal(coredns.volume.writes(), corefileWrites, "the Corefile's volume was not rewritten");
      assert.ok(
        completedReloads(coredns.process.output()) > reloadsBefore,
        "CoreDNS reloaded because an imported file changed",
      );

      // A removed hostname stops answering; the others stay.
      await stack.kubectlOk(["delete", "ingress", "-n", "blog", "blog"]);
      await until("blog.example.com to stop answering the proxy", async () => {
        const now = await answer("blog.example.com");
        return now !== proxyIp && now !== "no reply";
      });
      assert.equal(await answer("shop.example.com"), proxyIp, "the remaining host");

      // Zero hosts: the controller deletes its key, the file leaves the folder, and the glob still
      // loads (the operator's key alone).
      await stack.kubectlOk(["delete", "ingress", "-n", "shop", "shop"]);
      await until(
        "the key to be deleted",
        async () => !("ouroboros.override" in await configMapData(stack, "kube-system", "coredns-custom")),
      );
      await until("shop.example.com to stop answering the proxy", async () => {
        const now = await answer("shop.example.com");
        return now !== proxyIp && now !== "no reply";
      });
      assert.equal(await answer("api.example.org"), apiIp, "the operator's key survives our key's deletion");
      assert.deepEqual(
        (await Array.fromAsync(Deno.readDir(custom.dir))).map((entry) => entry.name).filter((name) =>
          !name.startsWith("..")
        ),
        ["team.override"],
      );
      assert.equal(coredns.volume.writes(), corefileWrites, "the Corefile's volume was never rewritten");
      assert.deepEqual(coredns.configErrors(), [], "CoreDNS refused a Corefile or an import");
    } finally {
      controller.kill("SIGTERM");
      await controller.status;
    }
    // None: the start-up probe's get of the main Corefile (for `reload` and the import line) is
    // granted by name in this mode (templates/role-coredns.yaml), like every other request.
    assert.deepEqual(
      await refusedRequests(stack, "ouroboros", "ouroboros"),
      [],
      "requests the chart's RBAC refused",
    );
    assert.deepEqual(
      await stack.unusedGrants(stack.identity("ouroboros", "ouroboros"), [
        "ouroboros",
        "kube-system",
        "default",
      ]),
      CONTROLLER_EVENT_GRANTS,
      "grants the controller never used (Events waived: see CONTROLLER_EVENT_GRANTS)",
    );
    // And the probe did read it, at the coordinates the chart passes: once, answered, and since the
    // Corefile has `reload` and an import line matching the key, without a WARN.
    const user = stack.identity("ouroboros", "ouroboros").user;
    const corefileReads = (await stack.audited()).filter((request) =>
      request.user === user && request.verb === "get" && request.resource === "configmaps" &&
      request.namespace === "kube-system" && request.name === "coredns"
    );
    assert.deepEqual(
      corefileReads.map((request) => request.code),
      [200],
      "the start-up probe's get of the Corefile",
    );
    assert.deepEqual(
      controller.logs.filter((line) => line.level === "WARN" && /reload|import line/.test(line.msg)).map((
        line,
      ) => line.msg),
      [],
      "the start-up probe found reload and the import line",
    );
  } catch (error) {
    stack.keep();
    throw error;
  }
});

/**
 * A node-local-dns Corefile in the shape of the addon's manifest, its placeholders filled in:
 * `bind` on its link-local address (a loopback one here), the cluster domain forwarded over TCP to
 * the cluster's DNS, everything else to the node's upstream.
 */
function nodeLocalDnsCorefile(
  values: { bind: string; clusterDns: string; upstream: string; healthPort: number },
) {
  return `cluster.local:53 {
    errors
    cache {
        success 9984 30
        denial 9984 5
    }
    reload 2s 1s
    loop
    bind ${values.bind}
    forward . ${values.clusterDns} {
        force_tcp
    }
    health 127.0.0.1:${values.healthPort}
}
in-addr.arpa:53 {
    errors
    cache 30
    reload 2s 1s
    loop
    bind ${values.bind}
    forward . ${values.clusterDns} {
        force_tcp
    }
}
.:53 {
    errors
    cache 30
    reload 2s 1s
    loop
    bind ${values.bind}
    forward . ${values.upstream}
}
`;
}

Deno.test("real: node-local-dns manage — the controller's block in a real node-cache-style CoreDNS sends the hairpinned names to the cluster's CoreDNS", async () => {
  await using stack = await startStack({
    releases: [{
      release: "ouroboros",
      namespace: "ouroboros",
      set: ["controller.nodeLocalDns.mode=manage"],
    }],
    peers: [COREDNS_ACCOUNT],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply(renderedOfKind(release, "Service"));
    const proxyIp = await clusterIp(stack, "ouroboros", "ouroboros-proxy");
    const apiIp = await clusterIp(stack, "default", "kubernetes");

    // The world outside: the Ingress hostname's public address (the load balancer a pod must not
    // hairpin through), and a name nobody hairpins.
    const PUBLIC = "192.0.2.10";
    const ELSEWHERE = "192.0.2.20";
    await using upstream = await startStaticCoredns(stack, {
      name: "upstream-dns",
      bind: "127.0.56.4",
      probe: "www.example.org",
      corefile: `.:53 {
    errors
    bind 127.0.56.4
    hosts {
        ${PUBLIC} shop.example.com
        ${ELSEWHERE} www.example.org
        ttl 1
    }
}
`,
    });

    const clusterBind = "127.0.56.2";
    await stack.apply([{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "coredns", namespace: "kube-system" },
      data: {
        Corefile: kubeadmStyleCorefile({
          bind: clusterBind,
          healthPort: freePortPair(),
          readyPort: freePortPair(),
          kubeconfig: await stack.kubeconfig("kube-system", "coredns"),
          upstream: `${upstream.address.host}:53`,
        }),
      },
    }]);
    await using coredns = await startCoredns(stack, {
      namespace: "kube-system",
      configmap: "coredns",
      bind: clusterBind,
      name: "coredns-cluster",
    });

    const localBind = "127.0.56.3";
    const original = nodeLocalDnsCorefile({
      bind: localBind,
      clusterDns: clusterBind,
      upstream: `${upstream.address.host}:53`,
      healthPort: freePortPair(),
    });
    await stack.apply([{
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "node-local-dns", namespace: "kube-system" },
      data: { Corefile: original },
    }]);
    await using nodeLocal = await startCoredns(stack, {
      namespace: "kube-system",
      configmap: "node-local-dns",
      bind: localBind,
      name: "node-local-dns",
    });
    const local = (name: string) => aRecords(nodeLocal.address, name);
    // No ready plugin in node-local-dns: it is ready when it answers.
    await waitFor(
      "node-local-dns to answer",
      async () => (await local("www.example.org")) === ELSEWHERE,
      WAIT,
    );
    // The hairpin: without the controller's block node-local-dns answers the public address.
    assert.equal(await local("shop.example.com"), PUBLIC);
    assert.equal(
      await local("kubernetes.default.svc.cluster.local"),
      apiIp,
      "the cluster domain via CoreDNS",
    );

    const launch = await chartLaunch(stack, release, { workload: "ouroboros", container: "controller" });
    const controller = await startController(launch.args, { env: launch.env });
    try {
      await stack.apply([ingressManifest({
        namespace: "shop",
        name: "shop",
        tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
        ruleHosts: ["shop.example.com"],
        service: { name: "shop", port: 80 },
      })]);
      const until = (what: string, check: () => Promise<boolean>) =>
        controller.explain(() => waitFor(what, check, WAIT));
      await until(
        "the cluster's CoreDNS to answer shop.example.com with the proxy",
        async () => (await aRecords(coredns.address, "shop.example.com")) === proxyIp,
      );
      await until(
        "node-local-dns to answer shop.example.com with the proxy",
        async () => (await local("shop.example.com")) === proxyIp,
      );

      // The block: between its markers, just before the cluster-domain block, a copy of that
      // block's bind and forward; every other byte as it was.
      const written = (await configMapData(stack, "kube-system", "node-local-dns")).Corefile ?? "";
      const block = `# === BEGIN ouroboros-node-local-dns (do not edit by hand) ===
shop.example.com:53 {
    errors
    cache 30
    reload
    bind ${localBind}
    forward . ${clusterBind} {
        force_tcp
    }
}
# === END ouroboros-node-local-dns ===
`;
      assert.equal(written, block + original);
      assert.ok(completedReloads(nodeLocal.process.output()) >= 1, "node-local-dns reloaded the edit");

      // Other names go where they went.
      assert.equal(await local("www.example.org"), ELSEWHERE, "an outside name still goes upstream");
      assert.equal(await local("kubernetes.default.svc.cluster.local"), apiIp, "the cluster domain");
      assert.equal(
        await local("other.example.com"),
        await aRecords(upstream.address, "other.example.com"),
        "a sibling of the hairpinned name is answered as upstream answers it",
      );

      // A removed hostname: the block goes, and node-local-dns answers from upstream again.
      await stack.kubectlOk(["delete", "ingress", "-n", "shop", "shop"]);
      await until(
        "the block to be removed",
        async () => (await configMapData(stack, "kube-system", "node-local-dns")).Corefile === original,
      );
      await until(
        "node-local-dns to answer the public address again",
        async () => (await local("shop.example.com")) === PUBLIC,
      );
      assert.deepEqual(coredns.configErrors(), [], "the cluster's CoreDNS refused a Corefile");
      assert.deepEqual(nodeLocal.configErrors(), [], "node-local-dns refused a Corefile");
      assert.deepEqual(upstream.configErrors(), [], "the upstream refused its Corefile");
    } finally {
      controller.kill("SIGTERM");
      await controller.status;
    }
    assert.deepEqual(
      await refusedRequests(stack, "ouroboros", "ouroboros"),
      [],
      "requests the chart's RBAC refused",
    );
    assert.deepEqual(
      await stack.unusedGrants(stack.identity("ouroboros", "ouroboros"), [
        "ouroboros",
        "kube-system",
        "default",
      ]),
      CONTROLLER_EVENT_GRANTS,
      "grants the controller never used (Events waived: see CONTROLLER_EVENT_GRANTS)",
    );
  } catch (error) {
    stack.keep();
    throw error;
  }
});
