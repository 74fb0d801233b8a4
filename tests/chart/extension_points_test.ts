/**
 * The extension points every workload offers alike: extraArgs, extraEnv, extraVolumes,
 * extraVolumeMounts, podAnnotations, podLabels, priorityClassName, nodeSelector, tolerations,
 * affinity and the security contexts (merged over the chart-wide ones), and the etc-hosts
 * DaemonSet's updateStrategy. Table-driven over the workloads: the workloads found in renders
 * with every feature on, and the values sections offering any extension point, must both be the
 * table's, so a workload added later fails here until it offers them all.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { output, withOutputs } from "./kuberture_support.ts";
import {
  assertSchemaRefuses,
  CHART_DIR,
  chartHelms,
  container,
  isHook,
  type K8sObject,
  MODES,
  type PodSpec,
  podSpec,
  podTemplate,
  renderOk,
  type RenderOptions,
  type SchemaRefusal,
  selectorLabels,
  selectorOf,
  validateObject,
} from "./support.ts";

const { helm4, helms, test } = await chartHelms("chart extension point tests");

const VALUES = parse(await Deno.readTextFile(`${CHART_DIR}/values.yaml`)) as Record<string, unknown>;

/** The keys every workload's values section holds. */
const EXTENSION_POINTS = [
  "extraArgs",
  "extraEnv",
  "extraVolumes",
  "extraVolumeMounts",
  "podAnnotations",
  "podLabels",
  "priorityClassName",
  "nodeSelector",
  "tolerations",
  "affinity",
  "podSecurityContext",
  "securityContext",
] as const;

/** Renders that, together, hold every workload the chart can run (the controller's two kinds apart). */
const ALL_ON: Record<"deployments" | "etcHosts", RenderOptions> = {
  deployments: {
    set: ["dns.enabled=true", "routing.enabled=true"],
    values: withOutputs([output("public")]),
  },
  etcHosts: { set: [...MODES["etc-hosts"], "routing.enabled=true"] },
};

interface Workload {
  /** Its values section. */
  readonly key: string;
  /** Its container. */
  readonly container: string;
  /** The render (of ALL_ON) it is in. */
  readonly render: keyof typeof ALL_ON;
  /** An extra argument its binary takes. */
  readonly arg: string;
}

/** Every workload, by its pods' component label. */
const WORKLOADS: Record<string, Workload> = {
  "controller": { key: "controller", container: "controller", render: "deployments", arg: "--resync=1m" },
  "proxy": { key: "proxy", container: "proxy", render: "deployments", arg: "--idle-timeout=30m" },
  "kuberture": { key: "kuberture", container: "kuberture", render: "deployments", arg: "--dry-run" },
  "dns": { key: "dns", container: "dns", render: "deployments", arg: "--drain-delay=10s" },
  "etc-hosts": { key: "etcHosts", container: "controller", render: "etcHosts", arg: "--resync=2m" },
};

/** The settings the etc-hosts DaemonSet runs with whatever the values say (the hosts file is root's). */
const ROOT = { runAsNonRoot: false, runAsUser: 0, runAsGroup: 0 };

/** The extension points set for one workload, each value naming the workload. */
function extensions(component: string): Record<string, unknown> {
  const { arg } = WORKLOADS[component]!;
  return {
    extraArgs: [arg],
    extraEnv: [
      { name: "EXTRA_NAME", value: component },
      { name: "EXTRA_NODE", valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } } },
    ],
    extraVolumes: [{ name: `extra-${component}`, configMap: { name: `corp-ca-${component}` } }],
    extraVolumeMounts: [{ name: `extra-${component}`, mountPath: `/etc/extra-${component}`, readOnly: true }],
    podAnnotations: { [`example.com/${component}`]: "yes" },
    // The chart's selector labels cannot be overridden: these are ignored.
    podLabels: {
      team: component,
      "app.kubernetes.io/name": "hijacked",
      "app.kubernetes.io/instance": "hijacked",
      "app.kubernetes.io/component": "hijacked",
    },
    priorityClassName: `prio-${component}`,
    nodeSelector: { [`example.com/pool-${component}`]: "true" },
    tolerations: [{ key: `dedicated-${component}`, operator: "Exists", effect: "NoSchedule" }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{
            matchExpressions: [{ key: `example.com/zone-${component}`, operator: "In", values: ["a"] }],
          }],
        },
      },
    },
    podSecurityContext: {
      fsGroup: 2000,
      seccompProfile: { type: "Localhost", localhostProfile: `profiles/${component}.json` },
    },
    securityContext: {
      capabilities: { drop: ["ALL"], add: ["NET_BIND_SERVICE"] },
      readOnlyRootFilesystem: false,
    },
  };
}

