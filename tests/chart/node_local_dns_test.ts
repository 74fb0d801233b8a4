/**
 * The chart's `controller.nodeLocalDns` values: `warn` by default, where the CoreDNS modes' controller
 * may `get` the one node-local-dns ConfigMap by name (its start-up check reads it to give the warning;
 * nothing else) and gets the ConfigMap's coordinates only when they are not the defaults; with
 * `mode=manage` in the CoreDNS modes the controller gets the flag, the coordinates, a Role to read,
 * watch and patch that one ConfigMap, and a pre-delete hook that removes this release's block with
 * `ouroboros controller --cleanup` in the one cleanup Job (its rendered arguments run here for real
 * against the fake API server, on a Corefile the controller's own editor wrote). `manage` in the other modes fails the render, as the binary would
 * refuse to start.
 */

import assert from "node:assert/strict";
import { parseOptions } from "../../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { applyNodeLocalDnsBlock } from "../../lib/controller/modes/coredns/corefile/apply_node_local_dns_block.ts";
import { nodeLocalDnsMarkers } from "../../lib/controller/modes/coredns/corefile/node_local_dns_markers.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import {
  NODE_LOCAL_INSTALLED,
  PROXY,
} from "../controller/modes/coredns/fixtures/node_local_dns_corefiles.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { runOuroboros } from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";
import {
  chartHelms,
  container,
  envOf,
  find,
  type K8sObject,
  rbacMatrix,
  renderFails,
  renderOk,
  rules,
} from "./support.ts";

const { helm4, test } = await chartHelms("chart node-local-dns tests", { helm3: false });
const MANAGE = "controller.nodeLocalDns.mode=manage";

function controller(objects: readonly K8sObject[], name = "ouroboros") {
  return container(find(objects, "Deployment", name), "controller");
}

/** The node-local-dns variables the controller container gets. */
function nodeLocalEnv(objects: readonly K8sObject[]): Record<string, string> {
  return Object.fromEntries(
    Object.entries(envOf(controller(objects))).filter(([key]) => key.startsWith("OUROBOROS_NODE_LOCAL")),
  );
}

/** The rules of the controller's node-local-dns Role, exactly as rendered. */
function nodeLocalRules(objects: readonly K8sObject[], namespace = "kube-system"): unknown {
  const role = find(objects, "Role", "ouroboros:ouroboros-node-local-dns");
  assert.equal(role.metadata.namespace, namespace);
  return role.rules;
}

test("default (warn): no flag, no variables, no hook; a Role to get the one node-local-dns ConfigMap", async () => {
  for (const mode of ["coredns", "coredns-import"]) {
    const objects = await renderOk(helm4(), { set: [`controller.mode=${mode}`] });
    assert.ok(!(controller(objects).args ?? []).some((arg) => arg.startsWith("--node-local-dns")), mode);
    assert.deepEqual(nodeLocalEnv(objects), {}, `${mode}: the binary's defaults name the same ConfigMap`);
    // Exactly get, on that one ConfigMap by name: the start-up check's read, so its warning can be given.
    assert.deepEqual(nodeLocalRules(objects), [
      { apiGroups: [""], resources: ["configmaps"], resourceNames: ["node-local-dns"], verbs: ["get"] },
    ], mode);
    const binding = find(objects, "RoleBinding", "ouroboros:ouroboros-node-local-dns");
    assert.equal(binding.metadata.namespace, "kube-system");
    assert.deepEqual(binding.roleRef, {
      apiGroup: "rbac.authorization.k8s.io",
      kind: "Role",
      name: "ouroboros:ouroboros-node-local-dns",
    });
    assert.deepEqual(binding.subjects, [{
      kind: "ServiceAccount",
      name: "ouroboros",
      namespace: "ouroboros",
    }]);
    const named = objects.filter((object) => object.metadata.name.includes("node-local-dns"));
    assert.deepEqual(named.map((object) => object.kind).sort(), ["Role", "RoleBinding"], mode);
    // A preview keeps the read: it writes nothing either way.
    const dry = await renderOk(helm4(), { set: [`controller.mode=${mode}`, "controller.dryRun=true"] });
    assert.deepEqual(
      rbacMatrix(dry)["Role kube-system/ouroboros:ouroboros-node-local-dns"],
      rules("core/configmaps/node-local-dns: get"),
      mode,
    );
  }
  // The other modes never read node-local-dns: nothing of it is rendered.
  for (
    const set of [["controller.mode=external-dns"], ["etcHosts.enabled=true", "etcHosts.proxyIP=10.0.0.5"]]
  ) {
    const objects = await renderOk(helm4(), { set });
    assert.ok(!objects.some((object) => object.metadata.name.includes("node-local-dns")), set.join(" "));
  }
});

