/**
 * The demo's routing part (issue 30): two ingress controllers behind two load balancers, each
 * insisting on a PROXY header, and one proxy that sends each hairpinned hostname to its own.
 *
 * ingress-nginx serves the Ingresses, which report its load balancer's address (203.0.113.10) in
 * their status; Envoy Gateway serves Gateway web/public (listener app.example.com), which reports
 * its own (203.0.113.20). Each load balancer is a LoadBalancer Service in the embedded cluster
 * whose status holds that address, its ClusterIP 127.0.0.1 and its port the stand-in's (there is
 * no kube-proxy here: the ClusterIP and port are where the stand-in listens). `ouroboros
 * controller --routes --gateway-api` writes the route table ConfigMap; the demo copies its
 * `routes.json` into a folder, as the kubelet mounts it in the proxy's pod, and starts `ouroboros
 * proxy --routes-file` with the proxy permission set plus that one folder. Then one request per
 * hostname through the proxy says which stand-in answered; a hostname no route names reaches the
 * proxy's default target, a third stand-in.
 *
 * Effects: creates and replaces objects in the fake API server, starts child processes and
 * listeners, writes a temporary folder.
 *
 * @module
 */

import type { Cluster } from "../controller/cluster_fixture.ts";
import { parseRouteTable, type RouteTable } from "../../lib/routes/route_table.ts";
import {
  type LogLine,
  type ProxyProcess,
  startController,
  startProxy,
} from "../support/ouroboros_process.ts";
import { metric } from "../support/scrape.ts";
import { tempDir } from "../support/temp_dir.ts";
import { waitFor } from "../support/wait.ts";
import { call, type IngressStandIn, startIngressStandIn } from "./ingress_stand_in.ts";

/** What the stage prints and promises, and where its processes' logs go for the schema check. */
export interface RoutingStageIo {
  readonly say: (text?: string) => void;
  readonly check: (what: string, ok: boolean) => void;
  /** Controllers' log lines (checked for ERRORs too). */
  readonly controllerLogs: { label: string; logs: readonly LogLine[] }[];
  /** Other processes' log lines. */
  readonly otherLogs: { label: string; logs: readonly LogLine[] }[];
}

const NGINX_LB = "203.0.113.10";
const GATEWAY_LB = "203.0.113.20";
const NGINX = "ingress-nginx/ingress-nginx-controller";
const GATEWAY = "envoy-gateway-system/envoy-public";
const TABLE = { namespace: "ouroboros", name: "ouroboros-routes" };

function put(cluster: Cluster, object: Record<string, unknown>): void {
  const { namespace, name } = object.metadata as { namespace: string; name: string };
  const existing = cluster.server.get(object.apiVersion as string, object.kind as string, namespace, name);
  if (existing === undefined) cluster.server.create(object);
  else cluster.server.update(object);
}

function loadBalancer(
  key: string,
  options: { readonly ip: string; readonly port: number; readonly annotations?: Record<string, string> },
): Record<string, unknown> {
  const [namespace, name] = key.split("/");
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: { namespace, name, annotations: options.annotations ?? {} },
    spec: {
      type: "LoadBalancer",
      clusterIP: "127.0.0.1",
      clusterIPs: ["127.0.0.1"],
      ports: [{ name: "http", port: options.port, protocol: "TCP" }, {
        name: "https",
        port: 443,
        protocol: "TCP",
      }],
    },
    status: { loadBalancer: { ingress: [{ ip: options.ip, ipMode: "VIP" }] } },
  };
}

/** Every Ingress in the cluster, now reporting ingress-nginx's load balancer in its status. */
function reportNginx(cluster: Cluster): string[] {
  const reported: string[] = [];
  for (const ingress of cluster.server.list("networking.k8s.io/v1", "Ingress")) {
    const metadata = ingress.metadata as { namespace: string; name: string };
    cluster.server.update({ ...ingress, status: { loadBalancer: { ingress: [{ ip: NGINX_LB }] } } });
    reported.push(`${metadata.namespace}/${metadata.name}`);
  }
  return reported.sort();
}