/** Deep-merges plain maps (as Helm merges values files), lists and scalars replaced. */
function merged(into: Record<string, unknown>, from: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...into };
  for (const [key, value] of Object.entries(from)) {
    const isMap = (item: unknown) => typeof item === "object" && item !== null && !Array.isArray(item);
    out[key] = isMap(out[key]) && isMap(value)
      ? merged(out[key] as Record<string, unknown>, value as Record<string, unknown>)
      : value;
  }
  return out;
}

/** `options` with every workload of its render given its extension points. */
function withExtensions(render: keyof typeof ALL_ON): RenderOptions {
  const options = ALL_ON[render];
  let values = options.values ?? {};
  for (const [component, workload] of Object.entries(WORKLOADS)) {
    if (workload.render === render) values = merged(values, { [workload.key]: extensions(component) });
  }
  return { ...options, values };
}

/** The workloads the release runs (hooks aside), by their pods' component label. */
function workloadsOf(objects: readonly K8sObject[]): Map<string, K8sObject> {
  const out = new Map<string, K8sObject>();
  for (const object of objects) {
    if ((object.kind !== "Deployment" && object.kind !== "DaemonSet") || isHook(object)) continue;
    const component = podTemplate(object).metadata.labels?.["app.kubernetes.io/component"];
    assert.ok(component !== undefined, `${object.kind} ${object.metadata.name} has no component label`);
    assert.ok(!out.has(component), `two workloads of component ${component}`);
    out.set(component, object);
  }
  return out;
}

interface Renders {
  readonly plain: Map<string, K8sObject>;
  readonly extended: Map<string, K8sObject>;
}

async function renderAll(): Promise<Renders> {
  const plain = new Map<string, K8sObject>();
  const extended = new Map<string, K8sObject>();
  // Each workload from its own render (the proxy runs in both); one of no table entry from any.
  const mine = (render: string, component: string) => (WORKLOADS[component]?.render ?? render) === render;
  for (const render of Object.keys(ALL_ON) as (keyof typeof ALL_ON)[]) {
    for (const [component, object] of workloadsOf(await renderOk(helm4(), ALL_ON[render]))) {
      if (mine(render, component)) plain.set(component, object);
    }
    for (const [component, object] of workloadsOf(await renderOk(helm4(), withExtensions(render)))) {
      if (mine(render, component)) extended.set(component, object);
    }
  }
  return { plain, extended };
}

Deno.test("every values section with an extension point has them all, and is a workload of the table", () => {
  // A section with two of them is a workload's (metrics.podAnnotations alone is a switch).
  const sections = Object.entries(VALUES).filter(([, section]) =>
    typeof section === "object" && section !== null &&
    EXTENSION_POINTS.filter((key) => key in (section as Record<string, unknown>)).length >= 2
  );
  assert.deepEqual(
    sections.map(([name]) => name).sort(),
    Object.values(WORKLOADS).map((w) => w.key).sort(),
    "a values section offering extension points must be a workload of WORKLOADS",
  );
  for (const [name, section] of sections) {
    const missing = EXTENSION_POINTS.filter((key) => !(key in (section as Record<string, unknown>)));
    assert.deepEqual(missing, [], `${name} lacks extension points`);
  }
  // The same empty defaults everywhere, but for the etc-hosts DaemonSet's placement (it runs on every
  // Linux node by default).
  for (const { key } of Object.values(WORKLOADS)) {
    const section = VALUES[key] as Record<string, unknown>;
    for (const point of EXTENSION_POINTS) {
      if (key === "etcHosts" && ["nodeSelector", "tolerations"].includes(point)) continue;
      const value = section[point];
      assert.ok(
        value === "" || (typeof value === "object" && value !== null && Object.keys(value).length === 0),
        `${key}.${point} is not empty by default`,
      );
    }
  }
  assert.deepEqual((VALUES.etcHosts as Record<string, unknown>).updateStrategy, {
    type: "RollingUpdate",
    rollingUpdate: { maxUnavailable: 1 },
  });
});

