/**
 * `deno task demo`: what ouroboros does, on one machine, in a few seconds, with only Deno.
 *
 * Part 1, the controller: an embedded (in-memory, fake) Kubernetes API server holds kubeadm's
 * CoreDNS ConfigMap and a few Ingresses. First `ouroboros controller --once --dry-run` previews
 * the change (its diff, exit status 3) and writes nothing. Then the controller runs for real as
 * two `--leader-elect` replicas, each a child process with its own permission set and its own API
 * user: one leads and writes, the other stands by, both ready. The demo polls the ConfigMap and
 * prints every version of the controller's block in the Corefile as an Ingress is added and
 * another deleted.
 *
 * Part 2, the proxy: an ingress-controller stand-in that, like ingress-nginx with
 * `use-proxy-protocol: true`, rejects connections without a PROXY header. A direct call (the
 * hairpin path) is rejected; the same call through `ouroboros proxy` succeeds and the stand-in
 * names the caller's own address.
 *
 * Part 3, a replica dies: the leader gets SIGKILL, an Ingress changes at once, and the standby
 * takes the Lease over once it has gone unrenewed for the (scaled-down, 3 s) lease duration and
 * writes the change; the demo prints the measured failover time.
 *
 * Then the surviving replica and the proxy get SIGTERM and their exit statuses are shown.
 *
 * Part 4, kuberture: against the same API server, `ouroboros kuberture` publishes the
 * `default/kubernetes` EndpointSlice's address as the annotations of a headless Service (the one
 * external-dns reads), follows a second address, and exits 0 on SIGTERM.
 *
 * Part 5, dns: `ouroboros dns` with `--client-selector` for cert-manager's pods answers a
 * hairpinned hostname with the proxy's ClusterIP when cert-manager asks, and forwards the same
 * question from another pod, and every other name, to a stand-in cluster DNS.
 *
 * Part 6, the doctor: the cluster is set up as a pod sees a working installation (a controller,
 * a proxy, their pods and Services, a load balancer, a cluster DNS), and `ouroboros doctor` with
 * the controller's flags reports on every check, read-only: the load balancer, the Corefile block
 * against the Ingresses, resolution, the path through the proxy, and our parts' health.
 *
 * Part 7, routing (`routing_stage.ts`): an Ingress served by one ingress stand-in (ingress-nginx)
 * and a Gateway by another (Envoy Gateway), each behind its own LoadBalancer Service; the
 * controller with `--routes` publishes the route table, the proxy with `--routes-file` follows it,
 * and a request for each hostname reaches its own stand-in, an unknown one the default target.
 *
 * The demo exits 1 (and says so) if anything it shows did not happen as described.
 *
 * @module
 */

import { logLineProblems } from "../../lib/util/log_schema.ts";
import { PROXY_FQDN, startCluster } from "../controller/cluster_fixture.ts";
import {
  type LogLine,
  parseLogLines,
  type ProxyProcess,
  runOuroboros,
  startProxy,
} from "../support/ouroboros_process.ts";
import { metric } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";
import { BEGIN_MARKER, type BlockVersion, CorefileFollower, END_MARKER } from "./corefile_follower.ts";
import {
  LEASE,
  leaseHolder,
  podOf,
  type Replica,
  startReplica,
  TIMING,
  writesBy,
} from "./elected_replicas.ts";
import {
  askFrom,
  CERT_MANAGER_IP,
  OTHER_POD_IP,
  PUBLIC_ADDRESS,
  putClientPods,
  type Responder,
  startResponder,
} from "./dns_responder.ts";
import { call, startIngressStandIn } from "./ingress_stand_in.ts";
import { type DoctorStage, stageForDoctor } from "./doctor_stage.ts";
import { runRoutingStage } from "./routing_stage.ts";
import {
  API_HOSTNAME,
  appliedBy,
  DNS_PREFIX,
  KUBERTURE_NAMESPACE,
  KUBERTURE_SERVICE,
  kubertureLogText,
  type KuberturePublisher,
  publishedService,
  publishedTarget,
  startPublisher,
} from "./kuberture_publisher.ts";
import { ingressManifest } from "../support/ingress_manifest.ts";
import { putApiServerSlice } from "../support/api_server_slice.ts";

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
  const keys = [
    "mode",
    "target",
    "added",
    "removed",
    "total",
    "addedHosts",
    "removedHosts",
    "health",
    "leaderElection",
    "identity",
    "leader",
    "signal",
  ];
  for (const line of logs.slice(from)) {
    if (!wanted(line)) continue;
    const fields = keys.filter((key) => line[key] !== undefined).map((key) => `${key}=${String(line[key])}`);
    say(`   ${label}: ${line.level} ${line.msg}${fields.length === 0 ? "" : " " + fields.join(" ")}`);
  }
  return logs.length;
}

