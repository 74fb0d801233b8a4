/**
 * The chart's uninstall hook scripts, run for real: each script under dash and under busybox sh (the
 * hook image's shell and tools), the real kubectl 1.35, against the fake API server. What they wrote is
 * read back from the fake and from its audit log.
 *
 * - coredns: the block the controller itself writes is removed and every other byte stays (kubeadm,
 *   tab-indented k3s style, CRLF, no final newline, quoting-prone values); another release's keyed block
 *   is left alone; damaged markers are refused with no write; a 409 is retried from a fresh read, and
 *   the script gives up after ATTEMPTS; the controller is scaled to 0 and its pods (by selector) are waited for first.
 * - coredns-import: our key is merge-patched to null, other keys stay.
 * - external-dns: owned records go, foreign ones stay, for both outputs; no CRD means nothing to do.
 * - etc-hosts: the controller DaemonSet is deleted and waited for; the cleanup DaemonSet is waited for
 *   until every node is clean, then deleted; a timeout fails saying how many nodes are left.
 */

import {
  K3S,
  KUBEADM as KUBEADM_FIXTURE,
  toCrlf,
  toTabs,
  withoutFinalNewline,
} from "../controller/modes/coredns/fixtures/corefiles.ts";
import assert from "node:assert/strict";
import { applyCorefileBlock } from "../../lib/controller/modes/coredns/corefile/apply_corefile_block.ts";
import { blockMarkers, DEFAULT_MARKERS } from "../../lib/controller/modes/markers.ts";
import { ownershipLabels } from "../../lib/controller/modes/external_dns/ownership.ts";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { waitFor } from "../support/wait.ts";
import {
  type HookResult,
  hookSandbox,
  type HookShell,
  ignoreShell,
  mark,
  PREFIX,
  reads,
  SHELLS,
  unprefixedLines,
  writes,
} from "./hook_support.ts";

const FQDN = "ouroboros-proxy.ouroboros.svc.cluster.local.";
const HOSTS = ["app.example.com", "shop.example.org"];
const CM_PATH = /^\/api\/v1\/namespaces\/kube-system\/configmaps\/coredns$/;

/** Every line printed carries the prefix, and the exit code is the expected one. */
function assertExit(result: HookResult, code: number): void {
  assert.equal(result.code, code, `exit ${result.code}, expected ${code}; output:\n${result.output}`);
  assert.deepEqual(unprefixedLines(result), [], `lines without ${PREFIX}:\n${result.output}`);
}

/** `corefile` with the controller's own block for `hosts` (as the controller writes it). */
function withBlock(corefile: string, id = ""): string {
  const edit = applyCorefileBlock(corefile, { hosts: HOSTS, fqdn: FQDN, markers: blockMarkers(id) });
  assert.equal(edit.kind, "changed", `the controller would not write a block: ${JSON.stringify(edit)}`);
  return (edit as { corefile: string }).corefile;
}

function configMap(
  name: string,
  data: Record<string, string>,
  namespace = "kube-system",
): Record<string, unknown> {
  return { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace }, data };
}

function dataOf(server: FakeApiServer, name = "coredns", namespace = "kube-system"): Record<string, string> {
  const object = server.get("v1", "ConfigMap", namespace, name);
  assert.ok(object !== undefined, `configmap ${namespace}/${name} is gone`);
  return (object.data ?? {}) as Record<string, string>;
}

/** The controller pods' selector labels, as the chart renders them for release "ouroboros". */
const CONTROLLER_LABELS = {
  "app.kubernetes.io/name": "ouroboros",
  "app.kubernetes.io/instance": "ouroboros",
  "app.kubernetes.io/component": "controller",
};
const CONTROLLER_SELECTOR = Object.entries(CONTROLLER_LABELS).map(([key, value]) => `${key}=${value}`)
  .join(",");

const COREDNS_ENV = {
  CONTROLLER_NAMESPACE: "ouroboros",
  CONTROLLER_DEPLOYMENT: "ouroboros",
  CONTROLLER_SELECTOR,
  QUIESCE_SECONDS: "5",
  TARGET_NAMESPACE: "kube-system",
  TARGET_CONFIGMAP: "coredns",
  TARGET_KEY: "Corefile",
  MARKER_BEGIN: DEFAULT_MARKERS.begin,
  MARKER_END: DEFAULT_MARKERS.end,
  ATTEMPTS: "5",
};

function controllerDeployment(replicas: number): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: "ouroboros", namespace: "ouroboros" },
    spec: {
      replicas,
      selector: { matchLabels: CONTROLLER_LABELS },
      template: { metadata: { labels: CONTROLLER_LABELS }, spec: { containers: [] } },
    },
    status: { replicas, readyReplicas: replicas },
  };
}