/** The table the controller published, once it routes `hosts`. */
function publishedTable(
  cluster: Cluster,
  hosts: readonly string[],
): { text: string; table: RouteTable } | undefined {
  const configMap = cluster.server.get("v1", "ConfigMap", TABLE.namespace, TABLE.name);
  const text = ((configMap?.data ?? {}) as Record<string, string>)["routes.json"];
  if (text === undefined) return undefined;
  const parsed = parseRouteTable(text);
  if (!parsed.ok) return undefined;
  const routed = new Set(parsed.table.routes.map((route) => route.host));
  return hosts.every((host) => routed.has(host)) ? { text, table: parsed.table } : undefined;
}

/** The stand-in's name from its answer (`ingress-nginx: hello …`), the PROXY version and the address it saw. */
function answeredBy(body: string): { name: string; version: string; named: string } {
  const match = /^([\w-]+): hello (\S+): the PROXY (v\d) header named you/.exec(body);
  return { name: match?.[1] ?? `nobody (${body})`, named: match?.[2] ?? "?", version: match?.[3] ?? "?" };
}

/** Runs the routing part: steps 18 to 21. Stops everything it started before it returns. */
export async function runRoutingStage(cluster: Cluster, io: RoutingStageIo): Promise<void> {
  const { say, check } = io;
  await using stack = new AsyncDisposableStack();
  const standIn = (name: string): IngressStandIn => {
    const started = startIngressStandIn({ name });
    stack.defer(() => started.stop());
    return started;
  };
  const nginx = standIn("ingress-nginx");
  const gateway = standIn("envoy-gateway");
  const fallback = standIn("default-backend");

  put(cluster, loadBalancer(NGINX, { ip: NGINX_LB, port: nginx.port }));
  put(
    cluster,
    loadBalancer(GATEWAY, {
      ip: GATEWAY_LB,
      port: gateway.port,
      annotations: { "ouroboros.lexfrei.tech/proxy-protocol": "v2" },
    }),
  );
  const reported = reportNginx(cluster);
  put(cluster, {
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: { namespace: "web", name: "public" },
    spec: {
      gatewayClassName: "eg",
      listeners: [{ name: "https", hostname: "app.example.com", protocol: "HTTPS", port: 443 }],
    },
    status: { addresses: [{ type: "IPAddress", value: GATEWAY_LB }] },
  });
  say("18. Two ingress controllers, each behind its own load balancer, each insisting on a PROXY header:");
  say(`   - ingress-nginx: LoadBalancer Service ${NGINX}, ${NGINX_LB}; the`);
  say(`     Ingresses ${reported.join(", ")} report ${NGINX_LB} in their status`);
  say(`   - Envoy Gateway: LoadBalancer Service ${GATEWAY}, ${GATEWAY_LB}, annotated`);
  say(
    "     ouroboros.lexfrei.tech/proxy-protocol: v2; Gateway web/public, listener app.example.com, reports",
  );
  say(`     ${GATEWAY_LB} in its status`);
  say("   A stand-in for each listens at its Service's ClusterIP and port (127.0.0.1, no kube-proxy here).");
  say();

  say("19. Start the controller with --routes --gateway-api (deno run -P=controller main.ts controller");
  say("   --routes --routes-namespace=ouroboros --gateway-api …). Besides the Corefile block, it writes the");
  say(`   route table into ConfigMap ${TABLE.namespace}/${TABLE.name}, key routes.json; each hostname goes`);
  say("   to the LoadBalancer Service holding the address its Ingress or Gateway reports:");
  const controller = stack.use(
    await startController([
      ...cluster.flags,
      "--routes",
      `--routes-namespace=${TABLE.namespace}`,
      "--gateway-api",
    ], {
      env: { HOSTNAME: "ouroboros-7f6d9-r0ut3" },
    }),
  );
  io.controllerLogs.push({ label: "controller (part 7)", logs: controller.logs });
  const wanted = ["app.example.com", "shop.example.com"];
  const published = await controller.explain(() =>
    waitFor("the route table to route app and shop", () => publishedTable(cluster, wanted), {
      timeoutMs: 20_000,
    })
  );
  await waitFor(
    "the routing controller's log line for the table",
    () => controller.logs.some((line) => String(line.target ?? "").includes(TABLE.name)),
  ).catch(() => undefined);
  for (const line of controller.logs) {
    if (line.level !== "WARN" && line.level !== "ERROR" && line.msg !== "hostnames updated") continue;
    const fields = ["target", "added", "removed", "total", "count"].filter((key) => line[key] !== undefined)
      .map((key) => `${key}=${String(line[key])}`);
    say(`   controller log: ${line.level} ${line.msg}${fields.length === 0 ? "" : ` ${fields.join(" ")}`}`);
  }
  for (const route of published.table.routes) {
    const backend = published.table.backends.get(route.backend);
    say(
      `   ${route.host.padEnd(21)} -> ${
        route.backend.padEnd(38)
      } ${backend?.address}:${backend?.httpPort}, ` +
        `PROXY ${backend?.proxyProtocol}`,
    );
  }
  const routedTo = (host: string) => published.table.routes.find((route) => route.host === host)?.backend;
  check(
    "the table sends the Ingress's shop.example.com to ingress-nginx",
    routedTo("shop.example.com") === NGINX,
  );
  check(
    "the table sends the Gateway's app.example.com to Envoy Gateway",
    routedTo("app.example.com") === GATEWAY,
  );
  check(
    "the Gateway's backend gets PROXY v2 from its Service's annotation",
    published.table.backends.get(GATEWAY)?.proxyProtocol === "v2",
  );
  say();

  const folder = stack.use(await tempDir("ouroboros-demo-routes-"));
  const file = `${folder.path}/routes.json`;
  await Deno.writeTextFile(file, published.text);
  say("20. The kubelet mounts that ConfigMap in the proxy's pod (here: a copy in a folder). Start the proxy");
  say("   with --routes-file (deno run -P=proxy --allow-read=<that folder> main.ts proxy");
  say("   --routes-file=…/routes.json --target-host=127.0.0.1 …); its default target is a third stand-in,");
  say("   default-backend. Then one request per hostname through the proxy:");
  const proxy: ProxyProcess = stack.use(
    await startProxy([
      "--target-host=127.0.0.1",
      `--target-http-port=${fallback.port}`,
      `--routes-file=${file}`,
    ], { extraRead: folder.path }),
  );
  io.otherLogs.push({ label: "proxy (part 7)", logs: proxy.logs });
  const loaded = await proxy.waitForLog(
    "the proxy to load the route table",
    (line) => line.msg === "route table loaded",
  );
  say(
    `   proxy log: ${loaded.level} ${loaded.msg} routes=${loaded.routes} backends=${String(loaded.backends)}`,
  );
  const calls: readonly [host: string, owner: string, expected: string][] = [
    ["shop.example.com", "Ingress shop/web", "ingress-nginx"],
    ["app.example.com", "Gateway web/public", "envoy-gateway"],
    ["unknown.example.com", "no route", "default-backend"],
  ];
  for (const [host, owner, expected] of calls) {
    const answer = await call(proxy.http?.port ?? 0, host);
    const { name, version, named } = answeredBy(answer.body);
    const caller = named === answer.me ? "the caller's own address" : `NOT the caller's ${answer.me}`;
    say(`   ${host.padEnd(20)} ${`(${owner})`.padEnd(21)} -> proxy -> ${name}: ${answer.status}`);
    say(`   ${"".padEnd(42)}   its PROXY ${version} header named ${named}, ${caller}`);
    check(`${host} reaches ${expected}`, name === expected && answer.status.includes(" 200 "));
    check(`${expected} saw the caller's own address for ${host}`, named === answer.me);
  }
  const count = (route: string) => metric(proxy, ["ouroboros_proxy_route_connections_total", { route }]);
  const counts = await Promise.all([NGINX, GATEWAY, "default"].map(count));
  say("   proxy metric ouroboros_proxy_route_connections_total, one connection per route:");
  [NGINX, GATEWAY, "default"].forEach((route, index) => say(`     {route="${route}"} ${counts[index]}`));
  check("the proxy counted one connection per route", counts.every((value) => value === 1));
  say();

  say("21. SIGTERM to the routing controller and proxy:");
  controller.kill("SIGTERM");
  proxy.kill("SIGTERM");
  const [controllerStatus, proxyStatus] = await Promise.all([controller.status, proxy.status]);
  say(`   controller exit status ${controllerStatus.code}, proxy exit status ${proxyStatus.code}`);
  check("the routing controller and proxy exit 0", controllerStatus.code === 0 && proxyStatus.code === 0);
}