test("the workloads rendered with every feature on are exactly the table's", async () => {
  const { plain } = await renderAll();
  assert.deepEqual([...plain.keys()].sort(), Object.keys(WORKLOADS).sort());
});

test("every workload renders each extension point where Kubernetes expects it", async () => {
  const { plain, extended } = await renderAll();
  assert.deepEqual([...extended.keys()].sort(), Object.keys(WORKLOADS).sort());
  const topPod = VALUES.podSecurityContext as Record<string, unknown>;
  const topContainer = VALUES.securityContext as Record<string, unknown>;
  for (const [component, workload] of Object.entries(WORKLOADS)) {
    const given = extensions(component);
    const before = plain.get(component)!;
    const after = extended.get(component)!;
    const label = `${after.kind} ${after.metadata.name}`;
    const c0 = container(before, workload.container);
    const c = container(after, workload.container);
    const spec = podSpec(after) as PodSpec & { priorityClassName?: string };
    // Lists: the chart's own first, unchanged, then the operator's.
    assert.deepEqual(c.args, [...(c0.args ?? []), ...(given.extraArgs as unknown[])], `${label}: args`);
    assert.deepEqual(c.env, [...(c0.env ?? []), ...(given.extraEnv as unknown[])], `${label}: env`);
    assert.deepEqual(
      c.volumeMounts,
      [...(c0.volumeMounts ?? []), ...(given.extraVolumeMounts as unknown[])],
      `${label}: volumeMounts`,
    );
    assert.deepEqual(
      spec.volumes,
      [...(podSpec(before).volumes ?? []), ...(given.extraVolumes as unknown[])],
      `${label}: volumes`,
    );
    // Pod metadata: the operator's annotations and labels added, the selector labels the chart's.
    const template = podTemplate(after).metadata;
    assert.deepEqual(template.annotations, {
      ...podTemplate(before).metadata.annotations,
      ...(given.podAnnotations as Record<string, string>),
    }, `${label}: annotations`);
    assert.deepEqual(template.labels, {
      ...podTemplate(before).metadata.labels,
      team: component,
    }, `${label}: labels`);
    assert.deepEqual(selectorOf(after), selectorLabels(component), `${label}: selector`);
    // Scheduling.
    assert.equal(spec.priorityClassName, `prio-${component}`, label);
    assert.deepEqual(spec.nodeSelector, {
      ...podSpec(before).nodeSelector,
      ...(given.nodeSelector as Record<string, string>),
    }, `${label}: nodeSelector (merged over the default, as Helm merges maps)`);
    assert.deepEqual(spec.tolerations, given.tolerations, `${label}: tolerations`);
    assert.deepEqual(spec.affinity, given.affinity, `${label}: affinity`);
    // Security contexts: the chart-wide ones, the workload's key by key over them, the DaemonSet's root last.
    const root = component === "etc-hosts" ? ROOT : {};
    assert.deepEqual(
      spec.securityContext,
      { ...topPod, ...(given.podSecurityContext as Record<string, unknown>), ...root },
      `${label}: pod securityContext`,
    );
    assert.deepEqual(
      c.securityContext,
      { ...topContainer, ...(given.securityContext as Record<string, unknown>), ...root },
      `${label}: container securityContext`,
    );
    await validateObject(after);
  }
});

