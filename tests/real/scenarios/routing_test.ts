/**
 * Scenario 9 of the real-component suite: routing (issue 30) against the real apiserver. Two
 * ingress controllers, each behind its own LoadBalancer Service whose status holds the address its
 * Ingresses report (written through the real status subresource), each a real nginx insisting on
 * the PROXY header on its Service's ClusterIP. The controller, with the chart's `routing.enabled`
 * arguments and RBAC, publishes the route table; the ConfigMap is copied into a folder with the
 * kubelet's atomic layout, which the proxy, run as the chart runs it, reads. curl through the proxy
 * reaches the controller that owns each hostname, an unknown name the default target, and when an
 * Ingress's address moves to the other load balancer (a status-only change) its hostname follows.
 * Nothing the controller asked was refused (403).
 *
 * @module
 */

import assert from "node:assert/strict";
import { startNginx } from "../../support/daemons.ts";
import { ingressManifest } from "../../support/ingress_manifest.ts";
import { startController, startProxy } from "../../support/ouroboros_process.ts";
import { requireTool } from "../../support/tools.ts";
import { waitFor } from "../../support/wait.ts";
import { chartLaunch, releaseNamed, renderedOfKind } from "../chart_workloads.ts";
import { mirrorVolume } from "../coredns_setups.ts";
import { describeRequest, forbidden } from "../rbac_usage.ts";
import { type Stack, startStack } from "../stack.ts";

/** Generous: another scenario may be running on the same two cores. */
const WAIT = { timeoutMs: 60_000, intervalMs: 250 };
const CONTROLLERS = [
  { name: "nginx-a", namespace: "ingress-a", address: "203.0.113.7", host: "shop.example.com" },
  { name: "nginx-b", namespace: "ingress-b", address: "203.0.113.8", host: "app.example.com" },
] as const;

function loadBalancerService(name: string, namespace: string): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { name, namespace },
    spec: {
      type: "LoadBalancer",
      ports: [{ name: "http", port: 80 }, { name: "https", port: 443 }],
    },
  };
}

/** Writes `status.loadBalancer.ingress` through the status subresource, as a cloud controller does. */
async function setLoadBalancerIp(
  stack: Stack,
  kind: string,
  ref: { namespace: string; name: string },
  ip: string,
) {
  await stack.kubectlOk([
    "patch",
    kind,
    "-n",
    ref.namespace,
    ref.name,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status: { loadBalancer: { ingress: [{ ip }] } } }),
  ]);
}

async function curl(proxyIp: string, host: string): Promise<string> {
  const output = await new Deno.Command(requireTool("curl"), {
    args: [
      "--silent",
      "--show-error",
      "--max-time",
      "10",
      "--resolve",
      `${host}:80:${proxyIp}`,
      `http://${host}/`,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, `curl ${host} failed: ${new TextDecoder().decode(output.stderr)}`);
  return new TextDecoder().decode(output.stdout);
}

Deno.test("real: routing — each hostname reaches the ingress controller whose load balancer its Ingress reports", async () => {
  await using stack = await startStack({
    releases: [{ release: "ouroboros", namespace: "ouroboros", set: ["routing.enabled=true"] }],
  });
  try {
    const release = releaseNamed(stack, "ouroboros");
    await stack.apply([
      ...renderedOfKind(release, "Service"),
      ...CONTROLLERS.map(({ name, namespace }) => loadBalancerService(name, namespace)),
    ]);
    const proxyIp = await stack.clusterIp("ouroboros", "ouroboros-proxy");
    const backendIps: string[] = [];
    for (const controller of CONTROLLERS) {
      await setLoadBalancerIp(stack, "service", controller, controller.address);
      backendIps.push(await stack.clusterIp(controller.namespace, controller.name));
    }
    // Each ingress controller: nginx on its Service's ClusterIP, insisting on the PROXY header.
    await using _nginx = await startNginx(
      CONTROLLERS.map(({ name }, i) =>
        `server {
    listen ${backendIps[i]}:80 proxy_protocol;
    location / { return 200 "${name} host=$host\\n"; }
  }`
      ).join("\n"),
      backendIps.map((ip): [string, number] => [ip, 80]),
    );

    const controllerLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros",
      container: "controller",
    });
    assert.ok(
      controllerLaunch.args.includes("--routes"),
      `the chart passes --routes: ${controllerLaunch.args}`,
    );
    await using controller = await startController(controllerLaunch.args, { env: controllerLaunch.env });
    for (const [i, { host, address }] of CONTROLLERS.entries()) {
      await stack.apply([ingressManifest({
        namespace: "shop",
        name: `site-${i}`,
        tls: { hosts: [host], secretName: `site-${i}-tls` },
        ruleHosts: [host],
        service: { name: "site", port: 80 },
      })]);
      await setLoadBalancerIp(stack, "ingress", { namespace: "shop", name: `site-${i}` }, address);
    }
    const configmap = "ouroboros-routes";
    await controller.explain(() =>
      waitFor("the route table with both hostnames", async () => {
        const text = await stack.kubectl([
          "get",
          "configmap",
          "-n",
          "ouroboros",
          configmap,
          "-o",
          "jsonpath={.data}",
        ]);
        return text.code === 0 && CONTROLLERS.every(({ host }) => text.stdout.includes(host));
      }, WAIT)
    );

    // The proxy reads the table from a copy of the ConfigMap volume, as the chart mounts it.
    await using volume = await mirrorVolume(stack, {
      namespace: "ouroboros",
      configmap,
      dir: `${stack.dir}/routes`,
    });
    const proxyLaunch = await chartLaunch(stack, release, {
      workload: "ouroboros-proxy",
      container: "proxy",
      kube: false,
      overrides: [
        `--listen-http=${proxyIp}:80`,
        `--listen-https=${proxyIp}:443`,
        `--target-host=${backendIps[0]}`,
        `--routes-file=${volume.dir}/routes.json`,
      ],
    });
    await using proxy = await startProxy(proxyLaunch.args, { env: proxyLaunch.env, extraRead: volume.dir });
    assert.equal(await curl(proxyIp, "shop.example.com"), "nginx-a host=shop.example.com\n");
    assert.equal(await curl(proxyIp, "app.example.com"), "nginx-b host=app.example.com\n");
    assert.equal(
      await curl(proxyIp, "other.example.com"),
      "nginx-a host=other.example.com\n",
      "the default target",
    );

    // app.example.com's Ingress moves to the first load balancer: only its status changes.
    await setLoadBalancerIp(stack, "ingress", { namespace: "shop", name: "site-1" }, CONTROLLERS[0].address);
    await waitFor(
      "app.example.com to follow its Ingress's address",
      async () => (await curl(proxyIp, "app.example.com")) === "nginx-a host=app.example.com\n",
      WAIT,
    );
    assert.ok(proxy.logs.some((line) => line.msg === "route table loaded"), "the proxy logged its table");

    controller.kill("SIGTERM");
    await controller.status;
    const refused = forbidden(await stack.audited(), stack.identity("ouroboros", "ouroboros").user);
    assert.deepEqual(refused.map(describeRequest), [], "the chart's RBAC covers everything --routes asks");
  } catch (error) {
    stack.keep();
    throw error;
  }
});
