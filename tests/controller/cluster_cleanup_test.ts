/**
 * `ouroboros controller --cleanup` in coredns and coredns-import modes, as processes against the
 * fake API server (what the chart's pre-delete hook runs): the block or key goes and nothing else
 * changes, nothing there is exit 0 without a write, a damaged block is refused with nothing
 * written, and `--cleanup-quiesce` scales the controller to 0 and cleans only once its pods are
 * gone (or warns and cleans anyway at its deadline). The verdict table is tested pure.
 *
 * @module
 */

import assert from "node:assert/strict";
import { cleanupVerdict } from "../../lib/controller/cluster_cleanup.ts";
import { ownershipLabels } from "../../lib/controller/modes/external_dns/ownership.ts";
import { parseLogLines, runOuroboros } from "../support/ouroboros_process.ts";
import { waitFor } from "../support/wait.ts";
import { type Cluster, startCluster } from "./cluster_fixture.ts";

const BEGIN = "# === BEGIN ouroboros (do not edit by hand) ===";
const END = "# === END ouroboros ===";

/** A Corefile with an operator's odd bytes around our block (tabs, CRLF, no final newline). */
const OPERATOR =
  ".:53 {\r\n\terrors\r\n    health {\r\n       lameduck 5s\r\n    }\r\n    forward . /etc/resolv.conf\r\n}";
const WITH_BLOCK = OPERATOR.replace(
  "    forward . /etc/resolv.conf\r\n",
  `    forward . /etc/resolv.conf\r\n    ${BEGIN}\r\n    rewrite name shop.example.com ouroboros-proxy.ouroboros.svc.cluster.local.\r\n    ${END}\r\n`,
);

async function cleanup(cluster: Cluster, extra: readonly string[] = []) {
  const run = await runOuroboros(["controller", ...cluster.flags, "--cleanup", ...extra]);
  return { ...run, logs: parseLogLines(run.stderr) };
}

/** PATCHes of the coredns ConfigMap so far. */
function corefilePatches(cluster: Cluster) {
  return cluster.configMapWrites().filter((entry) =>
    entry.method === "PATCH" && /configmaps\/coredns$/.test(entry.path)
  );
}

Deno.test("cleanupVerdict: removed and nothing-there are exit 0, a refusal or failure exit 1", () => {
  const target = "coredns kube-system/coredns[Corefile]";
  const cases: [Parameters<typeof cleanupVerdict>[0], 0 | 1, string][] = [
    [{ kind: "unchanged", hosts: 0 }, 0, "nothing of ouroboros to remove"],
    [{ kind: "written", hosts: 0, added: 0, removed: 2 }, 0, "removed what this controller wrote"],
    [
      { kind: "refused", problem: "configmap-missing", message: "no ConfigMap", scope: "nothing-written" },
      0,
      "nothing to clean: the target is not there",
    ],
    [
      {
        kind: "refused",
        problem: "node-local-dns-configmap-missing",
        message: "no node-local-dns ConfigMap",
        scope: "some-hosts",
      },
      0,
      "removed what this controller wrote; one of its targets is not there",
    ],
    [
      {
        kind: "refused",
        problem: "markers-damaged",
        message: "an END without BEGIN",
        scope: "nothing-written",
      },
      1,
      "cannot clean up; nothing was changed",
    ],
    [
      { kind: "failed", message: "409 five times" },
      1,
      "cleanup failed; run it again, or remove the block by hand",
    ],
  ];
  for (const [outcome, code, message] of cases) {
    const verdict = cleanupVerdict(outcome, target);
    assert.equal(verdict.code, code, outcome.kind);
    assert.equal(verdict.message, message);
    assert.equal(verdict.properties.target, target);
  }
});