/** A pod in the release namespace with `labels` (the controller's selector labels by default). */
function pod(name: string, labels: Record<string, string> = CONTROLLER_LABELS): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: "ouroboros", labels },
    spec: { containers: [{ name: "controller", image: "ghcr.io/ouroboros-ts/ouroboros:0.1.0" }] },
  };
}

/** The quiesce's pod listing (the selector is in the query). */
const PODS_PATH = /^\/api\/v1\/namespaces\/ouroboros\/pods$/;
const SCALE_PATH = /^\/apis\/apps\/v1\/namespaces\/ouroboros\/deployments\/ouroboros\/scale$/;

/** Playing the kubelet: removes a pod once it has shut down; returns the audit mark after it. */
function podGone(server: FakeApiServer, name: string): number {
  server.remove("v1", "Pod", "ouroboros", name);
  return mark(server);
}

// Corefiles as they are found in clusters (before the controller adds its block).

/** kubeadm's default, with a trailing space (which makes YAML printers quote the whole value). */
const KUBEADM = KUBEADM_FIXTURE.replace("    cache 30\n", "    cache 30 \n");

/** k3s-style, indented with tabs, with an import line and a hosts block. */
const K3S_TABS = toTabs(K3S);

/** A file saved on Windows: every line ends with CRLF. */
const CRLF = toCrlf(KUBEADM);

/** No newline after the last `}`. */
const NO_FINAL_NEWLINE = withoutFinalNewline(KUBEADM);

/** Backslashes, quotes, non-ASCII and a second server block: JSON escaping and bytes must survive. */
const TRICKY = [
  "# edited by hand – café ✓ \t, a bell \u0007 and an escape \u001b",
  ".:53 {",
  "    errors",
  '    rewrite name regex (.*)\\.internal\\.example {1}.svc.cluster.local answer auto # "quoted"',
  "    forward . 1.1.1.1",
  "    reload",
  "}",
  "example.org:53 {",
  "    file /etc/coredns/example.db",
  "}",
].join("\n");

const STRIP_CASES: readonly { readonly name: string; readonly corefile: string }[] = [
  { name: "kubeadm", corefile: KUBEADM },
  { name: "k3s-style with tabs", corefile: K3S_TABS },
  { name: "CRLF line endings", corefile: CRLF },
  { name: "no trailing newline", corefile: NO_FINAL_NEWLINE },
  { name: "escapes, non-ASCII and two server blocks", corefile: TRICKY },
];

/** Marker layouts the coredns cleanup must refuse, each with the problem it must name. */
const begin = DEFAULT_MARKERS.begin;
const end = DEFAULT_MARKERS.end;
const DAMAGED: readonly { name: string; corefile: string; problem: RegExp }[] = [
  {
    name: "BEGIN twice",
    corefile: `.:53 {\n${begin}\n${begin}\nrewrite name a.example b.\n${end}\n}\n`,
    problem: /the BEGIN marker appears more than once \(lines 2 and 3\)/,
  },
  {
    name: "BEGIN without END",
    corefile: `.:53 {\n    errors\n    ${begin}\n    rewrite name a.example b.\n}\n`,
    problem: /the BEGIN marker at line 3 has no END marker after it/,
  },
  {
    name: "END before BEGIN",
    corefile: `.:53 {\n${end}\nrewrite name a.example b.\n${begin}\n}\n`,
    problem: /the END marker at line 2 comes before the BEGIN marker at line 4/,
  },
  {
    name: "END twice",
    corefile: `.:53 {\n${begin}\nrewrite name a.example b.\n${end}\n${end}\n}\n`,
    problem: /the END marker appears more than once \(lines 4 and 5\)/,
  },
  {
    name: "another release's marker inside the block",
    corefile: `.:53 {\n${begin}\n${blockMarkers("edge").begin}\n${end}\n}\n`,
    problem: /line 3, inside this release's block, is another ouroboros marker/,
  },
];

/** external-dns: the two record kinds. */
const OUTPUTS = [
  { output: "crd", apiVersion: "externaldns.k8s.io/v1alpha1", kind: "DNSEndpoint", plural: "dnsendpoints" },
  { output: "service", apiVersion: "v1", kind: "Service", plural: "services" },
] as const;

/** etc-hosts: the controller DaemonSet (quiesce) and the cleanup DaemonSet. */
const DS_PATH = (name: string) => new RegExp(`^/apis/apps/v1/namespaces/ouroboros/daemonsets/${name}$`);
const daemonSet = (name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name, namespace: "ouroboros" },
  spec: {
    selector: {
      matchLabels: { "app.kubernetes.io/instance": "ouroboros", "app.kubernetes.io/component": name },
    },
    template: { spec: { containers: [] } },
  },
  ...extra,
});
const QUIESCE_ENV = { NAMESPACE: "ouroboros", DAEMONSET: "ouroboros-etc-hosts", TIMEOUT_SECONDS: "10" };