test("defaults: no extension point adds anything, and the etc-hosts DaemonSet rolls one node at a time as root", async () => {
  const { plain } = await renderAll();
  for (const [component, object] of plain) {
    const spec = podSpec(object) as PodSpec & { priorityClassName?: string };
    assert.equal(spec.priorityClassName, undefined, component);
    const labels = podTemplate(object).metadata.labels ?? {};
    assert.ok(!("team" in labels), component);
    const c = container(object, WORKLOADS[component]!.container);
    if (component === "etc-hosts") {
      assert.deepEqual(spec.securityContext, { ...VALUES.podSecurityContext as object, ...ROOT });
      assert.deepEqual(c.securityContext, { ...VALUES.securityContext as object, ...ROOT });
      assert.deepEqual((object.spec as { updateStrategy?: unknown }).updateStrategy, {
        type: "RollingUpdate",
        rollingUpdate: { maxUnavailable: 1 },
      });
    } else {
      assert.deepEqual(spec.securityContext, VALUES.podSecurityContext, component);
      assert.deepEqual(c.securityContext, VALUES.securityContext, component);
    }
  }
});

test("the etc-hosts DaemonSet takes controller.* too, etcHosts.* after or over it", async () => {
  const objects = await renderOk(helm4(), {
    set: MODES["etc-hosts"],
    values: {
      controller: {
        extraArgs: ["--log-level=debug"],
        extraEnv: [{ name: "FROM_CONTROLLER", value: "1" }],
        extraVolumes: [{ name: "from-controller", emptyDir: {} }],
        extraVolumeMounts: [{ name: "from-controller", mountPath: "/controller" }],
        podAnnotations: { a: "controller", b: "controller" },
        podLabels: { a: "controller", b: "controller" },
        priorityClassName: "controller-prio",
        // The Deployment's: not the DaemonSet's.
        podSecurityContext: { fsGroup: 1 },
        securityContext: { privileged: false },
      },
      etcHosts: {
        extraArgs: ["--resync=1m"],
        extraEnv: [{ name: "FROM_ETC_HOSTS", value: "2" }],
        extraVolumes: [{ name: "from-etc-hosts", emptyDir: {} }],
        extraVolumeMounts: [{ name: "from-etc-hosts", mountPath: "/etc-hosts" }],
        podAnnotations: { b: "etc-hosts" },
        podLabels: { b: "etc-hosts" },
        priorityClassName: "system-node-critical",
      },
    },
  });
  const daemonSet = workloadsOf(objects).get("etc-hosts")!;
  const spec = podSpec(daemonSet) as PodSpec & { priorityClassName?: string };
  const c = container(daemonSet, "controller");
  assert.deepEqual(c.args?.slice(-2), ["--log-level=debug", "--resync=1m"]);
  assert.deepEqual(c.env?.slice(-2).map((e) => e.name), ["FROM_CONTROLLER", "FROM_ETC_HOSTS"]);
  assert.deepEqual(c.volumeMounts?.map((m) => m.name), ["hosts", "from-controller", "from-etc-hosts"]);
  assert.deepEqual(spec.volumes?.map((v) => v.name), ["hosts", "from-controller", "from-etc-hosts"]);
  const metadata = podTemplate(daemonSet).metadata;
  assert.equal(metadata.annotations?.a, "controller");
  assert.equal(metadata.annotations?.b, "etc-hosts");
  assert.equal(metadata.labels?.a, "controller");
  assert.equal(metadata.labels?.b, "etc-hosts");
  assert.equal(spec.priorityClassName, "system-node-critical");
  assert.equal((spec.securityContext as Record<string, unknown>).fsGroup, undefined);
  assert.equal((c.securityContext as Record<string, unknown>).privileged, undefined);
  await validateObject(daemonSet);
  // Without etcHosts.priorityClassName, the controller's.
  const fallback = await renderOk(helm4(), {
    set: [...MODES["etc-hosts"], "controller.priorityClassName=controller-prio"],
  });
  const fallbackSpec = podSpec(workloadsOf(fallback).get("etc-hosts")!) as { priorityClassName?: string };
  assert.equal(fallbackSpec.priorityClassName, "controller-prio");
});

