import assert from "node:assert/strict";
import {
  etcHostsWiringCheck,
  type EtcHostsWiringContext,
  type EtcHostsWiringSettings,
} from "../../../lib/doctor/checks/etc_hosts_wiring_check.ts";
import type { Finding } from "../../../lib/doctor/doctor_check.ts";
import { about, ingress } from "./wiring_support.ts";
import { KubeClient } from "../../../lib/kube/client.ts";
import { blockMarkers, DEFAULT_MARKERS } from "../../../lib/controller/modes/markers.ts";
import { startCluster } from "../../controller/cluster_fixture.ts";
import { type FakeApiServer, startFakeApiServer } from "../../support/fake_apiserver/mod.ts";
import { runOuroboros } from "../../support/ouroboros_process.ts";

const PROXY_IP = "10.96.0.20";
const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
const END = "# === END ouroboros ===";
const BASE = "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost\n";

/** A hosts file with our block (spelled out by hand) holding `hosts` at `ip`. */
function withBlock(hosts: readonly string[], ip = PROXY_IP): string {
  return BASE + [BEGIN, ...hosts.map((host) => `${ip} ${host}`), END].join("\n") + "\n";
}

interface Node extends AsyncDisposable {
  readonly server: FakeApiServer;
  readonly path: string;
}