/**
 * Prints a replica's log lines since the last call that `wanted` selects, labelled with its name.
 * With `after`, first waits for a new line with that message: a write shows in the API server
 * before its log line has come through the pipe.
 */
async function printReplica(
  replica: Replica,
  wanted: (line: LogLine) => boolean,
  after?: string,
): Promise<void> {
  if (after !== undefined) {
    const logs = replica.process.logs;
    await replica.process.waitForLog(
      `${replica.user} logging '${after}'`,
      (line) => line.msg === after && logs.indexOf(line) >= replica.printed,
    );
  }
  replica.printed = printLogs(replica.process.logs, replica.printed, wanted, `${replica.user} log`);
}

const interesting = (line: LogLine) =>
  line.level === "WARN" || line.level === "ERROR" || line.msg === "hostnames updated";
const electing = (line: LogLine) =>
  line.msg === "controller starting" || line.msg.startsWith("leadership ") ||
  line.msg.startsWith("following the leader");

/** The replica's /readyz and `ouroboros_leader`, printed; both are checked by the caller. */
async function printHealth(replica: Replica): Promise<{ ready: number; leading: number }> {
  const ready = await waitFor(
    `/readyz of ${replica.user} to answer 200`,
    async () => {
      const answer = await replica.process.healthGet("/readyz");
      return answer.status === 200 ? answer : undefined;
    },
    { timeoutMs: 10_000 },
  ).catch(() => replica.process.healthGet("/readyz"));
  const leading = await metric(replica.process, ["ouroboros_leader", {}]);
  say(
    `   ${replica.user} GET /readyz -> ${ready.status} ${ready.body.trim()}; ouroboros_leader ${leading} (${
      leading === 1 ? "it leads: it writes" : "it stands by: caches synced, ready, never writes"
    })`,
  );
  return { ready: ready.status, leading };
}

say("ouroboros demo");
say("==============");
say();
say("Part 1: the controller points in-cluster DNS for your Ingress hostnames at the proxy");
say();

await using cluster = await startCluster({ users: ["a", "b"] });
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

