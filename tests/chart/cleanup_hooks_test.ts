/**
 * The controller's uninstall hooks as the chart renders them (issue 31: one cleanup path): each Job
 * runs the ouroboros image with `controller --cleanup` and the controller's own mode and target
 * flags, no shell script. Each rendered Job's arguments are run for real against the fake API
 * server, and every request it made must be granted by the hook's own Roles (none is refused).
 * coredns and coredns-import (pre-delete): with a controller Deployment whose pod stops only when
 * the test removes it, the controller is scaled to 0, then the block or key goes and nothing else
 * changes. external-dns (post-delete): this release's records go, every other stays. The routing
 * hook (post-delete, every mode): once the controller's pods are gone, this release's route table
 * goes and another release's stays. etc-hosts (pre-delete): the first Job deletes the controller
 * DaemonSet and waits until it is gone; the last waits until the node cleanup is ready everywhere,
 * then deletes its DaemonSet.
 */

import assert from "node:assert/strict";
import { type FakeApiServer, startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { writeKubeconfig } from "../support/kubeconfig.ts";
import { runOuroboros } from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";
import { waitFor } from "../support/wait.ts";
import { ownershipLabels } from "../../lib/controller/modes/external_dns/ownership.ts";
import {
  chartHelms,
  container,
  envOf,
  find,
  isHook,
  type K8sObject,
  MODES,
  ofKind,
  podSpec,
  type PolicyRule,
  renderOk,
} from "./support.ts";

const { helm4, test } = await chartHelms("chart coredns cleanup hook tests", { helm3: false });

const OPERATOR = ".:53 {\n    errors\n    forward . /etc/resolv.conf\n}\n";

/** `OPERATOR` with a block between `begin` and `end`. */
function withBlock(begin: string, end: string): string {
  return OPERATOR.replace(
    "}\n",
    `    ${begin}\n    rewrite name shop.example.com ouroboros-proxy.ouroboros.svc.cluster.local.\n    ${end}\n}\n`,
  );
}

/** One API request, as RBAC judges it. */
interface Access {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string | undefined;
}

/** What RBAC sees in an audited request path and method. */
function access(method: string, path: string): Access {
  const match =
    /^\/(?:api\/v1|apis\/([^/]+)\/[^/]+)\/namespaces\/([^/]+)\/([^/]+)(?:\/([^/]+))?(?:\/([^/]+))?$/
      .exec(path);
  assert.ok(match, `an API path: ${path}`);
  const [, group = "", namespace, plural, name, sub] = match;
  const verb = method === "GET" ? (name === undefined ? "list" : "get") : method.toLowerCase();
  return {
    verb,
    group,
    resource: sub === undefined ? plural! : `${plural}/${sub}`,
    namespace: namespace!,
    name,
  };
}

/** Whether the hook ServiceAccount's Roles in `access.namespace` allow it. */
function granted(objects: readonly K8sObject[], account: string, request: Access): boolean {
  const bound = new Set(
    ofKind(objects, "RoleBinding")
      .filter((binding) =>
        isHook(binding) && binding.metadata.namespace === request.namespace &&
        ((binding.subjects ?? []) as { name: string }[]).some((subject) => subject.name === account)
      )
      .map((binding) => (binding.roleRef as { name: string }).name),
  );
  return ofKind(objects, "Role")
    .filter((role) => role.metadata.namespace === request.namespace && bound.has(role.metadata.name))
    .flatMap((role) => (role.rules ?? []) as PolicyRule[])
    .some((rule) =>
      (rule.apiGroups ?? []).includes(request.group) && (rule.resources ?? []).includes(request.resource) &&
      rule.verbs.includes(request.verb) &&
      (rule.resourceNames === undefined ||
        (request.name !== undefined && rule.resourceNames.includes(request.name)))
    );
}

/** Every request the hook made (watches aside) is granted by the hook ServiceAccount's Roles. */
function assertAllGranted(server: FakeApiServer, objects: readonly K8sObject[], account: string): void {
  const refused = server.audit
    .filter((entry) => !entry.watch)
    .map((entry) => access(entry.method, entry.path))
    .filter((request) => !granted(objects, account, request));
  assert.deepEqual(refused, [], "every request the hook made is granted by its Roles");
}

interface Case {
  readonly name: string;
  readonly set: readonly string[];
  readonly release: string;
  /** The ConfigMaps before, by name in kube-system. */
  readonly before: Record<string, Record<string, string>>;
  /** And after the hook. */
  readonly after: Record<string, Record<string, string>>;
}

const CASES: readonly Case[] = [
  {
    name: "coredns, release ouroboros (the original's markers)",
    set: MODES.coredns,
    release: "ouroboros",
    before: {
      coredns: {
        Corefile: withBlock("# === BEGIN ouroboros (do not edit by hand) ===", "# === END ouroboros ==="),
      },
    },
    after: { coredns: { Corefile: OPERATOR } },
  },
  {
    name: "coredns, release edge (its own marker id)",
    set: MODES.coredns,
    release: "edge",
    before: {
      coredns: {
        Corefile: withBlock(
          "# === BEGIN ouroboros edge (do not edit by hand) ===",
          "# === END ouroboros edge ===",
        ),
      },
    },
    after: { coredns: { Corefile: OPERATOR } },
  },
  {
    name: "coredns-import",
    set: MODES["coredns-import"],
    release: "ouroboros",
    before: {
      coredns: { Corefile: OPERATOR },
      "coredns-custom": { "ouroboros.override": "rewrite name a b\n", "other.server": "x\n" },
    },
    after: { coredns: { Corefile: OPERATOR }, "coredns-custom": { "other.server": "x\n" } },
  },
];

for (const testCase of CASES) {
  test(`coredns cleanup hook (${testCase.name}): the rendered Job quiesces the controller, then cleans with no request refused`, async () => {
    const objects = await renderOk(helm4(), { release: testCase.release, set: testCase.set });
    const jobName = `${
      testCase.release === "ouroboros" ? "ouroboros" : `${testCase.release}-ouroboros`
    }-coredns-cleanup`;
    const job = find(objects, "Job", jobName);
    const account = podSpec(job).serviceAccountName!;
    const args = container(job, "cleanup").args ?? [];
    assert.equal(container(job, "cleanup").command, undefined, "the image's own entrypoint, no shell");
    assert.ok(args.includes("--cleanup"));

    await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    for (const [name, data] of Object.entries(testCase.before)) {
      server.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "kube-system", name },
        data,
      });
    }
    const controller = find(
      objects,
      "Deployment",
      testCase.release === "ouroboros" ? "ouroboros" : "edge-ouroboros",
    );
    const labels =
      (controller.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    server.create({ ...controller, metadata: { ...controller.metadata, namespace: "ouroboros" } });
    server.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "ouroboros", name: "controller-pod", labels },
      spec: { containers: [{ name: "controller", image: "x" }] },
    });
    await using dir = await tempDir("ouroboros-cleanup-hook-");
    const kubeconfig = `${dir.path}/kubeconfig`;
    await writeKubeconfig(kubeconfig, { server: server.url });
    const running = runOuroboros([...args, `--kubeconfig=${kubeconfig}`, "--cluster-domain=cluster.local"]);
    const replicas = () =>
      (server.get("apps/v1", "Deployment", "ouroboros", controller.metadata.name)?.spec as {
        replicas?: number;
      })
        .replicas;
    await waitFor("the controller scaled to 0", () => replicas() === 0);
    assert.deepEqual(
      server.audit.filter((entry) => entry.method === "PATCH" && /configmaps/.test(entry.path)),
      [],
      "nothing cleaned while the controller's pod is left",
    );
    server.remove("v1", "Pod", "ouroboros", "controller-pod");
    const run = await running;
    assert.equal(run.code, 0, run.stderr);
    for (const [name, data] of Object.entries(testCase.after)) {
      assert.deepEqual(server.get("v1", "ConfigMap", "kube-system", name)?.data, data, name);
    }
    assertAllGranted(server, objects, account);
  });
}

