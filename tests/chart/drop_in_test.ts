/**
 * The drop-in charts (issue 31). kuberture (chart/drop-in/kuberture): with the cozystack kuberture
 * package's own values (the seed's two examples) it renders kuberture and nothing else, as Helm 4
 * and Helm 3 render it, both installed directly (kuberture's value paths at the top level) and as
 * the cozystack package uses kuberture's chart, as a dependency named `kuberture` of a wrapper
 * chart whose values nest them under `kuberture:`. Its objects are the ouroboros chart's own
 * kuberture objects (one copy of the templates), named as kuberture's chart names them; its
 * generated values and schema are in step with the ouroboros chart's `kuberture:` ones. par
 * (chart/drop-in/par): par's chart values (its README's table) install `ouroboros dns` alone with
 * par's behaviour, each value landing where it should, the objects the ouroboros chart renders for
 * the same dns settings.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { runHelm } from "../support/helm.ts";
import { tempDir } from "../support/temp_dir.ts";
import { DROP_IN_DIR, dropInFiles } from "./drop_in.ts";
import {
  CHART_DIR,
  chartHelms,
  container,
  type K8sObject,
  ofKind,
  parseObjects,
  renderOk,
} from "./support.ts";
import {
  KUBERTURE_ONLY,
  kubertureArgs,
  kubertureObjects,
  renderedConfig,
  SEED_MULTIPLE,
  SEED_SINGLE,
  valuesOf,
} from "./kuberture_support.ts";
import type { Helm } from "../support/helm.ts";

const { helms, test } = await chartHelms("kuberture drop-in chart tests");

/** What kuberture renders for an output list that needs no Nodes: no more, no fewer kinds. */
const KINDS = ["ConfigMap", "Deployment", "Job", "Role", "RoleBinding", "Service", "ServiceAccount"];

/** The sorted, distinct kinds of `objects`. */
function kinds(objects: readonly K8sObject[]): string[] {
  return [...new Set(objects.map((object) => object.kind))].sort();
}

/**
 * A copy of chart/ (a drop-in's dependency is the chart two folders up) with the drop-ins'
 * dependencies built, and a cozystack-style wrapper chart beside it; removed when disposed.
 */
async function charts(helm: Helm) {
  const dir = await tempDir("ouroboros-drop-in-");
  const copy = await new Deno.Command("cp", { args: ["-r", CHART_DIR, `${dir.path}/chart`] }).output();
  assert.equal(copy.code, 0, "copy chart/");
  await Deno.remove(`${dir.path}/chart/drop-in/kuberture/charts`, { recursive: true }).catch(() => {});
  await Deno.remove(`${dir.path}/chart/drop-in/par/charts`, { recursive: true }).catch(() => {});
  const dropIn = `${dir.path}/chart/drop-in/kuberture`;
  const par = `${dir.path}/chart/drop-in/par`;
  for (const chart of [dropIn, par]) {
    const built = await runHelm(helm, ["dependency", "build", chart]);
    assert.equal(built.code, 0, `helm dependency build ${chart}: ${built.stderr}`);
  }
  // The cozystack package's shape: kuberture's chart as a dependency named kuberture, the package's
  // own values (its ServiceMonitor on) under `kuberture:`.
  const wrapper = `${dir.path}/cozy-kuberture`;
  await Deno.mkdir(`${wrapper}/templates`, { recursive: true });
  await Deno.writeTextFile(
    `${wrapper}/Chart.yaml`,
    [
      "apiVersion: v2",
      "name: cozy-kuberture",
      "version: 0.0.0",
      "dependencies:",
      "  - name: kuberture",
      "    version: 0.1.0",
      "    repository: file://../chart/drop-in/kuberture",
      "",
    ].join("\n"),
  );
  await Deno.writeTextFile(`${wrapper}/values.yaml`, "kuberture:\n  serviceMonitor:\n    enabled: true\n");
  const wrapped = await runHelm(helm, ["dependency", "build", wrapper]);
  assert.equal(wrapped.code, 0, `helm dependency build (wrapper): ${wrapped.stderr}`);
  return { dropIn, par, wrapper, [Symbol.asyncDispose]: () => dir[Symbol.asyncDispose]() };
}

/** `helm template <release> <chart>` in namespace cozy-kuberture with `values`; the objects. */
async function template(
  helm: Helm,
  chart: string,
  values: unknown,
  release = "kuberture",
): Promise<K8sObject[]> {
  await using dir = await tempDir("ouroboros-drop-in-values-");
  await Deno.writeTextFile(`${dir.path}/values.yaml`, JSON.stringify(values));
  const run = await runHelm(helm, [
    "template",
    release,
    chart,
    "--namespace",
    "cozy-kuberture",
    "--values",
    `${dir.path}/values.yaml`,
  ]);
  assert.equal(run.code, 0, `helm template ${chart}: ${run.stderr}`);
  return parseObjects(run.stdout);
}