test("warn elsewhere: the coordinates are passed only when not the defaults, and the get follows them", async () => {
  const moved = await renderOk(helm4(), {
    set: ["controller.nodeLocalDns.namespace=dns-cache", "controller.nodeLocalDns.configmap=nodelocaldns"],
  });
  const c = controller(moved);
  assert.ok(
    !(c.args ?? []).some((arg) => arg.startsWith("--node-local-dns")),
    "warn is the binary's default",
  );
  const env = envOf(c);
  const [, ...argv] = c.args ?? [];
  const parsed = parseOptions(CONTROLLER_OPTIONS, { argv, getEnv: (name) => env[name] });
  assert.ok(parsed.kind === "ok", JSON.stringify(parsed));
  assert.equal(parsed.values.nodeLocalDns, "warn");
  assert.equal(parsed.values.nodeLocalDnsNamespace, "dns-cache");
  assert.equal(parsed.values.nodeLocalDnsConfigmap, "nodelocaldns");
  assert.deepEqual(nodeLocalRules(moved, "dns-cache"), [
    { apiGroups: [""], resources: ["configmaps"], resourceNames: ["nodelocaldns"], verbs: ["get"] },
  ]);
  // Either coordinate alone is enough to pass all three; the key alone is not (warn never reads it).
  const all = [
    "OUROBOROS_NODE_LOCAL_DNS_CONFIGMAP",
    "OUROBOROS_NODE_LOCAL_DNS_KEY",
    "OUROBOROS_NODE_LOCAL_DNS_NAMESPACE",
  ];
  for (
    const set of [
      "controller.nodeLocalDns.namespace=dns-cache",
      "controller.nodeLocalDns.configmap=nodelocaldns",
    ]
  ) {
    assert.deepEqual(Object.keys(nodeLocalEnv(await renderOk(helm4(), { set: [set] }))).sort(), all, set);
  }
  const keyOnly = await renderOk(helm4(), { set: ["controller.nodeLocalDns.key=Corefile.base"] });
  assert.deepEqual(nodeLocalEnv(keyOnly), {});
  // Values equal to the defaults pass nothing.
  const same = await renderOk(helm4(), {
    set: [
      "controller.nodeLocalDns.namespace=kube-system",
      "controller.nodeLocalDns.configmap=node-local-dns",
    ],
  });
  assert.deepEqual(nodeLocalEnv(same), {});
});

test("manage in both CoreDNS modes: the flag and coordinates parse as the binary reads them, one Role by name", async () => {
  for (const mode of ["coredns", "coredns-import"]) {
    const objects = await renderOk(helm4(), {
      release: "edge",
      set: [`controller.mode=${mode}`, MANAGE, "controller.nodeLocalDns.configmap=nodelocaldns"],
    });
    const c = controller(objects, "edge-ouroboros");
    const env = envOf(c);
    const [, ...argv] = c.args ?? [];
    const parsed = parseOptions(CONTROLLER_OPTIONS, { argv, getEnv: (name) => env[name] });
    assert.ok(parsed.kind === "ok", JSON.stringify(parsed));
    assert.equal(parsed.values.nodeLocalDns, "manage");
    assert.equal(parsed.values.nodeLocalDnsConfigmap, "nodelocaldns");
    assert.equal(parsed.values.nodeLocalDnsKey, "Corefile");
    assert.equal(parsed.values.markerId, "edge", `${mode}: the release's markers name the block`);
    const matrix = rbacMatrix(objects);
    assert.deepEqual(
      matrix["Role kube-system/ouroboros:edge-ouroboros-node-local-dns"],
      rules("core/configmaps/nodelocaldns: get,list,watch,patch"),
    );
    assert.deepEqual(
      matrix["Role kube-system/ouroboros:edge-ouroboros-node-local-dns-cleanup"],
      rules("core/configmaps/nodelocaldns: get,patch"),
    );
    // The one cleanup Job cleans this block too, its settings parsed as the binary reads them.
    const job = container(find(objects, "Job", "edge-ouroboros-coredns-cleanup"), "cleanup");
    const jobEnv = envOf(job);
    const [, ...jobArgv] = job.args ?? [];
    const cleanup = parseOptions(CONTROLLER_OPTIONS, { argv: jobArgv, getEnv: (name) => jobEnv[name] });
    assert.ok(cleanup.kind === "ok", JSON.stringify(cleanup));
    assert.equal(cleanup.values.cleanup, true);
    assert.equal(cleanup.values.nodeLocalDns, "manage");
    assert.equal(cleanup.values.nodeLocalDnsConfigmap, "nodelocaldns");
    assert.equal(cleanup.values.markerId, "edge");
    assert.equal(cleanup.values.cleanupNodeLocalDnsOnly, false);
  }
});

