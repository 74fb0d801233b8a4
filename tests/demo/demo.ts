/**
 * `deno task demo`: what ouroboros does, on one machine, in a few seconds, with only Deno.
 *
 * Part 1, the controller: an embedded (in-memory, fake) Kubernetes API server holds kubeadm's
 * CoreDNS ConfigMap and a few Ingresses. `ouroboros controller --mode=coredns` runs against it
 * as a child process with its own permission set; the demo polls the ConfigMap and prints every
 * version of the controller's block in the Corefile as an Ingress is added and another deleted.
 *
 * Part 2, the proxy: an ingress-controller stand-in that, like ingress-nginx with
 * `use-proxy-protocol: true`, rejects connections without a PROXY header. A direct call (the
 * hairpin path) is rejected; the same call through `ouroboros proxy` succeeds and the stand-in
 * names the caller's own address.
 *
 * Finally both children get SIGTERM and their exit statuses are shown. The demo exits 1 (and
 * says so) if anything it shows did not happen as described.
 *
 * @module
 */

import { PROXY_FQDN, startCluster } from "../controller/cluster_fixture.ts";
import {
  type ControllerProcess,
  type LogLine,
  type ProxyProcess,
  startController,
  startProxy,
} from "../support/ouroboros_process.ts";
import { BEGIN_MARKER, type BlockVersion, CorefileFollower, END_MARKER } from "./corefile_follower.ts";
import { call, startIngressStandIn } from "./ingress_stand_in.ts";
import { ingressManifest } from "../support/ingress_manifest.ts";

function say(text = ""): void {
  // deno-lint-ignore no-console
  console.log(text);
}

/** What the demo promised and whether it happened; the verdict at the end lists any failure. */
const checks: { readonly what: string; readonly ok: boolean }[] = [];
function check(what: string, ok: boolean): void {
  checks.push({ what, ok });
}

/** An Ingress as `kubectl apply` would send it; only `tls` hosts are hairpinned by default. */
function ingress(
  namespace: string,
  name: string,
  tlsHosts: readonly string[],
  host: string,
): Record<string, unknown> {
  return ingressManifest({
    namespace,
    name,
    ...(tlsHosts.length === 0 ? {} : { tls: { hosts: tlsHosts, secretName: `${name}-tls` } }),
    ruleHosts: [host],
    service: { name, port: 80 },
  });
}

/**
 * Prints each version: the whole Corefile with the block's lines marked `+`, or just the block.
 */
function printVersions(versions: readonly BlockVersion[], whole: boolean): void {
  for (const version of versions) {
    say(`   kube-system/coredns, key Corefile, resourceVersion ${version.resourceVersion}:`);
    if (version.block.length === 0) say("     (no ouroboros block)");
    if (!whole) {
      for (const line of version.block) say(`     + ${line}`);
      continue;
    }
    let inside = false;
    for (const line of version.corefile.replace(/\n$/, "").split("\n")) {
      if (line.trim() === BEGIN_MARKER) inside = true;
      say(`     ${inside ? "+" : "|"} ${line}`);
      if (line.trim() === END_MARKER) inside = false;
    }
  }
}

/** Log lines a newcomer should see, printed as `level msg key=value …`. */
function printLogs(
  logs: readonly LogLine[],
  from: number,
  wanted: (line: LogLine) => boolean,
  label = "log",
): number {
  const keys = ["mode", "target", "added", "removed", "total", "health", "signal", "elapsed"];
  for (const line of logs.slice(from)) {
    if (!wanted(line)) continue;
    const fields = keys.filter((key) => line[key] !== undefined).map((key) => `${key}=${String(line[key])}`);
    say(`   ${label}: ${line.level} ${line.msg}${fields.length === 0 ? "" : " " + fields.join(" ")}`);
  }
  return logs.length;
}

const interesting = (line: LogLine) =>
  line.level === "WARN" || line.level === "ERROR" || line.msg === "hostnames updated";

say("ouroboros demo");
say("==============");
say();
say("Part 1: the controller points in-cluster DNS for your Ingress hostnames at the proxy");
say();

await using cluster = await startCluster();
const server = cluster.server;
server.create(ingress("shop", "web", ["shop.example.com", "www.shop.example.com"], "shop.example.com"));
server.create(ingress("blog", "site", ["blog.example.com"], "blog.example.com"));
server.create(ingress("wiki", "docs", [], "wiki.example.com"));
say("1. An embedded Kubernetes API server (in memory, no cluster needed) holds:");
say("   - ConfigMap kube-system/coredns with kubeadm's default Corefile");
say("   - Ingress shop/web   TLS hosts shop.example.com, www.shop.example.com");
say("   - Ingress blog/site  TLS host  blog.example.com");
say("   - Ingress wiki/docs  plain HTTP wiki.example.com (no TLS, so no PROXY problem: left alone)");

const follower = new CorefileFollower(() => {
  const configMap = server.get("v1", "ConfigMap", "kube-system", "coredns");
  const metadata = (configMap?.metadata ?? {}) as { resourceVersion?: string };
  const data = (configMap?.data ?? {}) as Record<string, string>;
  return { resourceVersion: metadata.resourceVersion ?? "", corefile: data.Corefile ?? "" };
});
const before = follower.current();
say(`   The Corefile (resourceVersion ${before.resourceVersion}) has no ouroboros block yet.`);
say();
check("the Corefile starts without a block", before.block.length === 0);