/** `helm template` that must fail; its error output. */
async function templateFails(helm: Helm, chart: string, values: unknown): Promise<string> {
  // (A release named "kuberture" works for either drop-in.)
  await using dir = await tempDir("ouroboros-drop-in-values-");
  await Deno.writeTextFile(`${dir.path}/values.yaml`, JSON.stringify(values));
  const run = await runHelm(helm, ["template", "kuberture", chart, "--values", `${dir.path}/values.yaml`]);
  assert.notEqual(run.code, 0, `helm template ${chart} rendered values it should refuse`);
  return run.stderr;
}

/** The seed's `values:` block without its `kuberture:` level: kuberture's chart's own values. */
function unnested(seed: string): unknown {
  return (valuesOf(seed) as { kuberture: unknown }).kuberture;
}

Deno.test("kuberture drop-in: values.yaml and values.schema.json are generated from the ouroboros chart's kuberture: ones", async () => {
  const expected = dropInFiles(
    await Deno.readTextFile(`${CHART_DIR}/values.yaml`),
    await Deno.readTextFile(`${CHART_DIR}/values.schema.json`),
  );
  assert.equal(
    await Deno.readTextFile(`${DROP_IN_DIR}/values.yaml`),
    expected.values,
    "run deno task chart:drop-in",
  );
  assert.equal(
    await Deno.readTextFile(`${DROP_IN_DIR}/values.schema.json`),
    expected.schema,
    "run deno task chart:drop-in",
  );
  const values = parse(expected.values) as Record<string, unknown>;
  const main =
    (parse(await Deno.readTextFile(`${CHART_DIR}/values.yaml`)) as { kuberture: Record<string, unknown> })
      .kuberture;
  const { enabled: _enabled, ...rest } = main;
  assert.deepEqual({ ...values, ouroboros: undefined }, { ...rest, ouroboros: undefined });
});

for (const [seedName, seed] of [["single", SEED_SINGLE], ["multiple", SEED_MULTIPLE]] as const) {
  test(`kuberture drop-in: the seed's ${seedName}-instance example installs kuberture alone, directly and as the package's dependency`, async () => {
    for (const helm of helms()) {
      await using built = await charts(helm);
      const direct = await template(helm, built.dropIn, unnested(seed));
      const packaged = await template(helm, built.wrapper, valuesOf(seed));
      assert.deepEqual(kinds(direct), KINDS, `${helm.label}: the kinds rendered directly`);
      assert.deepEqual(kinds(packaged), [...KINDS, "ServiceMonitor"].sort(), `${helm.label}: as the package`);
      for (const object of [...direct, ...packaged]) {
        // kuberture's own objects, and its uninstall hook's.
        assert.ok(
          ["kuberture", "cleanup-hook"].includes(
            object.metadata.labels?.["app.kubernetes.io/component"] ?? "",
          ),
          `${helm.label}: ${object.kind} ${object.metadata.name} is kuberture's`,
        );
      }
      assert.deepEqual(
        ofKind(direct, "Job").map((job) => container(job, "cleanup").args),
        [["kuberture", "--cleanup", "--log-format=json"]],
        "the uninstall hook runs kuberture --cleanup",
      );
      // Named as kuberture's chart names them: release "kuberture" holds the chart's name.
      assert.deepEqual(ofKind(direct, "Deployment").map((object) => object.metadata.name), ["kuberture"]);
      assert.deepEqual(ofKind(packaged, "Deployment").map((object) => object.metadata.name), ["kuberture"]);
      assert.equal(
        container(ofKind(direct, "Deployment")[0]!, "kuberture").image,
        container(ofKind(packaged, "Deployment")[0]!, "kuberture").image,
      );
      // The same objects the ouroboros chart renders for kuberture: config, arguments, rules.
      const main = kubertureObjects(
        await renderOk(helm, {
          release: "kuberture",
          namespace: "cozy-kuberture",
          values: valuesOf(seed),
          set: KUBERTURE_ONLY,
        }),
      );
      assert.deepEqual(renderedConfig(direct), renderedConfig(main));
      assert.deepEqual(renderedConfig(packaged), renderedConfig(main));
      assert.deepEqual(kubertureArgs(direct), kubertureArgs(main));
      const rules = (objects: readonly K8sObject[]) =>
        ofKind(objects, "Role").map((role) => JSON.stringify(role.rules)).sort();
      assert.deepEqual(rules(kubertureObjects(direct)), rules(main));
    }
  });
}