for (const output of ["crd", "service"] as const) {
  test(`external-dns cleanup hook (output=${output}): the rendered Job deletes this release's records, no request refused`, async () => {
    const objects = await renderOk(helm4(), {
      release: "edge",
      set: [...MODES["external-dns"], `externalDns.output=${output}`, "externalDns.namespace=records"],
    });
    const job = find(objects, "Job", "edge-ouroboros-cleanup");
    const c = container(job, "cleanup");
    assert.equal(c.command, undefined, "the image's own entrypoint, no shell");
    const apiVersion = output === "crd" ? "externaldns.k8s.io/v1alpha1" : "v1";
    const kind = output === "crd" ? "DNSEndpoint" : "Service";
    await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    const record = (name: string, labels: Record<string, string>) =>
      server.create({
        apiVersion,
        kind,
        metadata: { name, namespace: "records", labels },
        spec: output === "crd" ? { endpoints: [] } : { clusterIP: "None" },
      });
    record("ours", ownershipLabels("edge"));
    record("another-release", ownershipLabels("ouroboros"));
    record("foreign", { "app.kubernetes.io/managed-by": "Helm" });
    await using dir = await tempDir("ouroboros-cleanup-hook-");
    const kubeconfig = `${dir.path}/kubeconfig`;
    await writeKubeconfig(kubeconfig, { server: server.url });
    const run = await runOuroboros([
      ...(c.args ?? []),
      `--kubeconfig=${kubeconfig}`,
      "--cluster-domain=cluster.local",
    ], {
      env: envOf(c),
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      server.list(apiVersion, kind, "records").map((item) => (item.metadata as { name: string }).name).sort(),
      ["another-release", "foreign"],
    );
    assertAllGranted(server, objects, podSpec(job).serviceAccountName!);
  });
}

test("kuberture cleanup hook: the rendered Job deletes this instance's objects, no request refused", async () => {
  const objects = await renderOk(helm4(), {
    release: "kuberture",
    namespace: "cozy",
    set: [
      "controller.enabled=false",
      "proxy.enabled=false",
      "kuberture.config.outputs[0].name=api",
      "kuberture.config.outputs[0].hostname[0]=api.example.com",
      "kuberture.config.outputs[0].serviceName=kuberture-api",
    ],
  });
  const job = find(objects, "Job", "kuberture-ouroboros-kuberture-cleanup");
  const c = container(job, "cleanup");
  assert.equal(c.command, undefined, "the image's own entrypoint, no shell");
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  const instance = envOf(c).KUBERTURE_INSTANCE!;
  const ours = { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": instance };
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "kuberture-api", namespace: "cozy", labels: ours },
    spec: {},
  });
  server.create({
    apiVersion: "v1",
    kind: "Service",
    metadata: { name: "foreign", namespace: "cozy" },
    spec: {},
  });
  await using dir = await tempDir("ouroboros-cleanup-hook-");
  await writeKubeconfig(`${dir.path}/kubeconfig`, { server: server.url });
  const [subcommand, ...rest] = c.args ?? [];
  assert.equal(subcommand, "kuberture");
  const run = await runOuroboros(["kuberture", ...rest, `--kubeconfig=${dir.path}/kubeconfig`], {
    permissionSet: "kuberture",
    env: { ...envOf(c), POD_NAMESPACE: "cozy" },
  });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(
    server.list("v1", "Service", "cozy").map((item) => (item.metadata as { name: string }).name),
    [
      "foreign",
    ],
  );
  assertAllGranted(server, objects, podSpec(job).serviceAccountName!);
});