const first = ["blog.example.com", "shop.example.com", "www.shop.example.com"];
const replicas: Replica[] = [];
const controllerLogs: { label: string; logs: readonly LogLine[] }[] = [];
/** Every process's log lines, the controllers' and the others', held to the log schema at the end. */
const otherLogs: { label: string; logs: readonly LogLine[] }[] = [];
let proxy: ProxyProcess | undefined;
let publisher: KuberturePublisher | undefined;
let responder: Responder | undefined;
let doctorStage: DoctorStage | undefined;
const ingressStandIn = startIngressStandIn();
try {
  say("2. See what it would do first: a one-shot preview that writes nothing (deno run -P=controller");
  say("   main.ts controller --mode=coredns --once --dry-run --kubeconfig=…). It lists the Ingresses,");
  say("   reconciles once, prints on stdout the diff it would apply and exits:");
  const preview = await runOuroboros([
    "controller",
    ...cluster.flags,
    "--mode=coredns",
    "--once",
    "--dry-run",
  ]);
  const previewLogs = parseLogLines(preview.stderr);
  controllerLogs.push({ label: "preview", logs: previewLogs });
  for (const line of preview.stdout.replace(/\n$/, "").split("\n")) say(`     > ${line}`);
  printLogs(previewLogs, 0, (line) => interesting(line) || line.msg.startsWith("--once:"));
  say(`   exit status ${preview.code}: it would change the Corefile (0: it already matches; 1: an error).`);
  const afterPreview = follower.current();
  const untouched = afterPreview.resourceVersion === before.resourceVersion &&
    afterPreview.corefile === before.corefile;
  const state = untouched ? "untouched" : "CHANGED";
  const block = afterPreview.block.length === 0 ? "still no block" : "a block";
  say(`   The Corefile is ${state}: resourceVersion ${afterPreview.resourceVersion}, ${block}.`);
  const previewAdds = preview.stdout.split("\n").filter((line) => /^\+(?!\+\+)/.test(line)).map((line) =>
    line.slice(1).trim()
  );
  check("the preview exits with status 3", preview.code === 3);
  check(
    "the preview's diff adds the block naming blog, shop and www.shop",
    JSON.stringify(previewAdds) ===
      JSON.stringify([
        BEGIN_MARKER,
        ...first.map((host) => `rewrite name ${host} ${PROXY_FQDN}`),
        END_MARKER,
      ]),
  );
  check("the preview leaves the Corefile untouched", untouched && cluster.configMapWrites().length === 0);
  say();

  const durations = `lease ${TIMING.lease}s, renew deadline ${TIMING.renew}s, retry period ${TIMING.retry}s`;
  say("3. Start the controller for real, as two replicas a and b, each with its own API user (deno run");
  say("   -P=controller main.ts controller --mode=coredns --leader-elect …). They compete for the Lease");
  say(`   ${LEASE.namespace}/${LEASE.name}; its durations are scaled down from 15s/10s/2s to`);
  say(`   ${durations}, so that the demo is quick:`);
  replicas.push(...await Promise.all(["a", "b"].map((user) => startReplica(cluster, user))));
  for (const replica of replicas) controllerLogs.push({ label: replica.user, logs: replica.process.logs });
  const leaderName = await waitFor(
    "a replica to hold the Lease",
    () => ["a", "b"].find((user) => podOf(leaseHolder(cluster)) === user),
  );
  replicas.sort((x, y) => x.user === leaderName ? -1 : y.user === leaderName ? 1 : 0);
  const [leader, standby] = replicas as [Replica, Replica];
  const following = await standby.process.waitForLog(
    `${standby.user} following the leader`,
    (line) => line.msg.startsWith("following the leader"),
  );
  // The start-up lines only: the leader's cursor stays, so step 4 shows its first write.
  printLogs(leader.process.logs, 0, electing, `${leader.user} log`);
  await printReplica(standby, electing);
  const acquired = leader.process.logs.find((line) => line.msg.startsWith("leadership acquired"));
  say(`   ${leader.user} leads (the Lease's holder is ${leaseHolder(cluster)}); ${standby.user} stands by.`);
  check(
    `${leader.user} holds the Lease and says so`,
    acquired !== undefined && acquired.identity === leaseHolder(cluster),
  );
  check(
    `${standby.user} follows ${leader.user}`,
    following.leader === leaseHolder(cluster) &&
      !standby.process.logs.some((line) => line.msg.startsWith("leadership acquired")),
  );
  say();

  const initial = await follower.until(first);
  say("4. Once it has listed every Ingress, the leader writes one `rewrite name` line per TLS hostname");
  say("   into CoreDNS's root server block, between markers (+); nothing else in the Corefile changes:");
  printVersions(initial, true);
  await printReplica(leader, interesting, "hostnames updated");
  say("   CoreDNS's reload plugin loads it; pods asking for these names now get the proxy's Service.");
  check("the first block names blog, shop and www.shop", initial.at(-1)?.hosts.join() === first.join());
  const leaderHealth = await printHealth(leader);
  const standbyHealth = await printHealth(standby);
  check("both replicas answer /readyz with 200", leaderHealth.ready === 200 && standbyHealth.ready === 200);
  check(
    `ouroboros_leader is 1 on ${leader.user}, 0 on ${standby.user}`,
    leaderHealth.leading === 1 && standbyHealth.leading === 0,
  );
  say();

  server.create(ingress("api", "gateway", ["api.example.com"], "api.example.com"));
  const added = ["api.example.com", ...first];
  say("5. Add Ingress api/gateway with TLS host api.example.com; the block follows:");
  const afterAdd = await follower.until(added);
  printVersions(afterAdd, false);
  await printReplica(leader, interesting, "hostnames updated");
  check(
    "after the add the block names api, blog, shop and www.shop",
    afterAdd.at(-1)?.hosts.join() === added.join(),
  );
  say();

  server.remove("networking.k8s.io/v1", "Ingress", "blog", "site");
  const removed = ["api.example.com", "shop.example.com", "www.shop.example.com"];
  say("6. Delete Ingress blog/site; its hostname leaves the block:");
  const afterDelete = await follower.until(removed);
  printVersions(afterDelete, false);
  await printReplica(leader, interesting, "hostnames updated");
  check(
    "after the delete the block names api, shop and www.shop",
    afterDelete.at(-1)?.hosts.join() === removed.join(),
  );
  const writes = cluster.configMapWrites();
  const byLeader = writes.filter((entry) => entry.user === leader.user).length;
  say(
    `   The API server's audit log: ${writes.length} ConfigMap writes so far, ${byLeader} of them by ${leader.user}, ` +
      `${writes.length - byLeader} by ${standby.user}.`,
  );
  check(
    `every ConfigMap write came from the leader ${leader.user}`,
    writes.length > 0 && byLeader === writes.length,
  );
  say();

  say("Part 2: the proxy adds the PROXY header the ingress controller insists on");
  say();
  say(
    `7. An ingress-controller stand-in listens on 127.0.0.1:${ingressStandIn.port} and, like ingress-nginx`,
  );
  say("   with use-proxy-protocol: true, accepts only connections that start with a PROXY header.");
  const direct = await call(ingressStandIn.port, "shop.example.com");
  say("   A pod calls shop.example.com, a public name of its own cluster. kube-proxy short-circuits the");
  say("   load balancer, so the connection reaches the ingress directly, without the header:");
  say(`   ${direct.me} -> ingress: ${direct.status}: ${direct.body}`);
  check("the direct call is rejected with 400", direct.status.includes(" 400 "));
  say();

  say("8. Start the proxy in front of it (deno run -P=proxy main.ts proxy --target-host=127.0.0.1 …):");
  proxy = await startProxy([
    "--target-host=127.0.0.1",
    `--target-http-port=${ingressStandIn.port}`,
    "--drain-delay=1s",
  ]);
  otherLogs.push({ label: "proxy", logs: proxy.logs });
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

  say("Part 3: the leading replica dies; the standby takes over");
  say();
  const [dead, heir] = [leader.user, standby.user];
  say(
    `9. SIGKILL to the leader, ${dead} (no chance to release the Lease), and at once add Ingress news/feed`,
  );
  say(`   with TLS host news.example.com. ${heir} may take the Lease over only once it has gone unrenewed`);
  say(
    `   for a full lease duration (${TIMING.lease}s here) by ${heir}'s own clock; then it writes what changed`,
  );
  say("   meanwhile:");
  const killedAt = Date.now();
  leader.process.kill("SIGKILL");
  const killed = await leader.process.status;
  server.create(ingress("news", "feed", ["news.example.com"], "news.example.com"));
  say(`   ${dead} exit: killed by ${killed.signal ?? `nothing (status ${killed.code})`}`);
  check(`${dead} was killed by SIGKILL`, killed.signal === "SIGKILL");
  const failedOver = ["api.example.com", "news.example.com", ...removed.slice(1)];
  const afterFailover = await follower.until(failedOver);
  await printReplica(standby, (line) => interesting(line) || electing(line), "hostnames updated");
  printVersions(afterFailover, false);
  check(
    "after the failover the block names api, news, shop and www.shop",
    afterFailover.at(-1)?.hosts.join() === failedOver.join(),
  );
  const leaseWrites = server.audit.filter((entry) =>
    entry.path.includes("/leases") && entry.method !== "GET" && entry.status < 400
  );
  const renewals = leaseWrites.filter((entry) => entry.user === leader.user && entry.at <= killedAt);
  const lastRenewal = renewals.at(-1);
  const takeover = leaseWrites.find((entry) => entry.user === standby.user && entry.at >= killedAt);
  const firstWrite = writesBy(cluster, standby.user, killedAt)[0];
  const seconds = (from: number | undefined, to: number | undefined) =>
    from === undefined || to === undefined ? "?" : ((to - from) / 1000).toFixed(2);
  const unrenewed = seconds(lastRenewal?.at, takeover?.at);
  say(
    `   ${heir} took the Lease ${unrenewed} s after ${dead}'s last renewal (no sooner than the lease allows).`,
  );
  const failover = seconds(killedAt, firstWrite?.at);
  say(`   Failover: the change was in the Corefile ${failover} s after the kill, written by ${heir}.`);
  say("   (With the default 15 s lease it takes longer; deno task bench:failover measures it.)");
  check(`the Lease's holder is now ${heir}`, podOf(leaseHolder(cluster)) === standby.user);
  check(
    `${heir} logged taking over`,
    standby.process.logs.some((line) => line.msg.startsWith("leadership acquired")),
  );
  check(
    `${heir} took the Lease no sooner than the lease duration after the last renewal`,
    lastRenewal !== undefined && takeover !== undefined &&
      takeover.at - lastRenewal.at >= TIMING.lease * 1000,
  );
  check(`${heir} wrote the change after the kill`, firstWrite !== undefined);
  const survivorHealth = await printHealth(standby);
  check(
    `${heir} is ready and leads`,
    survivorHealth.ready === 200 && survivorHealth.leading === 1,
  );
  say();

  say(`10. SIGTERM to ${heir} and the proxy. The proxy fails /readyz at once, keeps accepting for`);
  say("   --drain-delay (1s here) so load balancers can take it out, then exits; the controller stops its");
  say("   watches, never in the middle of a write, and releases the Lease so that a next replica need");
  say("   not wait for it to expire.");
  standby.process.kill("SIGTERM");
  proxy.kill("SIGTERM");
  const [controllerStatus, proxyStatus] = await Promise.all([standby.process.status, proxy.status]);
  const stopping = (line: LogLine) =>
    interesting(line) || line.msg === "controller stopped" || line.msg === "leadership released";
  printLogs(standby.process.logs, standby.printed, stopping, "controller log");
  printLogs(proxy.logs, 0, (line) => line.msg !== "proxy starting", "proxy log");
  say(`   controller exit status ${controllerStatus.code}`);
  say(`   proxy      exit status ${proxyStatus.code}`);
  const released = leaseHolder(cluster) === "";
  say(`   The Lease's holder is ${released ? "empty" : `STILL ${leaseHolder(cluster)}`}.`);
  check("the controller exits 0", controllerStatus.code === 0);
  check("the proxy exits 0", proxyStatus.code === 0);
  check(
    "the controller released the Lease",
    released && standby.process.logs.some((line) => line.msg === "leadership released"),
  );

  say();
  say("Part 4: kuberture publishes the API server's addresses for external-dns");
  say();
  putApiServerSlice(server, ["192.0.2.10"]);
  say("11. ouroboros kuberture is a drop-in for kuberture. The same API server now holds the");
  say("   EndpointSlice default/kubernetes (IPv4) with one API server endpoint, 192.0.2.10. A config file");
  say(`   names one output, api: hostname ${API_HOSTNAME}, headless Service ${KUBERTURE_SERVICE}. Start it`);
  say("   (deno run -P=kuberture main.ts kuberture --kubeconfig=… --config=… --leader-elect=false, with");
  say(`   POD_NAMESPACE=${KUBERTURE_NAMESPACE}); it writes the Service by server-side apply:`);
  publisher = await startPublisher(cluster.kubeconfig);
  const kuberture = publisher.process;
  controllerLogs.push({ label: "kuberture", logs: kuberture.logs });
  await waitFor("kuberture to publish 192.0.2.10", () => publishedTarget(server) === "192.0.2.10");
  const published = await kuberture.waitForLog(
    "kuberture logging 'output published'",
    (line) => line.msg === "output published",
  );
  say(`   kuberture log: ${kubertureLogText(published)}`);
  const service = publishedService(server);
  say(`   Service ${KUBERTURE_NAMESPACE}/${KUBERTURE_SERVICE}, clusterIP ${service?.clusterIP}:`);
  const shown = ["hostname", "target", "ttl"].map((key) => `${DNS_PREFIX}${key}`);
  for (const key of shown) say(`     annotation ${key}: ${service?.annotations[key]}`);
  for (const [key, value] of Object.entries(service?.labels ?? {})) say(`     label ${key}: ${value}`);
  check("kuberture writes a headless Service", service?.clusterIP === "None");
  check(
    "kuberture writes the Service by server-side apply (a PATCH by the field manager kuberture)",
    server.audit.some((entry) =>
      entry.method === "PATCH" && entry.status < 400 && entry.query.fieldManager === "kuberture" &&
      entry.path.endsWith(`/namespaces/${KUBERTURE_NAMESPACE}/services/${KUBERTURE_SERVICE}`)
    ) && appliedBy(server, "kuberture"),
  );
  check(
    `the Service's annotations name ${API_HOSTNAME}, target 192.0.2.10, TTL 60`,
    JSON.stringify(shown.map((key) => service?.annotations[key])) ===
      JSON.stringify([API_HOSTNAME, "192.0.2.10", "60"]),
  );
  check(
    "the Service is labelled as kuberture's own",
    service?.labels["app.kubernetes.io/managed-by"] === "kuberture",
  );
  say();

  putApiServerSlice(server, ["192.0.2.10", "192.0.2.11"]);
  say("12. A second API server joins: the EndpointSlice gets 192.0.2.11; the target follows:");
  await waitFor(
    "kuberture to publish both addresses",
    () => publishedTarget(server) === "192.0.2.10,192.0.2.11",
  );
  const target = publishedTarget(server);
  const republished = await kuberture.waitForLog(
    "kuberture logging 'output published' with both addresses",
    (line) => line.msg === "output published" && line !== published,
  );
  say(`   kuberture log: ${kubertureLogText(republished)}`);
  say(`     annotation ${DNS_PREFIX}target: ${target}`);
  check("after the change the target is 192.0.2.10,192.0.2.11", target === "192.0.2.10,192.0.2.11");
  say();

  say("13. SIGTERM to kuberture: it stops and exits, leaving the Service in place for external-dns:");
  kuberture.kill("SIGTERM");
  const kubertureStatus = await kuberture.status;
  for (const line of kuberture.logs.filter((entry) => entry.msg === "kuberture stopped")) {
    say(`   kuberture log: ${kubertureLogText(line)}`);
  }
  say(`   kuberture exit status ${kubertureStatus.code}`);
  check("kuberture exits 0", kubertureStatus.code === 0);
  check("kuberture logs that it stopped", kuberture.logs.some((line) => line.msg === "kuberture stopped"));
  check("the Service stays after kuberture stops", publishedTarget(server) === "192.0.2.10,192.0.2.11");

  say();
  say("Part 5: DNS for chosen workloads, without touching CoreDNS");
  say();
  cluster.service("ouroboros/ouroboros-proxy", ["10.96.0.7"]);
  putClientPods(server);
  say("14. Where CoreDNS cannot be edited (EKS, GKE Autopilot, AKS), ouroboros dns answers the pods you");
  say(
    `   choose. Two pods: cert-manager (${CERT_MANAGER_IP}, label app.kubernetes.io/name=cert-manager) and`,
  );
  say(
    `   web (${OTHER_POD_IP}). The proxy Service has ClusterIP 10.96.0.7; a stand-in cluster DNS answers every`,
  );
  say(
    `   name with the load balancer's public address ${PUBLIC_ADDRESS}. Start it (deno run -P=dns main.ts dns`,
  );
  say("   --client-selector=app.kubernetes.io/name=cert-manager --upstream=<the stand-in> …):");
  responder = await startResponder(cluster.kubeconfig);
  const dns = responder;
  controllerLogs.push({ label: "dns", logs: dns.process.logs });
  await waitFor("dns to be ready", async () => (await dns.process.get("/readyz")).status === 200, {
    timeoutMs: 20_000,
  });
  printLogs([dns.process.starting], 0, () => true, "dns log");
  const forCertManager = await askFrom(dns, CERT_MANAGER_IP, "shop.example.com");
  const forWeb = await askFrom(dns, OTHER_POD_IP, "shop.example.com");
  const elsewhere = await askFrom(dns, CERT_MANAGER_IP, "acme-v02.api.letsencrypt.org");
  say(`   shop.example.com asked by cert-manager:           A ${forCertManager.join(", ")} (the proxy)`);
  say(`   shop.example.com asked by web (not selected):     A ${forWeb.join(", ")} (forwarded)`);
  say(`   acme-v02.api.letsencrypt.org asked by cert-manager: A ${elsewhere.join(", ")} (forwarded)`);
  check(
    "cert-manager gets the proxy's ClusterIP for a hairpinned hostname",
    forCertManager.join() === "10.96.0.7",
  );
  check("a pod outside --client-selector gets the cluster DNS's answer", forWeb.join() === PUBLIC_ADDRESS);
  check("other names are forwarded for cert-manager too", elsewhere.join() === PUBLIC_ADDRESS);
  say("15. SIGTERM to dns: it stops answering and exits:");
  dns.process.kill("SIGTERM");
  const dnsStatus = await dns.process.status;
  const dnsStopped = await dns.process.waitForLog(
    "dns logging 'dns stopped'",
    (line) => line.msg === "dns stopped",
  );
  printLogs([dnsStopped], 0, () => true, "dns log");
  say(`   dns exit status ${dnsStatus.code}`);
  check("dns exits 0", dnsStatus.code === 0);

  say();
  say("Part 6: the doctor's report on this cluster");
  say();
  say("16. The cluster as a pod sees a working installation: a controller and a proxy running (their pods");
  say("   at 127.0.0.1 with their health ports), the proxy Service's ClusterIP 127.0.0.1 in front of the");
  say("   ingress stand-in, the ingress controller's LoadBalancer Service, and a cluster DNS (no CoreDNS");
  say(
    "   here: ouroboros dns for every pod stands in, answering hairpinned names with the proxy's address).",
  );
  doctorStage = await stageForDoctor(cluster, ingressStandIn.port);
  const stage = doctorStage;
  controllerLogs.push({ label: "controller (part 6)", logs: stage.controller.logs });
  otherLogs.push({ label: "proxy (part 6)", logs: stage.proxy.logs });
  await waitFor(
    "the stage to be ready",
    async () =>
      (await stage.controller.healthGet("/readyz")).status === 200 &&
      (await stage.proxy.healthGet("/readyz")).status === 200 &&
      (await stage.clusterDns.process.get("/readyz")).status === 200,
    { timeoutMs: 20_000 },
  );
  say("17. ouroboros doctor (deno run -P=doctor main.ts doctor --kubeconfig=… with the controller's flags)");
  say("   checks, read-only: whether ouroboros is needed, the DNS wiring, resolution, the path through the");
  say("   proxy, and the health of our parts. The stand-in ingress speaks no TLS, so the proxy Service here");
  say("   has no https port, and the doctor warns about exactly that:");
  const apiWrites = () => server.audit.filter((entry) => entry.method !== "GET").length;
  const writesBefore = apiWrites();
  const doctor = await runOuroboros(["doctor", ...cluster.flags, "--mode=coredns", ...stage.flags], {
    permissionSet: "doctor",
  });
  otherLogs.push({ label: "doctor", logs: parseLogLines(doctor.stderr) });
  for (const line of doctor.stdout.trimEnd().split("\n")) say(`   ${line}`);
  say(`   doctor exit status ${doctor.code}`);
  check(
    "the doctor finds the Corefile block holding every wanted hostname",
    /ok +ConfigMap kube-system\/coredns\[Corefile\]: .*holds the \d+ wanted hostnames/.test(doctor.stdout),
  );
  check(
    "the doctor finds the load balancer short-circuited (ouroboros is needed)",
    /ok +Service ingress-nginx\/ingress-nginx-controller: .*ouroboros is/.test(doctor.stdout),
  );
  check(
    "the doctor resolves the hairpinned names to the proxy",
    /Resolution[^\n]*\n( {2}ok [^\n]*\n)+/.test(doctor.stdout) &&
      !/PROBLEM [^\n]*resolv/i.test(doctor.stdout),
  );
  check(
    "the doctor's calls through the proxy reach the ingress",
    /ok +\d+ hosts [^\n]* through Service ouroboros\/ouroboros-proxy: http [^\n]* answered `HTTP\/1\.1 200 OK`/
      .test(
        doctor.stdout,
      ),
  );
  check(
    "the doctor finds the proxy and the controller ready",
    /ok +proxy Pod ouroboros\/ouroboros-proxy-5b8c7-h9k2m: ready/.test(doctor.stdout) &&
      /ok +controller Pod ouroboros\/ouroboros-7f6d9-x2x4q/.test(doctor.stdout),
  );
  check("the doctor finds no problem (exit 0)", doctor.code === 0);
  check(
    "the doctor wrote nothing (no write reached the API server while it ran)",
    apiWrites() === writesBefore,
  );

  say();
  say("Part 7: one proxy, two ingress controllers: each hostname reaches its own");
  say();
  // Part 6's controller watches no Gateways: it would take the Gateway's hostname back out of the block.
  await doctorStage[Symbol.asyncDispose]();
  doctorStage = undefined;
  await runRoutingStage(cluster, { say, check, controllerLogs, otherLogs });
} catch (error) {
  check(`the demo ran to the end (${error instanceof Error ? error.message : String(error)})`, false);
} finally {
  for (const replica of replicas) replica.process.kill("SIGKILL");
  proxy?.kill("SIGKILL");
  await Promise.all([...replicas.map((replica) => replica.process.status), proxy?.status]);
  await publisher?.[Symbol.asyncDispose]();
  await responder?.[Symbol.asyncDispose]();
  await doctorStage?.[Symbol.asyncDispose]();
  await ingressStandIn.stop();
}
const schemaProblems = [...controllerLogs, ...otherLogs].flatMap(({ label, logs }) =>
  logs.flatMap((line) => logLineProblems(JSON.stringify(line)).map((problem) => `${label}: ${problem}`))
);
for (const problem of schemaProblems.slice(0, 20)) say(`   log schema: ${problem}`);
check(
  "every process's every log line obeys the log schema (docs/operations.md, Logging)",
  schemaProblems.length === 0,
);
check(
  "no controller logged an ERROR",
  controllerLogs.every(({ logs }) => logs.every((line) => line.level !== "ERROR")),
);

say();
const failed = checks.filter((entry) => !entry.ok);
if (failed.length === 0) {
  say("Demo finished: the preview showed the change before anything was written, DNS follows the");
  say("Ingresses through a failover, the hairpinned call reaches the ingress with the caller's address,");
  say("kuberture keeps the API server's addresses published for external-dns, and ouroboros dns");
  say("answers the hairpinned name for the chosen workload only; the doctor finds the wiring, resolution,");
  say("the path through the proxy and our parts sound; and with a route table, one proxy sends an");
  say("Ingress's and a Gateway's hostnames each to its own ingress controller.");
} else {
  say("Demo FAILED:");
  for (const entry of failed) say(`  - not as described: ${entry.what}`);
  for (const { label, logs } of controllerLogs) {
    say(`${label} log:`);
    for (const line of logs) say(`  ${JSON.stringify(line)}`);
  }
  Deno.exitCode = 1;
}