test("kuberture drop-in: another release name gives kuberture's chart's names; overrides and the schema apply", async () => {
  for (const helm of helms()) {
    await using built = await charts(helm);
    const seed = unnested(SEED_SINGLE) as Record<string, unknown>;
    const other = await template(helm, built.dropIn, seed, "api");
    assert.deepEqual(ofKind(other, "Deployment").map((object) => object.metadata.name), ["api-kuberture"]);
    const named = await template(helm, built.dropIn, { ...seed, fullnameOverride: "published" });
    assert.deepEqual(ofKind(named, "Deployment").map((object) => object.metadata.name), ["published"]);
    const twice = await template(helm, built.dropIn, { ...seed, replicaCount: 2 });
    assert.deepEqual(kinds(twice), [...KINDS, "PodDisruptionBudget"].sort());
    // An ouroboros-only key, and `enabled` (the drop-in always runs kuberture), are refused by name.
    assert.match(await templateFails(helm, built.dropIn, { ...seed, controller: {} }), /controller/);
    assert.match(await templateFails(helm, built.dropIn, { ...seed, enabled: false }), /enabled/);
    // No output: refused as kuberture's chart refuses it (a placeholder would publish wrong records).
    assert.match(await templateFails(helm, built.dropIn, {}), /output/);
  }
});

/** par's chart values as its README's table lists them, with other settings than par's defaults. */
const PAR_VALUES = {
  image: { repository: "registry.example.com/ouroboros", tag: "0.1.0" },
  kubernetesClusterDomain: "example.internal",
  metrics: true,
  requests: { cpu: "100m", memory: "128Mi" },
  resources: { limits: { cpu: "1", memory: "300Mi" } },
};

/** What `ouroboros dns` with par's behaviour renders: the CRD, the server, its RBAC and restore hook. */
const PAR_KINDS = [
  "ClusterRole",
  "ClusterRoleBinding",
  "CustomResourceDefinition",
  "Deployment",
  "Job",
  "PodDisruptionBudget",
  "Role",
  "RoleBinding",
  "Service",
  "ServiceAccount",
];

test("par drop-in: par's values install ouroboros dns alone, with par's behaviour, each value where it belongs", async () => {
  for (const helm of helms()) {
    await using built = await charts(helm);
    const defaults = await template(helm, built.par, {}, "par");
    const given = await template(helm, built.par, PAR_VALUES, "par");
    for (const objects of [defaults, given]) {
      assert.deepEqual(kinds(objects), PAR_KINDS, `${helm.label}: the kinds`);
      assert.deepEqual(ofKind(objects, "CustomResourceDefinition").map((crd) => crd.metadata.name), [
        "records.dns.par.dev",
      ]);
    }
    const server = (objects: readonly K8sObject[]) =>
      ofKind(objects, "Deployment").find((object) => object.metadata.name === "par-dns")!;
    const args = (objects: readonly K8sObject[]) => container(server(objects), "dns").args ?? [];
    for (const flag of ["--hairpin=false", "--manage-workloads", "--manage-proxy-config"]) {
      assert.ok(args(given).includes(flag), `${helm.label}: ${flag} in ${args(given).join(" ")}`);
    }
    assert.ok(args(given).includes("--cluster-domain=example.internal"));
    assert.ok(args(defaults).includes("--cluster-domain=cluster.local"));
    assert.equal(container(server(given), "dns").image, "registry.example.com/ouroboros:0.1.0");
    assert.equal(container(server(defaults), "dns").image, "ghcr.io/ouroboros-ts/ouroboros:0.1.0");
    assert.deepEqual(container(server(given), "dns").resources, {
      requests: { cpu: "100m", memory: "128Mi" },
      limits: { cpu: "1", memory: "300Mi" },
    });
    const scraped = (objects: readonly K8sObject[]) =>
      (server(objects).spec as { template: { metadata: { annotations?: Record<string, string> } } }).template
        .metadata.annotations?.["prometheus.io/scrape"];
    assert.equal(scraped(given), "true");
    assert.equal(scraped(defaults), undefined);
    // The same server the ouroboros chart renders for the same dns settings.
    const main = await renderOk(helm, {
      release: "par",
      namespace: "cozy-kuberture",
      set: [
        ...KUBERTURE_ONLY,
        "fullnameOverride=par", // the drop-in's names come from its chart name, par
        "dns.enabled=true",
        "dns.hairpin=false",
        "dns.manageWorkloads=true",
        "dns.manageProxyConfig=true",
        "controller.clusterDomain=example.internal",
      ],
    });
    const mainServer = ofKind(main, "Deployment").find((object) =>
      object.metadata.labels?.["app.kubernetes.io/component"] === "dns"
    )!;
    assert.deepEqual(args(given), container(mainServer, "dns").args);
    // Anything but par's keys (and the ouroboros block) is refused by name.
    assert.match(await templateFails(helm, built.par, { ...PAR_VALUES, replicas: 3 }), /replicas/);
    assert.match(await templateFails(helm, built.par, { ...PAR_VALUES, metrics: "yes" }), /metrics/);
  }
});