Deno.test("coredns --cleanup removes our block and leaves every other byte; a second run finds nothing", async () => {
  await using cluster = await startCluster({ corefile: WITH_BLOCK });
  const first = await cleanup(cluster, ["--mode=coredns"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(cluster.corefile(), OPERATOR);
  assert.ok(
    first.logs.some((line) => line.msg === "removed what this controller wrote" && line.hostsRemoved === 1),
  );
  const patches = corefilePatches(cluster).length;
  const second = await cleanup(cluster, ["--mode=coredns"]);
  assert.equal(second.code, 0, second.stderr);
  assert.ok(second.logs.some((line) => line.msg === "nothing of ouroboros to remove"));
  assert.equal(corefilePatches(cluster).length, patches, "nothing to clean: no write");
});

Deno.test("coredns --cleanup with --marker-id removes its own keyed block and leaves another release's", async () => {
  const keyed = (id: string, host: string) =>
    `    # === BEGIN ouroboros ${id} (do not edit by hand) ===\n    rewrite name ${host} p.ouroboros.svc.cluster.local.\n` +
    `    # === END ouroboros ${id} ===\n`;
  const before = `.:53 {\n    errors\n${keyed("other", "a.example.com")}${keyed("mine", "b.example.com")}}\n`;
  await using cluster = await startCluster({ corefile: before });
  const run = await cleanup(cluster, ["--mode=coredns", "--marker-id=mine"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(cluster.corefile(), `.:53 {\n    errors\n${keyed("other", "a.example.com")}}\n`);
});

Deno.test("coredns --cleanup refuses a damaged block, exits 1 and writes nothing", async () => {
  const damaged = `.:53 {\n    errors\n    ${BEGIN}\n    rewrite name shop.example.com x.\n}\n`;
  await using cluster = await startCluster({ corefile: damaged });
  const run = await cleanup(cluster, ["--mode=coredns"]);
  assert.equal(run.code, 1, run.stderr);
  assert.equal(cluster.corefile(), damaged);
  assert.equal(corefilePatches(cluster).length, 0);
  const error = run.logs.find((line) => line.level === "ERROR");
  assert.equal(error?.msg, "cannot clean up; nothing was changed");
});

Deno.test("coredns --cleanup with no coredns ConfigMap is nothing to clean", async () => {
  await using cluster = await startCluster();
  cluster.server.remove("v1", "ConfigMap", "kube-system", "coredns");
  const run = await cleanup(cluster, ["--mode=coredns"]);
  assert.equal(run.code, 0, run.stderr);
  assert.ok(run.logs.some((line) => line.msg === "nothing to clean: the target is not there"));
});

Deno.test("coredns-import --cleanup removes our key and keeps the others; a missing key is nothing to clean", async () => {
  await using cluster = await startCluster({ importConfigMap: true });
  const ref = ["v1", "ConfigMap", "kube-system", "coredns-custom"] as const;
  const stored = cluster.server.get(...ref)!;
  cluster.server.update({
    ...stored,
    data: { ...(stored.data as object), "ouroboros.override": "rewrite x y\n" },
  });
  const flags = ["--mode=coredns-import", "--coredns-import-configmap=coredns-custom"];
  const run = await cleanup(cluster, flags);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(Object.keys(cluster.server.get(...ref)!.data as object), ["other.server"]);
  const again = await cleanup(cluster, flags);
  assert.equal(again.code, 0, again.stderr);
});

/** A controller Deployment `ouroboros/ouroboros` with one running pod, as the chart leaves it. */
function controllerDeployment(cluster: Cluster): void {
  const labels = { "app.kubernetes.io/name": "ouroboros", "app.kubernetes.io/component": "controller" };
  cluster.server.create({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "ouroboros", name: "ouroboros", labels },
    spec: {
      replicas: 1,
      selector: { matchLabels: labels },
      template: { metadata: { labels }, spec: { containers: [{ name: "controller", image: "x" }] } },
    },
  });
  cluster.server.create({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { namespace: "ouroboros", name: "ouroboros-abc12", labels },
    spec: { containers: [{ name: "controller", image: "x" }] },
  });
}

const QUIESCE = [
  "--cleanup-quiesce=ouroboros/ouroboros",
  "--cleanup-quiesce-selector=app.kubernetes.io/name=ouroboros,app.kubernetes.io/component=controller",
];

Deno.test("--cleanup-quiesce scales the controller to 0 and cleans only once its pods are gone", async () => {
  await using cluster = await startCluster({ corefile: WITH_BLOCK });
  controllerDeployment(cluster);
  const running = runOuroboros(["controller", ...cluster.flags, "--cleanup", "--mode=coredns", ...QUIESCE]);
  const replicas = () =>
    (cluster.server.get("apps/v1", "Deployment", "ouroboros", "ouroboros")?.spec as { replicas?: number })
      .replicas;
  await waitFor("the controller scaled to 0", () => replicas() === 0);
  // Its pod is still shutting down: the block must stay until it is gone.
  await waitFor(
    "the cleanup to list the pods again",
    () =>
      cluster.server.audit.filter((entry) => entry.method === "GET" && /\/pods$/.test(entry.path)).length >=
        2,
  );
  assert.equal(corefilePatches(cluster).length, 0, "no write while a controller pod is left");
  const podGoneAt = Date.now();
  cluster.server.remove("v1", "Pod", "ouroboros", "ouroboros-abc12");
  const run = await running;
  assert.equal(run.code, 0, run.stderr);
  assert.equal(cluster.corefile(), OPERATOR);
  assert.ok(corefilePatches(cluster).every((entry) => entry.at >= podGoneAt));
  assert.ok(
    parseLogLines(run.stderr).some((line) => line.msg === "controller quiesced: scaled to 0, no pod left"),
  );
});

Deno.test("--cleanup-quiesce warns and cleans anyway when the controller's pods do not go in time", async () => {
  await using cluster = await startCluster({ corefile: WITH_BLOCK });
  controllerDeployment(cluster);
  const run = await cleanup(cluster, ["--mode=coredns", ...QUIESCE, "--cleanup-quiesce-timeout=1s"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(cluster.corefile(), OPERATOR);
  const warning = run.logs.find((line) => line.level === "WARN");
  assert.match(String(warning?.msg), /did not all stop in time; cleaning up anyway/);
  assert.match(String(warning?.left), /1 pod\(s\) left: ouroboros-abc12/);
});

Deno.test("--cleanup-quiesce of a Deployment that is not there waits for its pods alone, then cleans", async () => {
  await using cluster = await startCluster({ corefile: WITH_BLOCK });
  const run = await cleanup(cluster, ["--mode=coredns", ...QUIESCE]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(cluster.corefile(), OPERATOR);
  assert.ok(run.logs.some((line) => line.msg === "no controller pod is left (no Deployment to scale)"));
  assert.ok(
    cluster.server.audit.some((entry) =>
      entry.method === "GET" && /\/namespaces\/ouroboros\/pods$/.test(entry.path)
    ),
    "the pods were listed",
  );
});

Deno.test("--cleanup's flag problems are refused before anything is contacted, each named", async () => {
  await using cluster = await startCluster({ corefile: WITH_BLOCK });
  const cases: [readonly string[], RegExp][] = [
    [
      ["--mode=coredns", "--cleanup-node-local-dns-only"],
      /--cleanup-node-local-dns-only needs --node-local-dns=manage/,
    ],
    [
      ["--mode=coredns", "--cleanup-quiesce=ouroboros/ouroboros"],
      /--cleanup-quiesce needs --cleanup-quiesce-selector/,
    ],
    [
      ["--mode=coredns", "--cleanup-quiesce=ouroboros", "--cleanup-quiesce-selector=a=b"],
      /expected a Deployment as namespace\/name/,
    ],
    [
      ["--mode=coredns", "--cleanup-quiesce-selector=a=b"],
      /--cleanup-quiesce-selector is given without --cleanup-quiesce/,
    ],
    [
      [
        "--mode=etc-hosts",
        "--etc-hosts=/tmp/hosts",
        "--cleanup-quiesce=a/b",
        "--cleanup-quiesce-selector=a=b",
      ],
      /--cleanup-quiesce has no use in etc-hosts mode/,
    ],
    [["--mode=coredns", "--cleanup-routes-only"], /--cleanup-routes-only needs --routes/],
    [
      ["--mode=coredns", "--routes", "--cleanup-routes-only", "--cleanup-node-local-dns-only"],
      /--cleanup-node-local-dns-only and --cleanup-routes-only each pick one thing to clean; give one/,
    ],
    [["--mode=coredns", "--dry-run"], /--dry-run cannot be combined with --cleanup/],
    [
      ["--mode=coredns", "--cleanup-stop-daemonset=a/b"],
      /--cleanup-stop-daemonset works in etc-hosts mode only/,
    ],
    [
      ["--mode=etc-hosts", "--cleanup-await-daemonset=nope"],
      /--cleanup-await-daemonset=nope: expected a DaemonSet as namespace\/name/,
    ],
    [
      ["--mode=etc-hosts", "--cleanup-stop-daemonset=a/b", "--cleanup-await-daemonset=a/c"],
      /--cleanup-stop-daemonset and --cleanup-await-daemonset each pick one thing to clean; give one/,
    ],
  ];
  for (const [flags, message] of cases) {
    const run = await cleanup(cluster, flags);
    assert.equal(run.code, 2, `${flags.join(" ")}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
  assert.equal(cluster.corefile(), WITH_BLOCK);
  assert.equal(cluster.server.audit.length, 0, "nothing was contacted");
});

Deno.test("a --cleanup-* flag without --cleanup is refused, never ignored by a watching controller", async () => {
  await using cluster = await startCluster({ corefile: WITH_BLOCK });
  for (
    const flag of [
      "--cleanup-routes-only",
      "--cleanup-node-local-dns-only",
      "--cleanup-quiesce=a/b",
      "--cleanup-stop-daemonset=a/b",
      "--cleanup-await-daemonset=a/b",
    ]
  ) {
    const run = await runOuroboros(["controller", ...cluster.flags, "--mode=coredns", flag]);
    assert.equal(run.code, 2, `${flag}: ${run.stderr}`);
    assert.match(run.stderr, new RegExp(`${flag.split("=")[0]} is given without --cleanup`));
  }
  assert.equal(cluster.server.audit.length, 0, "nothing was contacted");
});

const RECORD_KINDS = [
  { output: "crd", apiVersion: "externaldns.k8s.io/v1alpha1", kind: "DNSEndpoint" },
  { output: "service", apiVersion: "v1", kind: "Service" },
] as const;

for (const { output, apiVersion, kind } of RECORD_KINDS) {
  Deno.test(`external-dns --cleanup (output=${output}) deletes only this instance's records, past the prune guard`, async () => {
    await using cluster = await startCluster();
    const record = (name: string, namespace: string, labels: Record<string, string>) =>
      cluster.server.create({
        apiVersion,
        kind,
        metadata: { name, namespace, labels },
        spec: output === "crd" ? { endpoints: [] } : { clusterIP: "None" },
      });
    record("ours-a", "records", ownershipLabels("shop"));
    record("ours-b", "records", { ...ownershipLabels("shop"), team: "web" });
    record("other-release", "records", ownershipLabels("edge"));
    record("managed-only", "records", { "app.kubernetes.io/managed-by": "ouroboros" });
    record("foreign", "records", { "app.kubernetes.io/managed-by": "Helm" });
    record("elsewhere", "other-ns", ownershipLabels("shop"));
    const flags = [
      "--mode=external-dns",
      "--external-dns-namespace=records",
      `--external-dns-output=${output}`,
      // The proxy Service is gone by the post-delete hook: the cleanup needs no targets.
      "--external-dns-proxy-service=ouroboros-proxy",
      "--proxy-service-namespace=ouroboros",
    ];
    const run = await runOuroboros(["controller", ...cluster.flags, "--cleanup", ...flags], {
      env: { OUROBOROS_INSTANCE: "shop" },
    });
    assert.equal(run.code, 0, run.stderr);
    const left = (namespace: string) =>
      cluster.server.list(apiVersion, kind, namespace).map((item) => (item.metadata as { name: string }).name)
        .sort();
    assert.deepEqual(left("records"), ["foreign", "managed-only", "other-release"]);
    assert.deepEqual(left("other-ns"), ["elsewhere"]);
    assert.ok(parseLogLines(run.stderr).some((line) => line.msg === "removed what this controller wrote"));
    const again = await runOuroboros(["controller", ...cluster.flags, "--cleanup", ...flags], {
      env: { OUROBOROS_INSTANCE: "shop" },
    });
    assert.equal(again.code, 0, again.stderr);
    assert.ok(parseLogLines(again.stderr).some((line) => line.msg === "nothing of ouroboros to remove"));
  });
}

Deno.test("external-dns --cleanup with no DNSEndpoint kind served is nothing to clean; a refused delete is exit 1", async () => {
  await using bare = await startCluster({ omitGroups: ["externaldns.k8s.io"] });
  const flags = [
    "--mode=external-dns",
    "--external-dns-namespace=records",
    "--external-dns-proxy-ip=10.0.0.5",
  ];
  const env = { env: { OUROBOROS_INSTANCE: "ouroboros" } };
  const none = await runOuroboros(["controller", ...bare.flags, "--cleanup", ...flags], env);
  assert.equal(none.code, 0, none.stderr);
  await using cluster = await startCluster();
  cluster.server.create({
    apiVersion: "externaldns.k8s.io/v1alpha1",
    kind: "DNSEndpoint",
    metadata: { name: "ours", namespace: "records", labels: ownershipLabels("ouroboros") },
    spec: { endpoints: [] },
  });
  cluster.server.faults.inject("delete", { type: "status", code: 403, reason: "Forbidden" }, {
    path: /dnsendpoints/,
  });
  const refused = await runOuroboros(["controller", ...cluster.flags, "--cleanup", ...flags], env);
  assert.equal(refused.code, 1, refused.stderr);
  const error = parseLogLines(refused.stderr).find((line) => line.level === "ERROR");
  assert.match(String(error?.reason), /could not be deleted, such as ours/);
});