for (const [mode, set] of Object.entries(MODES)) {
  test(`routes cleanup hook (${mode}): the rendered Job waits for the controller's pods, then deletes this release's table, no request refused`, async () => {
    const objects = await renderOk(helm4(), {
      release: "edge",
      namespace: "net",
      set: [...set, "routing.enabled=true"],
    });
    const job = find(objects, "Job", "edge-ouroboros-routes-cleanup");
    const c = container(job, "cleanup");
    assert.equal(c.command, undefined, "the image's own entrypoint, no shell");
    const workload = objects.find((o) =>
      !isHook(o) && (o.kind === "Deployment" || o.kind === "DaemonSet") &&
      o.metadata.name !== "edge-ouroboros-proxy"
    )!;
    const labels =
      (workload.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
    await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
    const table = (name: string, release: string) =>
      server.create({
        apiVersion: "v1",
        kind: "ConfigMap",
        metadata: { namespace: "net", name, labels: ownershipLabels(release) },
        data: { "routes.json": "{}" },
      });
    table("edge-ouroboros-routes", "edge");
    table("shop-ouroboros-routes", "shop");
    // Helm has deleted the controller's workload; one of its pods is still shutting down.
    server.create({
      apiVersion: "v1",
      kind: "Pod",
      metadata: { namespace: "net", name: "controller-pod", labels },
      spec: { containers: [{ name: "controller", image: "x" }] },
    });
    await using dir = await tempDir("ouroboros-cleanup-hook-");
    const kubeconfig = `${dir.path}/kubeconfig`;
    await writeKubeconfig(kubeconfig, { server: server.url });
    const running = runOuroboros([...(c.args ?? []), `--kubeconfig=${kubeconfig}`], { env: envOf(c) });
    const podLists = () =>
      server.audit.filter((entry) => entry.method === "GET" && /namespaces\/net\/pods$/.test(entry.path))
        .length;
    await waitFor("the hook to list the controller's pods twice", () => podLists() >= 2);
    assert.ok(server.get("v1", "ConfigMap", "net", "edge-ouroboros-routes"), "kept while a pod is left");
    server.remove("v1", "Pod", "net", "controller-pod");
    const run = await running;
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(
      server.list("v1", "ConfigMap", "net").map((item) => (item.metadata as { name: string }).name),
      ["shop-ouroboros-routes"],
    );
    assertAllGranted(server, objects, podSpec(job).serviceAccountName!);
  });
}

test("etc-hosts cleanup hooks: the rendered Jobs stop the controller DaemonSet and await the node cleanup, no request refused", async () => {
  const objects = await renderOk(helm4(), { release: "edge", set: MODES["etc-hosts"] });
  const stop = container(find(objects, "Job", "edge-ouroboros-etc-hosts-quiesce"), "quiesce");
  const wait = container(find(objects, "Job", "edge-ouroboros-etc-hosts-cleanup-wait"), "await");
  const account = podSpec(find(objects, "Job", "edge-ouroboros-etc-hosts-quiesce")).serviceAccountName!;
  await using server = await startFakeApiServer({ bookmarkIntervalMs: 0 });
  for (const name of ["edge-ouroboros-etc-hosts", "edge-ouroboros-etc-hosts-cleanup", "unrelated"]) {
    const rendered = objects.find((o) => o.kind === "DaemonSet" && o.metadata.name === name);
    server.create({
      ...(rendered ??
        { apiVersion: "apps/v1", kind: "DaemonSet", spec: { selector: { matchLabels: { a: "b" } } } }),
      metadata: { name, namespace: "ouroboros" },
    });
  }
  const cleanup = server.get("apps/v1", "DaemonSet", "ouroboros", "edge-ouroboros-etc-hosts-cleanup")!;
  server.update({
    ...cleanup,
    status: {
      observedGeneration: (cleanup.metadata as { generation?: number }).generation ?? 1,
      desiredNumberScheduled: 2,
      updatedNumberScheduled: 2,
      numberReady: 2,
    },
  });
  await using dir = await tempDir("ouroboros-cleanup-hook-");
  const kubeconfig = `${dir.path}/kubeconfig`;
  await writeKubeconfig(kubeconfig, { server: server.url });
  for (const c of [stop, wait]) {
    const run = await runOuroboros([...(c.args ?? []), `--kubeconfig=${kubeconfig}`], { env: envOf(c) });
    assert.equal(run.code, 0, `${c.name}: ${run.stderr}`);
  }
  assert.deepEqual(
    server.list("apps/v1", "DaemonSet", "ouroboros").map((item) => (item.metadata as { name: string }).name),
    ["unrelated"],
  );
  assertAllGranted(server, objects, account);
});