/** The fake API server with `seed`, and a temp dir with `hosts` holding `text` (no file: undefined). */
async function node(seed: readonly Record<string, unknown>[], text: string | undefined): Promise<Node> {
  const server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const object of seed) server.create(object);
  const dir = await Deno.makeTempDir({ prefix: "ouroboros-doctor-hosts-" });
  const path = `${dir}/hosts`;
  if (text !== undefined) await Deno.writeTextFile(path, text);
  return {
    server,
    path,
    async [Symbol.asyncDispose]() {
      await server.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

async function run(
  at: Node,
  overrides: Partial<EtcHostsWiringSettings> = {},
  extra: Partial<EtcHostsWiringContext> = {},
): Promise<Finding[]> {
  using api = new KubeClient({ server: at.server.url });
  const settings: EtcHostsWiringSettings = {
    path: at.path,
    proxyIp: PROXY_IP,
    markers: DEFAULT_MARKERS,
    desired: { clusterDomain: "cluster.local", wildcards: "include" },
    gatewayApi: false,
    ...overrides,
  };
  const check = etcHostsWiringCheck({ timeoutMs: 5_000 });
  return [...await check.run({ api, settings, ...extra }, AbortSignal.timeout(20_000))];
}

const SHOP = ingress("shop", ["shop.example.com"]);

Deno.test("etc-hosts: a block holding the wanted hosts at --proxy-ip is ok", async () => {
  await using at = await node([SHOP], withBlock(["shop.example.com"]));
  const findings = await run(at);
  assert.equal(findings.length, 1, JSON.stringify(findings));
  const block = about(findings, /holds the 1 wanted hostnames at 10\.96\.0\.20, markers intact/);
  assert.equal(block.verdict, "ok");
  assert.equal(block.subject, `hosts file ${at.path}`);
  assert.equal(block.check, "dns-wiring");
});

Deno.test("etc-hosts: a file without our block is a problem naming the wanted hosts", async () => {
  await using at = await node([SHOP], BASE);
  const block = about(await run(at), /no ouroboros block/);
  assert.equal(block.verdict, "problem");
  assert.match(block.saw, /1 hostnames are wanted \(shop\.example\.com\)/);
  assert.match(block.todo ?? "", /etc-hosts DaemonSet pod on this node/);
});

Deno.test("etc-hosts: a stale block is a problem listing what is missing and what is left over", async () => {
  await using at = await node(
    [SHOP, ingress("api", ["api.example.com"])],
    withBlock(["old.example.com", "shop.example.com"]),
  );
  const block = about(await run(at), /ouroboros block/);
  assert.equal(block.verdict, "problem");
  assert.match(
    block.saw,
    /lacks 1 wanted \(api\.example\.com\) and holds 1 no longer wanted \(old\.example\.com\)/,
  );

  await using extra = await node([SHOP], withBlock(["old.example.com", "shop.example.com"]));
  assert.equal(about(await run(extra), /no longer wanted/).verdict, "warning");
});

Deno.test("etc-hosts: entries at another address than --proxy-ip are a problem", async () => {
  await using at = await node([SHOP], withBlock(["shop.example.com"], "10.96.0.99"));
  const block = about(await run(at), /point at 10\.96\.0\.99, not at --proxy-ip 10\.96\.0\.20/);
  assert.equal(block.verdict, "problem");
  assert.match(block.todo ?? "", /etcHosts\.proxyIP/);
});

Deno.test("etc-hosts: damaged markers are a problem with the sink's own explanation", async () => {
  const damaged = BASE + `${END}\n${PROXY_IP} shop.example.com\n${BEGIN}\n`;
  await using at = await node([SHOP], damaged);
  const block = about(await run(at), /damaged/);
  assert.equal(block.verdict, "problem");
  assert.match(block.saw, /end-before-begin/);
  assert.match(block.saw, /delete the ouroboros marker lines/);
});

Deno.test("etc-hosts: another release's markers are left alone; ours are judged", async () => {
  const other = blockMarkers("edge");
  const text = withBlock(["shop.example.com"]) + `${other.begin}\n10.0.0.1 edge.example.com\n${other.end}\n`;
  await using at = await node([SHOP], text);
  assert.equal(about(await run(at), /markers intact/).verdict, "ok");
});

Deno.test("etc-hosts: an earlier entry shadowing one of our hosts is a warning", async () => {
  await using at = await node([SHOP], "192.0.2.1 shop.example.com\n" + withBlock(["shop.example.com"]));
  const findings = await run(at);
  assert.equal(about(findings, /markers intact/).verdict, "ok");
  assert.equal(about(findings, /first match/).verdict, "warning");
});

Deno.test("etc-hosts: no hosts file here (a workstation) is could-not-check saying how to run it on a node", async () => {
  await using at = await node([SHOP], undefined);
  const findings = await run(at);
  assert.equal(findings.length, 1, JSON.stringify(findings));
  const missing = about(findings, /does not exist here/);
  assert.equal(missing.verdict, "could-not-check");
  assert.match(
    missing.todo ?? "",
    /kubectl -n <namespace> exec <pod> -- \/ouroboros doctor --mode=etc-hosts/,
  );
  assert.match(
    missing.todo ?? "",
    /kubectl debug node\/<node> -it --image=busybox -- cat \/host\/etc\/hosts/,
  );
});

Deno.test("etc-hosts: a file the reader may not read is could-not-check too", async () => {
  await using at = await node([SHOP], withBlock(["shop.example.com"]));
  const denied = () => Promise.reject(new Deno.errors.PermissionDenied("open: permission denied"));
  const finding = about(await run(at, {}, { readHostsFile: denied }), /may not be read here/);
  assert.equal(finding.verdict, "could-not-check");
});

Deno.test("etc-hosts: wildcards are skipped as the controller skips them, with a warning", async () => {
  await using at = await node(
    [ingress("shop", ["shop.example.com", "*.apps.example.com"])],
    withBlock(["shop.example.com"]),
  );
  const findings = await run(at);
  assert.equal(about(findings, /markers intact/).verdict, "ok", "the wildcard is not wanted in the block");
  const wildcard = about(findings, /wildcard hostnames are not written/);
  assert.equal(wildcard.verdict, "warning");
  assert.match(wildcard.saw, /\*\.apps\.example\.com from Ingress shop\/shop/);

  const skipped = await run(at, { desired: { clusterDomain: "cluster.local" } });
  assert.deepEqual(skipped.map((finding) => finding.verdict), ["ok"], "--wildcards=skip drops them silently");
});

Deno.test("etc-hosts: a 403 listing Ingresses is could-not-check; the file is still read", async () => {
  await using at = await node([SHOP], BASE);
  at.server.faults.inject("list", { type: "status", code: 403, reason: "Forbidden" }, { path: /ingresses/ });
  const findings = await run(at);
  const denied = about(findings, /403/);
  assert.equal(denied.saw, "RBAC does not allow list on ingresses.networking.k8s.io in all namespaces (403)");
  assert.ok(findings.every((finding) => finding.verdict === "could-not-check"));
});

Deno.test("etc-hosts: the block the real controller writes (--once), the doctor finds ok, its wildcard named", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com", "*.apps.example.com"] });
  cluster.ingress("shop/api", { tls: ["api.example.com"] });
  const path = `${cluster.dir}/hosts`;
  await Deno.writeTextFile(path, BASE);
  const controller = await runOuroboros([
    "controller",
    ...cluster.flags,
    "--mode=etc-hosts",
    `--proxy-ip=${PROXY_IP}`,
    `--etc-hosts=${path}`,
    "--once",
  ]);
  assert.equal(controller.code, 3, controller.stderr);
  cluster.server.setToken(undefined);

  const findings = await run({
    server: cluster.server,
    path,
    [Symbol.asyncDispose]: () => Promise.resolve(),
  });
  assert.deepEqual(findings.map((finding) => finding.verdict), ["ok", "warning"], JSON.stringify(findings));
  about(findings, /holds the 2 wanted hostnames at 10\.96\.0\.20, markers intact/);
  about(findings, /1 wildcard hostnames are not written/);
});