test("manage with a dry run reads only and has no hook; each cleanupOnUninstall=false leaves its block", async () => {
  const dry = rbacMatrix(await renderOk(helm4(), { set: [MANAGE, "controller.dryRun=true"] }));
  assert.deepEqual(
    dry["Role kube-system/ouroboros:ouroboros-node-local-dns"],
    rules("core/configmaps/node-local-dns: get,list,watch"),
  );
  assert.equal(dry["Role kube-system/ouroboros:ouroboros-node-local-dns-cleanup"], undefined);
  const args = (objects: readonly K8sObject[]) =>
    container(find(objects, "Job", "ouroboros-coredns-cleanup"), "cleanup").args ?? [];
  // The node-local-dns block kept: the Job cleans the Corefile's alone, and may not touch the other.
  const kept = await renderOk(helm4(), { set: [MANAGE, "controller.nodeLocalDns.cleanupOnUninstall=false"] });
  assert.ok(!args(kept).includes("--node-local-dns=manage"));
  assert.equal(rbacMatrix(kept)["Role kube-system/ouroboros:ouroboros-node-local-dns-cleanup"], undefined);
  // The Corefile's block kept: the Job cleans the node-local-dns block alone.
  const nodeLocalOnly = await renderOk(helm4(), {
    set: [MANAGE, "controller.coredns.cleanupOnUninstall=false"],
  });
  assert.ok(args(nodeLocalOnly).includes("--cleanup-node-local-dns-only"));
  assert.equal(rbacMatrix(nodeLocalOnly)["Role kube-system/ouroboros:ouroboros-coredns-cleanup"], undefined);
  // Both kept: no hook at all.
  const none = await renderOk(helm4(), {
    set: [
      MANAGE,
      "controller.coredns.cleanupOnUninstall=false",
      "controller.nodeLocalDns.cleanupOnUninstall=false",
    ],
  });
  assert.ok(!none.some((object) => object.kind === "Job"));
});

test("manage outside the CoreDNS modes fails the render with the reason; a bad mode value fails the schema", async () => {
  const hosts = await renderFails(helm4(), {
    set: ["controller.mode=external-dns", "externalDns.proxyIP=10.0.0.5", MANAGE],
  });
  assert.match(hosts, /nodeLocalDns.mode=manage works in coredns and coredns-import modes only/);
  assert.match(await renderFails(helm4(), { set: ["controller.nodeLocalDns.mode=fix"] }), /nodeLocalDns/);
});

for (
  const [which, more] of [["both blocks", []], ["the node-local-dns block alone", [
    "controller.coredns.cleanupOnUninstall=false",
  ]]] as const
) {
  test(`the cleanup hook removes ${which} byte for byte: this release's, and nothing of another's`, async () => {
    const write = (corefile: string, id: string, host: string): string => {
      const edit = applyNodeLocalDnsBlock(corefile, {
        hosts: [host],
        clusterName: PROXY,
        markers: nodeLocalDnsMarkers(id),
      });
      assert.ok(edit.kind === "changed");
      return edit.corefile;
    };
    const otherRelease = write(NODE_LOCAL_INSTALLED, "blue", "blog.example.com");
    const both = write(otherRelease, "", "shop.example.com");
    const corefile = ".:53 {\n    errors\n    # === BEGIN ouroboros (do not edit by hand) ===\n" +
      "    rewrite name shop.example.com ouroboros-proxy.ouroboros.svc.cluster.local.\n    # === END ouroboros ===\n}\n";
    const objects = await renderOk(helm4(), { set: [MANAGE, ...more] });
    const job = container(find(objects, "Job", "ouroboros-coredns-cleanup"), "cleanup");
    await using server = await startFakeApiServer();
    for (const [name, text] of [["node-local-dns", both], ["coredns", corefile]]) {
      server.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { name, namespace: "kube-system" },
        data: { Corefile: text },
      });
    }
    await using dir = await tempDir("ouroboros-node-local-cleanup-");
    await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url });
    const run = await runOuroboros([
      ...(job.args ?? []),
      `--kubeconfig=${dir.path}/kubeconfig`,
      "--cluster-domain=cluster.local",
    ], {
      env: envOf(job),
    });
    assert.equal(run.code, 0, run.stderr);
    const data = (name: string) =>
      (server.get("v1", "ConfigMap", "kube-system", name)?.data as Record<string, string>).Corefile;
    assert.equal(data("node-local-dns"), otherRelease, "the other release's block and every other byte stay");
    const cleaned = data("coredns") ?? "";
    if (more.length === 0) assert.ok(!cleaned.includes("ouroboros"), "the Corefile's block went too");
    else assert.equal(cleaned, corefile, "coredns.cleanupOnUninstall=false: the Corefile's block stays");
  });
}
