/**
 * Scenario 6 of the real-component suite: the whole hairpin, every hop real. A pod's question
 * for an Ingress hostname goes to a real CoreDNS, which answers (through the controller's
 * rewrite) the ClusterIP the real apiserver gave the proxy's Service; a connection to that address
 * reaches ouroboros proxy (listening on the ClusterIP, standing in for kube-proxy), which writes
 * the PROXY header and relays to nginx with `proxy_protocol` on as the ingress (on its own
 * Service's ClusterIP); nginx's answer names the address the caller connected from, which is
 * what an ingress behind a PROXY-protocol load balancer needs to see.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startNginx } from "../../support/daemons.ts";
import { queryDns } from "../../support/dns_tools.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController, startProxy } from "../../support/ouroboros_process.ts";
import { requireTool } from "../../support/tools.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { COREDNS_ACCOUNT, startKubeadmCoredns } from "../coredns.ts";
import { startStack } from "../stack.ts";

/** The caller's own loopback address, so the ingress's answer can only name it if the header did. */
const CALLER = "127.0.0.77";

Deno.test("real: the whole hairpin — CoreDNS's answer, the proxy, nginx with proxy_protocol sees the caller", async () => {
  await using stack = await startStack({
    releases: [{ release: "ouroboros", namespace: "ouroboros" }],
    peers: [COREDNS_ACCOUNT],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply([
      ...renderedOfKind(release, "Service"),
      {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: "ingress-nginx-controller", namespace: "ingress-nginx" },
        spec: { ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }] },
      },
    ]);
    const proxyIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    const ingressIp = await stack.clusterIp("ingress-nginx", "ingress-nginx-controller");

    await using coredns = await startKubeadmCoredns(stack, { bind: "127.0.53.6" });

    // The ingress: nginx on its Service's ClusterIP, insisting on the PROXY header.
    await using _nginx = await startNginx(
      `server {
    listen ${ingressIp}:80 proxy_protocol;
    location / { return 200 "host=$host client=$proxy_protocol_addr\\n"; }
  }`,
      [[ingressIp, 80]],
    );
    // The proxy, as the chart runs it, on its Service's ClusterIP; the ingress by its ClusterIP
    // (the proxy's own resolver is the machine's, which does not know cluster names).
    const proxyLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros-proxy",
      container: "proxy",
      kube: false,
      overrides: [
        `--listen-http=${proxyIp}:80`,
        `--listen-https=${proxyIp}:443`,
        `--target-host=${ingressIp}`,
      ],
    });
    await using _proxy = await startProxy(proxyLaunch.args, { env: proxyLaunch.env });

    const controllerLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros",
      container: "controller",
    });
    await using controller = await startController(controllerLaunch.args, { env: controllerLaunch.env });
    await stack.apply([ingressManifest({
      namespace: "shop",
      name: "shop",
      tls: { hosts: ["shop.example.com"], secretName: "shop-tls" },
      ruleHosts: ["shop.example.com"],
      service: { name: "shop", port: 80 },
    })]);

    const answered = await controller.explain(() =>
      waitFor("CoreDNS to answer shop.example.com with the proxy's ClusterIP", async () => {
        const [reply] = await queryDns(coredns.address, [{ name: "shop.example.com" }], { source: CALLER });
        const address = reply?.answers.find((record) => record.type === "A")?.data;
        return address === proxyIp ? address : undefined;
      }, { timeoutMs: 30_000, intervalMs: 250 })
    );

    const curl = await new Deno.Command(requireTool("curl"), {
      args: [
        "--silent",
        "--show-error",
        "--max-time",
        "10",
        "--interface",
        CALLER,
        "--resolve",
        `shop.example.com:80:${answered}`,
        "http://shop.example.com/",
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const body = new TextDecoder().decode(curl.stdout);
    assert.equal(curl.code, 0, `curl failed: ${new TextDecoder().decode(curl.stderr)}`);
    assert.equal(body, `host=shop.example.com client=${CALLER}\n`);
  } catch (error) {
    stack.keep();
    throw error;
  }
});
