/**
 * `helm lint --strict` with Helm 4 and Helm 3 on the defaults and on each mode's values, and the
 * packaged chart: it holds the schema, leaves the quickstart manifest and the drop-in charts out,
 * and renders its hooks as the chart folder does.
 */

import assert from "node:assert/strict";
import { type Helm, runHelm } from "../support/helm.ts";
import { requireTool, skipWithout } from "../support/tools.ts";
import { CHART_DIR, chartHelms, container, find, parseObjects, renderOk } from "./support.ts";
import { tempDir } from "../support/temp_dir.ts";

const { helm4, helms, ignore, test } = await chartHelms("chart lint tests");

const VALUE_SETS: Record<string, string[]> = {
  "defaults": [],
  "coredns, cluster domain and Gateway API": [
    "controller.clusterDomain=cozy.local",
    "controller.gatewayApi.enabled=true",
    "controller.gatewayClass=eg",
  ],
  "coredns-import": ["controller.mode=coredns-import"],
  "external-dns, crd": ["controller.mode=external-dns"],
  "external-dns, service": [
    "controller.mode=external-dns",
    "externalDns.output=service",
    "externalDns.annotationPrefix=internal-dns/",
    "externalDns.proxyIP=10.96.0.10",
  ],
  "etc-hosts": ["etcHosts.enabled=true", "etcHosts.proxyIP=10.96.0.10"],
  "leader election, three replicas": [
    "controller.replicaCount=3",
    "controller.leaderElection.enabled=true",
    "controller.leaderElection.namespace=kube-system",
  ],
  "dry run, etc-hosts": ["controller.dryRun=true", "etcHosts.enabled=true", "etcHosts.proxyIP=10.96.0.10"],
  "routing": ["routing.enabled=true", "proxy.proxyProtocol=v2"],
  "routing, etc-hosts": ["routing.enabled=true", "etcHosts.enabled=true", "etcHosts.proxyIP=10.96.0.10"],
  "every option": [
    "podDisruptionBudget.enabled=true",
    "networkPolicy.enabled=true",
    "metrics.serviceMonitor.enabled=true",
    "proxy.target.host=ingress.example.net",
    "imagePullSecrets[0].name=registry",
  ],
  "kuberture, every option": [
    "kuberture.config.outputs[0].name=api",
    "kuberture.config.outputs[0].hostname[0]=api.k8s.example.com",
    "kuberture.config.outputs[0].serviceName=kuberture-api",
    "kuberture.config.outputs[0].addressSource=node-public",
    "kuberture.config.outputs[1].name=internal",
    "kuberture.config.outputs[1].hostname[0]=api.k8s.example.internal",
    "kuberture.config.outputs[1].serviceName=kuberture-internal",
    "kuberture.config.outputs[1].output=crd",
    "kuberture.replicaCount=2",
    "kuberture.networkPolicy.enabled=true",
    "kuberture.serviceMonitor.enabled=true",
  ],
};

async function lint(helm: Helm, set: readonly string[]): Promise<{ code: number; output: string }> {
  const run = await runHelm(helm, [
    "lint",
    "--strict",
    CHART_DIR,
    ...set.flatMap((entry) => ["--set", entry]),
  ]);
  return { code: run.code, output: run.stdout + run.stderr };
}

test("helm lint --strict passes with Helm 4 and Helm 3, for the defaults and every mode", async () => {
  for (const helm of helms()) {
    for (const [what, set] of Object.entries(VALUE_SETS)) {
      const { code, output } = await lint(helm, set);
      assert.equal(code, 0, `${helm.label} ${helm.version}, ${what}:\n${output}`);
      assert.match(output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      assert.doesNotMatch(output, /\[(WARNING|ERROR)\]/, `${helm.label}, ${what}:\n${output}`);
    }
  }
});

test("helm lint --strict fails on a value the chart refuses (so the passes above mean something)", async () => {
  for (const helm of helms()) {
    // Schema violations: lint mode forgives `required` and `fail` (render_test.ts checks those).
    for (const set of [["controller.mode=bogus"], ["externalDns.recordTTL=0"]]) {
      const { code, output } = await lint(helm, set);
      assert.notEqual(code, 0, `${helm.label} accepted ${set.join(" ")}`);
      assert.match(output, /1 chart\(s\) failed/);
    }
  }
});

Deno.test({
  name: "the packaged chart holds the schema, not the quickstart nor the drop-ins, and renders its hooks",
  ignore: ignore || skipWithout("the chart package test", ["tar"]),
  async fn() {
    const helm = helm4();
    await using temp = await tempDir("ouroboros-package-");
    const out = temp.path;
    const run = await runHelm(helm, ["package", CHART_DIR, "--destination", out]);
    assert.equal(run.code, 0, run.stderr);
    const archive = `${out}/ouroboros-0.1.0.tgz`;
    const listing = await new Deno.Command(requireTool("tar"), { args: ["-tzf", archive], stdout: "piped" })
      .output();
    const files = new TextDecoder().decode(listing.stdout).trim().split("\n").sort();
    assert.ok(files.includes("ouroboros/values.schema.json"));
    assert.ok(
      !files.some((file) => file.endsWith("quickstart.yaml")),
      "the quickstart is not part of the chart",
    );
    assert.ok(
      !files.some((file) => file.includes("/drop-in/")),
      "the drop-in charts are charts of their own",
    );
    // Rendered from the package, a hook Job is the one rendered from the folder.
    const mode = ["controller.mode=etc-hosts", "etcHosts.proxyIP=10.0.0.5"];
    const rendered = await runHelm(helm, [
      "template",
      "ouroboros",
      archive,
      "--namespace",
      "ouroboros",
      ...mode.flatMap((v) => ["--set", v]),
    ]);
    assert.equal(rendered.code, 0, rendered.stderr);
    const fromDir = await renderOk(helm, { set: mode });
    const job = find(parseObjects(rendered.stdout), "Job", "ouroboros-etc-hosts-quiesce");
    assert.deepEqual(job, find(fromDir, "Job", "ouroboros-etc-hosts-quiesce"));
    assert.ok(
      container(job, "quiesce").args?.includes("--cleanup-stop-daemonset=ouroboros/ouroboros-etc-hosts"),
    );
  },
});