/**
 * A DaemonSet whose deletion is still in progress (foreground cascade: pods still terminating). The
 * fake removes objects at once, so the test puts it back right after the script's DELETE, before the
 * script's first poll (held back by a delay fault) can look.
 */
async function lingerAfterDelete(server: FakeApiServer, name: string): Promise<number> {
  server.faults.inject("get", { type: "delay", ms: 1500 }, { path: DS_PATH(name), count: 1 });
  await waitFor("the DaemonSet's DELETE", () => writes(server, DS_PATH(name)).length > 0, {
    timeoutMs: 20_000,
  });
  server.create(
    daemonSet(name, { metadata: { name, namespace: "ouroboros", finalizers: ["foregroundDeletion"] } }),
  );
  return mark(server);
}

const CLEANUP_ENV = {
  NAMESPACE: "ouroboros",
  DAEMONSET: "ouroboros-etc-hosts-cleanup",
  TIMEOUT_SECONDS: "30",
};
const CLEANUP_PATH = DS_PATH("ouroboros-etc-hosts-cleanup");
/** Sets the cleanup DaemonSet's status (and optionally its spec) as the DaemonSet controller would. */
const setDaemonSetStatus = (
  server: FakeApiServer,
  status: Record<string, unknown>,
  spec?: Record<string, unknown>,
): number => {
  const current = server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET)!;
  server.update({ ...current, ...(spec === undefined ? {} : { spec }), status });
  return mark(server);
};