test("the etc-hosts DaemonSet stays root whatever podSecurityContext and securityContext say", async () => {
  const objects = await renderOk(helm4(), {
    set: MODES["etc-hosts"],
    values: {
      podSecurityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 },
    },
  });
  const daemonSet = workloadsOf(objects).get("etc-hosts")!;
  for (const sc of [podSpec(daemonSet).securityContext, container(daemonSet, "controller").securityContext]) {
    assert.equal(sc?.runAsNonRoot, false);
    assert.equal(sc?.runAsUser, 0);
    assert.equal(sc?.runAsGroup, 0);
  }
  // The others take them.
  assert.equal(podSpec(workloadsOf(objects).get("proxy")!).securityContext?.runAsUser, 1000);
});

test("etcHosts.updateStrategy: a percentage, or OnDelete without rollingUpdate", async () => {
  const strategy = async (values: Record<string, unknown>) => {
    const objects = await renderOk(helm4(), { set: MODES["etc-hosts"], values: { etcHosts: values } });
    const daemonSet = workloadsOf(objects).get("etc-hosts")!;
    await validateObject(daemonSet);
    return (daemonSet.spec as { updateStrategy?: unknown }).updateStrategy;
  };
  assert.deepEqual(await strategy({ updateStrategy: { rollingUpdate: { maxUnavailable: "25%" } } }), {
    type: "RollingUpdate",
    rollingUpdate: { maxUnavailable: "25%" },
  });
  assert.deepEqual(await strategy({ updateStrategy: { type: "OnDelete" } }), { type: "OnDelete" });
});

/** A wrong type (or a refused value) for each key this file covers. */
const BAD: SchemaRefusal[] = [
  ...Object.values(WORKLOADS).flatMap(({ key }): SchemaRefusal[] => [
    { set: [`${key}.extraArgs=--flag`], key: `${key}.extraArgs` },
    { values: { [key]: { extraEnv: [{ value: "x" }] } }, key: `${key}.extraEnv` },
    { values: { [key]: { extraVolumes: ["data"] } }, key: `${key}.extraVolumes` },
    { values: { [key]: { extraVolumeMounts: [{ name: "data" }] } }, key: `${key}.extraVolumeMounts` },
    { values: { [key]: { podAnnotations: ["a=b"] } }, key: `${key}.podAnnotations` },
    { values: { [key]: { podLabels: { team: 1 } } }, key: `${key}.podLabels` },
    { set: [`${key}.priorityClassName=High_Priority`], key: `${key}.priorityClassName` },
    { values: { [key]: { podSecurityContext: "restricted" } }, key: `${key}.podSecurityContext` },
    { values: { [key]: { securityContext: ["readOnlyRootFilesystem"] } }, key: `${key}.securityContext` },
  ]),
  // The DaemonSet's root, refused rather than silently replaced.
  { set: ["etcHosts.podSecurityContext.runAsNonRoot=true"], key: "etcHosts.podSecurityContext" },
  { set: ["etcHosts.securityContext.runAsUser=1000"], key: "etcHosts.securityContext" },
  { set: ["etcHosts.updateStrategy.type=Recreate"], key: "etcHosts.updateStrategy.type" },
  { set: ["etcHosts.updateStrategy.rollingUpdate.maxUnavailable=0"], key: "maxUnavailable" },
  { set: ["etcHosts.updateStrategy.rollingUpdate.maxSurge=1"], key: "maxSurge" },
];

test("the schema refuses a wrong type for every extension point of every workload, in Helm 4 and Helm 3", async () => {
  for (const helm of helms()) await assertSchemaRefuses(helm, BAD);
});

test("the schema accepts the DaemonSet's own root settings restated", async () => {
  for (const helm of helms()) {
    await renderOk(helm, {
      set: [...MODES["etc-hosts"]],
      values: {
        etcHosts: {
          podSecurityContext: { runAsNonRoot: false, runAsUser: 0, fsGroup: 0 },
          securityContext: { runAsGroup: 0, readOnlyRootFilesystem: true },
          updateStrategy: { rollingUpdate: { maxUnavailable: "10%" } },
        },
      },
    });
  }
});