let controller: ControllerProcess | undefined;
let proxy: ProxyProcess | undefined;
const ingressStandIn = startIngressStandIn();
try {
  say("2. Start the controller (deno run -P=controller main.ts controller --mode=coredns");
  say(`   --proxy-fqdn=${PROXY_FQDN} --kubeconfig=…):`);
  controller = await startController([...cluster.flags, "--mode=coredns"]);
  let logged = printLogs(controller.logs, 0, (line) => line.msg === "controller starting");
  say();

  const first = ["blog.example.com", "shop.example.com", "www.shop.example.com"];
  const initial = await follower.until(first);
  say("3. Once it has listed every Ingress, it writes one `rewrite name` line per TLS hostname into");
  say("   CoreDNS's root server block, between markers (+); nothing else in the Corefile changes:");
  printVersions(initial, true);
  logged = printLogs(controller.logs, logged, interesting);
  say("   CoreDNS's reload plugin loads it; pods asking for these names now get the proxy's Service.");
  check("the first block names blog, shop and www.shop", initial.at(-1)?.hosts.join() === first.join());
  const ready = await controller.healthGet("/readyz");
  say(`   Controller GET /readyz -> ${ready.status} ${ready.body.trim()}`);
  say();

  server.create(ingress("api", "gateway", ["api.example.com"], "api.example.com"));
  const added = ["api.example.com", ...first];
  say("4. Add Ingress api/gateway with TLS host api.example.com; the block follows:");
  const afterAdd = await follower.until(added);
  printVersions(afterAdd, false);
  logged = printLogs(controller.logs, logged, interesting);
  check(
    "after the add the block names api, blog, shop and www.shop",
    afterAdd.at(-1)?.hosts.join() === added.join(),
  );
  say();

  server.remove("networking.k8s.io/v1", "Ingress", "blog", "site");
  const removed = ["api.example.com", "shop.example.com", "www.shop.example.com"];
  say("5. Delete Ingress blog/site; its hostname leaves the block:");
  const afterDelete = await follower.until(removed);
  printVersions(afterDelete, false);
  logged = printLogs(controller.logs, logged, interesting);
  check(
    "after the delete the block names api, shop and www.shop",
    afterDelete.at(-1)?.hosts.join() === removed.join(),
  );
  say();

  say("Part 2: the proxy adds the PROXY header the ingress controller insists on");
  say();
  say(
    `6. An ingress-controller stand-in listens on 127.0.0.1:${ingressStandIn.port} and, like ingress-nginx`,
  );
  say("   with use-proxy-protocol: true, accepts only connections that start with a PROXY header.");
  const direct = await call(ingressStandIn.port, "shop.example.com");
  say("   A pod calls shop.example.com, a public name of its own cluster. kube-proxy short-circuits the");
  say("   load balancer, so the connection reaches the ingress directly, without the header:");
  say(`   ${direct.me} -> ingress: ${direct.status}: ${direct.body}`);
  check("the direct call is rejected with 400", direct.status.includes(" 400 "));
  say();

  say("7. Start the proxy in front of it (deno run -P=proxy main.ts proxy --target-host=127.0.0.1 …):");
  proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${ingressStandIn.port}`,
    "--drain-delay=1s",
  ]);
  say(
    `   listening: http ${proxy.starting.http}, https ${proxy.starting.https}, health ${proxy.starting.health}`,
  );
  const through = await call(proxy.http?.port ?? 0, "shop.example.com");
  say("   The same call, now that DNS sends shop.example.com to the proxy's Service:");
  say(`   ${through.me} -> proxy -> ingress: ${through.status}: ${through.body}`);
  const named = through.body.includes(`hello ${through.me}:`);
  say(`   The address the ingress saw ${named ? "is" : "is NOT"} the caller's own address (${through.me}).`);
  check("the proxied call succeeds", through.status.includes(" 200 "));
  check("the ingress saw the caller's own address", named);
  const proxyReady = await proxy.healthGet("/readyz");
  say(`   Proxy GET /readyz -> ${proxyReady.status} ${proxyReady.body.trim()}`);
  say();

  say("8. SIGTERM to both. The proxy fails /readyz at once, keeps accepting for --drain-delay (1s here)");
  say("   so load balancers can take it out, then exits; the controller stops its watches, never in the");
  say("   middle of a write.");
  controller.kill("SIGTERM");
  proxy.kill("SIGTERM");
  const [controllerStatus, proxyStatus] = await Promise.all([controller.status, proxy.status]);
  const stopping = (line: LogLine) => interesting(line) || line.msg === "controller stopped";
  printLogs(controller.logs, logged, stopping, "controller log");
  printLogs(proxy.logs, 0, (line) => line.msg !== "proxy starting", "proxy log");
  say(`   controller exit status ${controllerStatus.code}`);
  say(`   proxy      exit status ${proxyStatus.code}`);
  check("the controller exits 0", controllerStatus.code === 0);
  check("the proxy exits 0", proxyStatus.code === 0);
  const problems = controller.logs.filter((line) => line.level === "ERROR");
  check("the controller logged no ERROR", problems.length === 0);
} catch (error) {
  check(`the demo ran to the end (${error instanceof Error ? error.message : String(error)})`, false);
} finally {
  controller?.kill("SIGKILL");
  proxy?.kill("SIGKILL");
  await Promise.all([controller?.status, proxy?.status]);
  await ingressStandIn.stop();
}

say();
const failed = checks.filter((entry) => !entry.ok);
if (failed.length === 0) {
  say("Demo finished: DNS follows the Ingresses, and the hairpinned call reaches the ingress with the");
  say("caller's address.");
} else {
  say("Demo FAILED:");
  for (const entry of failed) say(`  - not as described: ${entry.what}`);
  if (controller !== undefined) {
    say("controller log:");
    for (const line of controller.logs) say(`  ${JSON.stringify(line)}`);
  }
  Deno.exitCode = 1;
}