for (const shell of SHELLS) {
  const ignore = ignoreShell(shell);
  const test = (name: string, fn: (shell: HookShell) => Promise<void>) =>
    Deno.test({ name: `${shell.name}: ${name}`, ignore, fn: () => fn(shell) });

  // --- coredns-cleanup.sh ---------------------------------------------------------------------------

  for (const { name, corefile } of STRIP_CASES) {
    test(`coredns cleanup removes the controller's block, byte for byte: ${name}`, async () => {
      await using server = await startFakeApiServer();
      const extra = "other key\r\nstays\t as is";
      server.create(configMap("coredns", { Corefile: withBlock(corefile), "extra.conf": extra }));
      await using sandbox = await hookSandbox(shell, server);
      const result = await sandbox.run("coredns-cleanup.sh", COREDNS_ENV);
      assertExit(result, 0);
      assert.deepEqual(dataOf(server), { Corefile: corefile, "extra.conf": extra });
      assert.deepEqual(writes(server, CM_PATH).map((entry) => [entry.method, entry.status]), [[
        "PATCH",
        200,
      ]]);
      assert.match(result.stdout, /deployment ouroboros\/ouroboros not found: nothing to quiesce/);
      assert.match(result.stdout, /removed this release's block \(lines \d+ to \d+ \(4 lines\)\)/);
    });
  }

  test("coredns cleanup keeps the newline before a block that ends the value without one", async () => {
    await using server = await startFakeApiServer();
    const before = ".:53 {\n    errors\n}\n";
    server.create(configMap("coredns", {
      Corefile:
        `${before}  ${DEFAULT_MARKERS.begin}\r\n  rewrite name a.example b.\n\t${DEFAULT_MARKERS.end} `,
    }));
    await using sandbox = await hookSandbox(shell, server);
    assertExit(await sandbox.run("coredns-cleanup.sh", COREDNS_ENV), 0);
    assert.equal(dataOf(server).Corefile, before);
  });

  test("coredns cleanup leaves another release's keyed block alone, and removes its own keyed one", async () => {
    await using server = await startFakeApiServer();
    const edgeOnly = withBlock(KUBEADM, "edge");
    const both = withBlock(edgeOnly);
    assert.notEqual(both, edgeOnly);
    server.create(configMap("coredns", { Corefile: both }));
    await using sandbox = await hookSandbox(shell, server);
    assertExit(await sandbox.run("coredns-cleanup.sh", COREDNS_ENV), 0);
    assert.equal(dataOf(server).Corefile, edgeOnly, "the default release removed exactly its own block");

    const edge = blockMarkers("edge");
    const result = await sandbox.run("coredns-cleanup.sh", {
      ...COREDNS_ENV,
      MARKER_BEGIN: edge.begin,
      MARKER_END: edge.end,
    });
    assertExit(result, 0);
    assert.equal(dataOf(server).Corefile, KUBEADM, "the edge release removed its block");
  });

  test("coredns cleanup exits 0 without writing when there is nothing to clean", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const missing = await sandbox.run("coredns-cleanup.sh", COREDNS_ENV);
    assertExit(missing, 0);
    assert.match(missing.stdout, /configmap kube-system\/coredns not found: nothing to clean/);

    server.create(configMap("coredns", { other: "x" }));
    const noKey = await sandbox.run("coredns-cleanup.sh", COREDNS_ENV);
    assertExit(noKey, 0);
    assert.match(noKey.stdout, /has no key Corefile: nothing to clean/);

    server.remove("v1", "ConfigMap", "kube-system", "coredns");
    const edgeBlock = withBlock(KUBEADM, "edge");
    server.create(configMap("coredns", { Corefile: edgeBlock }));
    const noBlock = await sandbox.run("coredns-cleanup.sh", COREDNS_ENV);
    assertExit(noBlock, 0);
    assert.match(
      noBlock.stdout,
      /no '# === BEGIN ouroboros \(do not edit by hand\) ===' line .*nothing to clean/,
    );

    server.remove("v1", "ConfigMap", "kube-system", "coredns");
    const stray = `${KUBEADM}${DEFAULT_MARKERS.end}\n`;
    server.create(configMap("coredns", { Corefile: stray }));
    const strayEnd = await sandbox.run("coredns-cleanup.sh", COREDNS_ENV);
    assertExit(strayEnd, 0);
    assert.match(
      strayEnd.stdout,
      /stray END marker without a BEGIN marker is at line 21; it is left in place/,
    );

    assert.deepEqual(writes(server, CM_PATH), [], "nothing was written");
    assert.equal(dataOf(server).Corefile, stray);
  });

  for (const { name, corefile, problem } of DAMAGED) {
    test(`coredns cleanup refuses damaged markers (${name}) and writes nothing`, async () => {
      await using server = await startFakeApiServer();
      server.create(configMap("coredns", { Corefile: corefile }));
      await using sandbox = await hookSandbox(shell, server);
      const result = await sandbox.run("coredns-cleanup.sh", COREDNS_ENV);
      assertExit(result, 1);
      assert.match(result.stderr, problem);
      assert.match(result.stderr, /nothing was changed\. Fix the markers by hand/);
      assert.deepEqual(writes(server, CM_PATH), [], "the audit log shows no write to the ConfigMap");
      assert.equal(dataOf(server).Corefile, corefile);
    });
  }

  test("coredns cleanup re-reads after a 409 and keeps the change that caused it", async () => {
    await using server = await startFakeApiServer();
    server.create(configMap("coredns", { Corefile: withBlock(KUBEADM) }));
    // Hold the first write long enough for another client to change the ConfigMap after our read.
    server.faults.inject("patch", { type: "delay", ms: 1500 }, { path: CM_PATH });
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("coredns-cleanup.sh", COREDNS_ENV);
    await waitFor("the script's read", () => reads(server, CM_PATH).length >= 1, { timeoutMs: 20_000 });
    const current = server.get("v1", "ConfigMap", "kube-system", "coredns")!;
    const edited = `# an operator's edit\n${(current.data as Record<string, string>).Corefile}`;
    server.update({ ...current, data: { Corefile: edited } });

    const result = await running.done;
    assertExit(result, 0);
    assert.equal(dataOf(server).Corefile, `# an operator's edit\n${KUBEADM}`);
    assert.deepEqual(writes(server, CM_PATH).map((entry) => entry.status), [409, 200]);
    assert.match(
      result.stdout,
      /attempt 1\/5: kube-system\/coredns changed since it was read \(409 Conflict\)/,
    );
  });

  test("coredns cleanup gives up after ATTEMPTS conflicts and exits 1", async () => {
    await using server = await startFakeApiServer();
    const corefile = withBlock(KUBEADM);
    server.create(configMap("coredns", { Corefile: corefile }));
    server.faults.inject("patch", {
      type: "status",
      code: 409,
      reason: "Conflict",
      message: 'Operation cannot be fulfilled on configmaps "coredns": the object has been modified',
    }, { path: CM_PATH, count: 3 });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("coredns-cleanup.sh", { ...COREDNS_ENV, ATTEMPTS: "3" });
    assertExit(result, 1);
    assert.match(
      result.stderr,
      /gave up after 3 attempts; this release's block is still in kube-system\/coredns/,
    );
    assert.deepEqual(writes(server, CM_PATH).map((entry) => entry.status), [409, 409, 409]);
    assert.equal(dataOf(server).Corefile, corefile);
  });

  test("coredns cleanup scales the controller to 0 and strips only once its pods are gone", async () => {
    await using server = await startFakeApiServer();
    server.create(controllerDeployment(2));
    // Two controller pods (one that takes longer to shut down), and pods the selector must not catch: the
    // proxy's, and another release's controller.
    server.create(pod("ouroboros-7d9c-a"));
    server.create(pod("ouroboros-7d9c-b"));
    server.create(
      pod("ouroboros-proxy-5f4b-a", { ...CONTROLLER_LABELS, "app.kubernetes.io/component": "proxy" }),
    );
    server.create(
      pod("edge-ouroboros-6c8d-a", { ...CONTROLLER_LABELS, "app.kubernetes.io/instance": "edge" }),
    );
    server.create(configMap("coredns", { Corefile: withBlock(KUBEADM) }));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("coredns-cleanup.sh", { ...COREDNS_ENV, QUIESCE_SECONDS: "30" });

    // The test plays the kubelet: once the scale lands, the pods shut down and disappear one by one. The
    // Deployment's status is never touched: only the pods count.
    await waitFor("the scale to 0", () => writes(server, SCALE_PATH).length > 0, { timeoutMs: 20_000 });
    assert.deepEqual(writes(server, SCALE_PATH).map((entry) => [entry.method, entry.status]), [[
      "PATCH",
      200,
    ]]);
    const spec = server.get("apps/v1", "Deployment", "ouroboros", "ouroboros")!.spec as { replicas: number };
    assert.equal(spec.replicas, 0);
    const polled = (since: number) => reads(server, PODS_PATH, since);
    const scaled = writes(server, SCALE_PATH)[0]!.index;
    await waitFor("a poll that sees both pods", () => polled(scaled).length >= 1, { timeoutMs: 20_000 });
    assert.equal(polled(scaled)[0]!.query.labelSelector, CONTROLLER_SELECTOR, "listed by the selector");
    const oneLeft = podGone(server, "ouroboros-7d9c-a");
    await waitFor("a poll that sees the last pod", () => polled(oneLeft).length >= 1, { timeoutMs: 20_000 });
    assert.equal(running.finished(), false, "still waiting while a controller pod is left");
    assert.deepEqual(writes(server, CM_PATH), [], "no strip while a controller pod is left");
    const gone = podGone(server, "ouroboros-7d9c-b");

    const result = await running.done;
    assertExit(result, 0);
    const strip = writes(server, CM_PATH);
    assert.equal(strip.length, 1);
    assert.ok(strip[0]!.index >= gone, "the strip came after the controller's pods were gone");
    assert.equal(dataOf(server).Corefile, KUBEADM);
    assert.match(
      result.stdout,
      /waiting up to 30s for the controller's pods to stop \(2 pod\(s\) left: ouroboros-7d9c-a ouroboros-7d9c-b\)/,
    );
    assert.match(result.stdout, /controller quiesced: no pods left/);
    assert.equal(server.list("v1", "Pod", "ouroboros").length, 2, "the other pods are not the controller's");
  });

  test("coredns cleanup warns and strips anyway when the controller's pods do not go in time", async () => {
    await using server = await startFakeApiServer();
    server.create(controllerDeployment(1));
    server.create(pod("ouroboros-7d9c-a"));
    server.create(configMap("coredns", { Corefile: withBlock(K3S_TABS) }));
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("coredns-cleanup.sh", { ...COREDNS_ENV, QUIESCE_SECONDS: "2" });
    assertExit(result, 0);
    assert.match(
      result.stderr,
      /WARNING: the controller did not stop within 2s \(1 pod\(s\) left: ouroboros-7d9c-a\); going on anyway/,
    );
    assert.match(
      result.stderr,
      /check with kubectl --namespace ouroboros get pods --selector 'app\.kubernetes\.io\/name=ouroboros,app\.kubernetes\.io\/instance=ouroboros,app\.kubernetes\.io\/component=controller'/,
    );
    const scale = writes(server, SCALE_PATH)[0]!;
    assert.ok(reads(server, PODS_PATH, scale.index).length >= 1, "polled the pods after the scale");
    const strippedAt = writes(server, CM_PATH)[0]!.at;
    assert.ok(strippedAt - scale.at >= 1000, `waited before going on (${strippedAt - scale.at} ms)`);
    assert.equal(dataOf(server).Corefile, K3S_TABS);
  });

  test("the cleanup scripts refuse to run without their settings", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const { TARGET_CONFIGMAP: _, ...withoutConfigMap } = COREDNS_ENV;
    const missing = await sandbox.run("coredns-cleanup.sh", withoutConfigMap);
    assertExit(missing, 1);
    assert.match(missing.stderr, /environment variable TARGET_CONFIGMAP is empty or unset/);
    const { CONTROLLER_SELECTOR: __, ...withoutSelector } = COREDNS_ENV;
    const noSelector = await sandbox.run("coredns-cleanup.sh", withoutSelector);
    assertExit(noSelector, 1);
    assert.match(noSelector.stderr, /environment variable CONTROLLER_SELECTOR is empty or unset/);
    const badKey = await sandbox.run("coredns-cleanup.sh", { ...COREDNS_ENV, TARGET_KEY: 'a"b' });
    assertExit(badKey, 1);
    assert.match(badKey.stderr, /TARGET_KEY 'a"b' is not a valid ConfigMap key/);
    const badOutput = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "ouroboros",
      INSTANCE: "ouroboros",
      OUTPUT: "txt",
    });
    assertExit(badOutput, 1);
    assert.match(badOutput.stderr, /OUTPUT must be crd or service, got 'txt'/);
    const badInstance = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "ouroboros",
      INSTANCE: "a,b",
      OUTPUT: "crd",
    });
    assertExit(badInstance, 1);
    assert.match(badInstance.stderr, /INSTANCE 'a,b' is not a valid label value/);
    assert.deepEqual(writes(server, /./), []);
  });

  // --- external-dns-cleanup.sh ----------------------------------------------------------------------

  for (const { output, apiVersion, kind, plural } of OUTPUTS) {
    test(`external-dns cleanup (output=${output}) deletes only the records this release owns`, async () => {
      await using server = await startFakeApiServer();
      const record = (name: string, namespace: string, labels: Record<string, string>) =>
        server.create({
          apiVersion,
          kind,
          metadata: { name, namespace, labels },
          spec: output === "crd" ? { endpoints: [] } : { clusterIP: "None" },
        });
      record("ours-a", "records", ownershipLabels("ouroboros"));
      record("ours-b", "records", { ...ownershipLabels("ouroboros"), team: "web" });
      record("other-release", "records", ownershipLabels("edge"));
      record("managed-only", "records", { "app.kubernetes.io/managed-by": "ouroboros" });
      record("foreign", "records", { "app.kubernetes.io/managed-by": "Helm" });
      record("elsewhere", "other-ns", ownershipLabels("ouroboros"));
      await using sandbox = await hookSandbox(shell, server);
      const result = await sandbox.run("external-dns-cleanup.sh", {
        RECORDS_NAMESPACE: "records",
        INSTANCE: "ouroboros",
        OUTPUT: output,
      });
      assertExit(result, 0);
      const left = (namespace: string) =>
        server.list(apiVersion, kind, namespace).map((item) => (item.metadata as { name: string }).name)
          .sort();
      assert.deepEqual(left("records"), ["foreign", "managed-only", "other-release"]);
      assert.deepEqual(left("other-ns"), ["elsewhere"]);
      const qualified = output === "crd" ? "dnsendpoint.externaldns.k8s.io" : "service";
      assert.match(result.stdout, new RegExp(`deleting 2 ${plural}`));
      assert.match(result.stdout, new RegExp(`\\] +${qualified.replaceAll(".", "\\.")}/ours-a\\n`));
      assert.match(result.stdout, new RegExp(`\\] +${qualified.replaceAll(".", "\\.")}/ours-b\\n`));
      const deletes = writes(server, new RegExp(`/namespaces/records/${plural}`));
      assert.ok(deletes.every((entry) => entry.method === "DELETE" && entry.status === 200));
      assert.equal(deletes.length, 2);
    });
  }

  test("kuberture cleanup (OWNER=kuberture) deletes only this kuberture instance's Services", async () => {
    await using server = await startFakeApiServer();
    const service = (name: string, labels: Record<string, string>) =>
      server.create({
        apiVersion: "v1",
        kind: "Service",
        metadata: { name, namespace: "kns", labels },
        spec: { clusterIP: "None" },
      });
    service("kuberture-api", {
      "app.kubernetes.io/managed-by": "kuberture",
      "kuberture/instance": "rel-kuberture",
    });
    service("other-instance", { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "edge" });
    service("controller-record", ownershipLabels("rel-kuberture"));
    service("foreign", { "app.kubernetes.io/managed-by": "Helm" });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "kns",
      INSTANCE: "rel-kuberture",
      OUTPUT: "service",
      OWNER: "kuberture",
    });
    assertExit(result, 0);
    const left = server.list("v1", "Service", "kns").map((item) => (item.metadata as { name: string }).name)
      .sort();
    assert.deepEqual(left, ["controller-record", "foreign", "other-instance"]);
    const badOwner = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "kns",
      INSTANCE: "rel-kuberture",
      OUTPUT: "service",
      OWNER: "someone",
    });
    assertExit(badOwner, 1);
    assert.match(badOwner.stderr, /OWNER must be ouroboros or kuberture, got 'someone'/);
  });

  test("external-dns cleanup exits 0 without deleting when the DNSEndpoint CRD is not installed", async () => {
    await using server = await startFakeApiServer({ omitGroups: ["externaldns.k8s.io"] });
    server.create({
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: "svc", namespace: "records", labels: ownershipLabels("ouroboros") },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "records",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    });
    assertExit(result, 0);
    assert.match(result.stdout, /the DNSEndpoint CRD \(dnsendpoints.externaldns.k8s.io\) is not installed/);
    assert.deepEqual(writes(server, /./), []);
    assert.equal(server.list("v1", "Service", "records").length, 1, "a Service is not a DNSEndpoint");
  });

  test("external-dns cleanup exits 1 with the command to run by hand when a delete is refused", async () => {
    await using server = await startFakeApiServer();
    for (const name of ["ours-a", "ours-b"]) {
      server.create({
        apiVersion: "externaldns.k8s.io/v1alpha1",
        kind: "DNSEndpoint",
        metadata: { name, namespace: "records", labels: ownershipLabels("ouroboros") },
        spec: { endpoints: [] },
      });
    }
    server.faults.inject("delete", {
      type: "status",
      code: 403,
      reason: "Forbidden",
      message: 'dnsendpoints.externaldns.k8s.io "ours-a" is forbidden',
    }, { path: /\/dnsendpoints\/ours-a$/ });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "records",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    });
    assertExit(result, 1);
    assert.ok(
      result.stderr.includes(
        "Delete them by hand: kubectl --namespace records delete dnsendpoints.externaldns.k8s.io " +
          "--selector='app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=ouroboros'",
      ),
      result.stderr,
    );
    assert.match(result.stderr, /is forbidden/);
    const left = server.list("externaldns.k8s.io/v1alpha1", "DNSEndpoint", "records");
    assert.deepEqual(left.map((item) => (item.metadata as { name: string }).name), ["ours-a"]);
  });

  test("external-dns cleanup exits 0 when the release owns no records", async () => {
    await using server = await startFakeApiServer();
    server.create({
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: { name: "theirs", namespace: "records", labels: ownershipLabels("edge") },
      spec: { endpoints: [] },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("external-dns-cleanup.sh", {
      RECORDS_NAMESPACE: "records",
      INSTANCE: "ouroboros",
      OUTPUT: "crd",
    });
    assertExit(result, 0);
    assert.match(result.stdout, /no dnsendpoints.externaldns.k8s.io owned by instance ouroboros/);
    assert.deepEqual(writes(server, /./), []);
  });

  // --- etc-hosts-quiesce.sh -------------------------------------------------------------------------

  test("etc-hosts quiesce deletes the controller DaemonSet and exits 0 once it is gone", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet("ouroboros-etc-hosts"));
    server.create(daemonSet("unrelated"));
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-quiesce.sh", QUIESCE_ENV);
    assertExit(result, 0);
    assert.equal(server.get("apps/v1", "DaemonSet", "ouroboros", "ouroboros-etc-hosts"), undefined);
    assert.ok(server.get("apps/v1", "DaemonSet", "ouroboros", "unrelated") !== undefined);
    assert.deepEqual(writes(server, /daemonsets/).map((entry) => [entry.method, entry.path]), [
      ["DELETE", "/apis/apps/v1/namespaces/ouroboros/daemonsets/ouroboros-etc-hosts"],
    ]);
    assert.match(result.stdout, /daemonset ouroboros\/ouroboros-etc-hosts is gone/);

    const again = await sandbox.run("etc-hosts-quiesce.sh", QUIESCE_ENV);
    assertExit(again, 0);
  });

  test("etc-hosts quiesce waits while the DaemonSet's pods are still terminating", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet("ouroboros-etc-hosts"));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("etc-hosts-quiesce.sh", QUIESCE_ENV);
    const since = await lingerAfterDelete(server, "ouroboros-etc-hosts");
    await waitFor(
      "two polls that still see the DaemonSet",
      () => reads(server, DS_PATH("ouroboros-etc-hosts"), since).length >= 2,
      { timeoutMs: 20_000 },
    );
    assert.equal(running.finished(), false, "still waiting while the DaemonSet exists");
    server.remove("apps/v1", "DaemonSet", "ouroboros", "ouroboros-etc-hosts");
    const result = await running.done;
    assertExit(result, 0);
    assert.match(
      result.stdout,
      /waiting up to 10s for daemonset ouroboros\/ouroboros-etc-hosts and its pods to go/,
    );
  });

  test("etc-hosts quiesce exits 1 when the DaemonSet is still there at the deadline", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet("ouroboros-etc-hosts"));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("etc-hosts-quiesce.sh", { ...QUIESCE_ENV, TIMEOUT_SECONDS: "3" });
    await lingerAfterDelete(server, "ouroboros-etc-hosts");
    const result = await running.done;
    assertExit(result, 1);
    assert.match(result.stderr, /daemonset ouroboros\/ouroboros-etc-hosts is still there after 3s/);
    assert.match(
      result.stderr,
      /kubectl --namespace ouroboros get daemonset ouroboros-etc-hosts --output yaml/,
    );
  });

  // --- etc-hosts-cleanup.sh -------------------------------------------------------------------------

  test("etc-hosts cleanup waits until every node has cleaned its file, then deletes the DaemonSet", async () => {
    await using server = await startFakeApiServer();
    server.create(daemonSet(CLEANUP_ENV.DAEMONSET));
    await using sandbox = await hookSandbox(shell, server);
    const running = sandbox.start("etc-hosts-cleanup.sh", CLEANUP_ENV);
    const polls = (since: number) => reads(server, CLEANUP_PATH, since).length;
    await waitFor("a poll before the DaemonSet has any status", () => polls(0) >= 1, { timeoutMs: 20_000 });

    // A spec change the DaemonSet controller has not seen yet: generation 2, status still about 1.
    const base = server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET)!;
    const changedSpec = { ...(base.spec as Record<string, unknown>), minReadySeconds: 0 };
    const stale = setDaemonSetStatus(
      server,
      { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 3 },
      changedSpec,
    );
    const changed = server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET)!;
    assert.equal((changed.metadata as { generation: number }).generation, 2);
    await waitFor("a poll of the stale status", () => polls(stale) >= 2, { timeoutMs: 20_000 });
    const partial = setDaemonSetStatus(server, {
      observedGeneration: 2,
      desiredNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberReady: 1,
    });
    await waitFor("a poll of the partial status", () => polls(partial) >= 2, { timeoutMs: 20_000 });
    assert.equal(running.finished(), false);
    assert.deepEqual(writes(server, CLEANUP_PATH), [], "not deleted before every node is clean");
    const done = setDaemonSetStatus(server, {
      observedGeneration: 2,
      desiredNumberScheduled: 3,
      updatedNumberScheduled: 3,
      numberReady: 3,
      numberAvailable: 3,
    });

    const result = await running.done;
    assertExit(result, 0);
    const deletes = writes(server, CLEANUP_PATH);
    assert.deepEqual(deletes.map((entry) => [entry.method, entry.status]), [["DELETE", 200]]);
    assert.ok(deletes[0]!.index >= done, "deleted only after every node was clean");
    assert.equal(server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET), undefined);
    assert.match(
      result.stdout,
      /not done yet: desired 0, updated 0, cleaned \(ready\) 0, status current: no/,
    );
    assert.match(
      result.stdout,
      /not done yet: desired 3, updated 3, cleaned \(ready\) 3, status current: no/,
    );
    assert.match(
      result.stdout,
      /not done yet: desired 3, updated 3, cleaned \(ready\) 1, status current: yes/,
    );
    assert.match(result.stdout, /all 3 nodes have cleaned their hosts file/);
  });

  test("etc-hosts cleanup is done at once when the DaemonSet runs on no node", async () => {
    await using server = await startFakeApiServer();
    server.create({
      ...daemonSet(CLEANUP_ENV.DAEMONSET),
      status: { observedGeneration: 1, desiredNumberScheduled: 0, updatedNumberScheduled: 0, numberReady: 0 },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-cleanup.sh", CLEANUP_ENV);
    assertExit(result, 0);
    assert.match(result.stdout, /runs on no node: no hosts file to clean/);
    assert.equal(server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET), undefined);
  });

  test("etc-hosts cleanup exits 1 saying how many nodes are not clean, and keeps the DaemonSet", async () => {
    await using server = await startFakeApiServer();
    server.create({
      ...daemonSet(CLEANUP_ENV.DAEMONSET),
      status: { observedGeneration: 1, desiredNumberScheduled: 3, updatedNumberScheduled: 3, numberReady: 1 },
    });
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-cleanup.sh", { ...CLEANUP_ENV, TIMEOUT_SECONDS: "2" });
    assertExit(result, 1);
    assert.match(result.stderr, /2 of 3 nodes have not cleaned their hosts file .* after 2s/);
    assert.match(
      result.stderr,
      /kubectl --namespace ouroboros get pods --selector 'app.kubernetes.io\/component=ouroboros-etc-hosts-cleanup,app.kubernetes.io\/instance=ouroboros' --output wide/,
    );
    assert.deepEqual(writes(server, CLEANUP_PATH), []);
    assert.ok(server.get("apps/v1", "DaemonSet", "ouroboros", CLEANUP_ENV.DAEMONSET) !== undefined);
  });

  test("etc-hosts cleanup exits 1 when the cleanup DaemonSet does not exist", async () => {
    await using server = await startFakeApiServer();
    await using sandbox = await hookSandbox(shell, server);
    const result = await sandbox.run("etc-hosts-cleanup.sh", CLEANUP_ENV);
    assertExit(result, 1);
    assert.match(result.stderr, /daemonset ouroboros\/ouroboros-etc-hosts-cleanup not found/);
  });
}
