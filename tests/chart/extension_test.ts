/**
 * The chart's extension points and operational defaults: extra arguments (parsed with the
 * subcommand's own option table), environment, volumes, priority classes, an existing
 * ServiceAccount, the proxy Service's IP families, the common labels on every pod, the proxy's
 * spreading and budget by default, and the termination grace periods derived from
 * proxy.shutdownGrace.
 */

import assert from "node:assert/strict";
import { parseOptions } from "../../lib/cli/options.ts";
import { CONTROLLER_OPTIONS } from "../../lib/controller/controller_options.ts";
import { PROXY_OPTIONS } from "../../lib/proxy/proxy_options.ts";
import { output, withOutputs } from "./kuberture_support.ts";
import {
  chartHelms,
  container,
  envOf,
  find,
  isHook,
  type K8sObject,
  matches,
  MODES,
  ofKind,
  podSpec,
  podTemplate,
  renderFails,
  renderOk,
  selectorLabels,
  selectorOf,
  validateObject,
} from "./support.ts";

const { helm4, test } = await chartHelms("chart extension tests", { helm3: false });

const CONTROLLER = ["Deployment", "ouroboros", "controller"] as const;
const PROXY = ["Deployment", "ouroboros-proxy", "proxy"] as const;
const ETC_HOSTS = ["DaemonSet", "ouroboros-etc-hosts", "controller"] as const;

/** The arguments of one container, without the subcommand. */
function argv(objects: readonly K8sObject[], [kind, name, c]: readonly [string, string, string]): string[] {
  return (container(find(objects, kind, name), c).args ?? []).slice(1);
}

/** The parsed values of a container's arguments with its subcommand's option table (asserted to parse). */
function parsed(
  objects: readonly K8sObject[],
  where: readonly [string, string, string],
): Record<string, unknown> {
  const env = envOf(container(find(objects, where[0], where[1]), where[2]));
  const options = { argv: argv(objects, where), getEnv: (name: string) => env[name] };
  const outcome = where === PROXY
    ? parseOptions(PROXY_OPTIONS, options)
    : parseOptions(CONTROLLER_OPTIONS, options);
  assert.ok(outcome.kind === "ok", JSON.stringify(outcome));
  return outcome.values as Record<string, unknown>;
}

// --- Extension points ----------------------------------------------------------------------------

test("extraArgs come after the chart's own and win, as the same setting given through the chart's value", async () => {
  const plain = await renderOk(helm4());
  const extra = await renderOk(helm4(), {
    set: ["controller.extraArgs={--resync=1m,--log-level=debug}", "proxy.extraArgs={--idle-timeout=30m}"],
  });
  assert.deepEqual(argv(extra, CONTROLLER), [...argv(plain, CONTROLLER), "--resync=1m", "--log-level=debug"]);
  assert.deepEqual(argv(extra, PROXY), [...argv(plain, PROXY), "--idle-timeout=30m"]);
  const viaValues = await renderOk(helm4(), {
    set: ["controller.resync=1m", "controller.logLevel=debug", "proxy.idleTimeout=30m"],
  });
  assert.deepEqual(parsed(extra, CONTROLLER), parsed(viaValues, CONTROLLER));
  assert.deepEqual(parsed(extra, PROXY), parsed(viaValues, PROXY));
  assert.notDeepEqual(parsed(plain, PROXY), parsed(viaValues, PROXY), "the extra argument changes something");
  // The etc-hosts DaemonSet takes the controller's.
  const etcHosts = await renderOk(helm4(), {
    set: [...MODES["etc-hosts"], "controller.extraArgs={--resync=1m}"],
  });
  const daemonArgs = argv(etcHosts, ETC_HOSTS);
  assert.equal(daemonArgs.at(-1), "--resync=1m");
  assert.equal(parsed(etcHosts, ETC_HOSTS).resync, parsed(viaValues, CONTROLLER).resync);
});

test("extraEnv, extraVolumes and extraVolumeMounts reach the controller, the etc-hosts DaemonSet and the proxy", async () => {
  const env = [{ name: "TZ", value: "UTC" }, {
    name: "NODE",
    valueFrom: { fieldRef: { fieldPath: "spec.nodeName" } },
  }];
  const volumes = [{ name: "ca", configMap: { name: "corp-ca" } }];
  const mounts = [{ name: "ca", mountPath: "/etc/corp-ca", readOnly: true }];
  const extras = { extraEnv: env, extraVolumes: volumes, extraVolumeMounts: mounts };
  for (const [mode, set] of [["coredns", []], ["etc-hosts", MODES["etc-hosts"]]] as const) {
    const objects = await renderOk(helm4(), { set, values: { controller: extras, proxy: extras } });
    const where = mode === "etc-hosts" ? ETC_HOSTS : CONTROLLER;
    const workload = find(objects, where[0], where[1]);
    const c = container(workload, where[2]);
    assert.deepEqual(c.env?.slice(-2), env, mode);
    assert.equal(c.env?.[0]?.name, "OUROBOROS_INSTANCE", `${mode}: the chart's own come first`);
    assert.deepEqual(c.volumeMounts?.slice(-1), mounts, mode);
    assert.deepEqual(podSpec(workload).volumes?.slice(-1), volumes, mode);
    if (mode === "etc-hosts") {
      assert.equal(podSpec(workload).volumes?.[0]?.name, "hosts", "the hosts file stays");
    }
    const proxy = find(objects, PROXY[0], PROXY[1]);
    assert.deepEqual(container(proxy, "proxy").env, env);
    assert.deepEqual(container(proxy, "proxy").volumeMounts, mounts);
    assert.deepEqual(podSpec(proxy).volumes, volumes);
    for (const object of objects) await validateObject(object);
  }
  // Nothing by default: no env, volumes or mounts on the proxy, none added to the controller.
  const plain = await renderOk(helm4());
  const proxy = find(plain, PROXY[0], PROXY[1]);
  assert.equal(container(proxy, "proxy").env, undefined);
  assert.equal(podSpec(proxy).volumes, undefined);
  assert.equal(podSpec(find(plain, CONTROLLER[0], CONTROLLER[1])).volumes, undefined);
});

test("priorityClassName: on the controller, the etc-hosts DaemonSet and the proxy when given, absent otherwise", async () => {
  const priority = (object: K8sObject): unknown =>
    (podSpec(object) as { priorityClassName?: string }).priorityClassName;
  const set = ["controller.priorityClassName=system-cluster-critical", "proxy.priorityClassName=edge-high"];
  const objects = await renderOk(helm4(), { set });
  assert.equal(priority(find(objects, CONTROLLER[0], CONTROLLER[1])), "system-cluster-critical");
  assert.equal(priority(find(objects, PROXY[0], PROXY[1])), "edge-high");
  const etcHosts = await renderOk(helm4(), { set: [...MODES["etc-hosts"], ...set] });
  assert.equal(priority(find(etcHosts, ETC_HOSTS[0], ETC_HOSTS[1])), "system-cluster-critical");
  const plain = await renderOk(helm4());
  for (const object of [...ofKind(plain, "Deployment"), ...ofKind(plain, "DaemonSet")]) {
    assert.equal(priority(object), undefined, object.metadata.name);
  }
});

test("serviceAccount.create=false: no ServiceAccount, the pods and every binding use serviceAccount.name; refused without a name", async () => {
  for (const set of [[], MODES["etc-hosts"]]) {
    const objects = await renderOk(helm4(), {
      set: [...set, "serviceAccount.create=false", "serviceAccount.name=corp-dns-writer"],
    });
    assert.deepEqual(ofKind(objects, "ServiceAccount").filter((o) => !isHook(o)), []);
    const workload = objects.find((o) =>
      o.metadata.name === "ouroboros" || o.metadata.name === "ouroboros-etc-hosts"
    );
    assert.ok(workload !== undefined);
    assert.equal(podSpec(workload).serviceAccountName, "corp-dns-writer");
    const bindings = [...ofKind(objects, "RoleBinding"), ...ofKind(objects, "ClusterRoleBinding")]
      .filter((o) => !isHook(o));
    assert.ok(bindings.length > 0);
    for (const binding of bindings) {
      const subjects = (binding as { subjects?: { name: string }[] }).subjects ?? [];
      assert.deepEqual(subjects.map((s) => s.name), ["corp-dns-writer"], binding.metadata.name);
    }
  }
  const created = await renderOk(helm4(), { set: ["serviceAccount.name=corp-dns-writer"] });
  assert.deepEqual(ofKind(created, "ServiceAccount").filter((o) => !isHook(o)).map((o) => o.metadata.name), [
    "corp-dns-writer",
  ]);
  const refused = await renderFails(helm4(), { set: ["serviceAccount.create=false"] });
  assert.match(refused, /serviceAccount\.create=false needs serviceAccount\.name/);
});

test("the proxy Service's ipFamilyPolicy and ipFamilies when given (dual-stack AAAA records), omitted otherwise", async () => {
  const service = (objects: readonly K8sObject[]) =>
    find(objects, "Service", "ouroboros-proxy").spec as Record<string, unknown>;
  const plain = service(await renderOk(helm4()));
  assert.ok(!("ipFamilyPolicy" in plain) && !("ipFamilies" in plain));
  const dual = await renderOk(helm4(), {
    set: ["proxy.service.ipFamilyPolicy=PreferDualStack", "proxy.service.ipFamilies={IPv6,IPv4}"],
  });
  assert.equal(service(dual).ipFamilyPolicy, "PreferDualStack");
  assert.deepEqual(service(dual).ipFamilies, ["IPv6", "IPv4"]);
  await validateObject(find(dual, "Service", "ouroboros-proxy"));
});

// --- Labels ----------------------------------------------------------------------------------------

const COMMON = [
  "helm.sh/chart",
  "app.kubernetes.io/version",
  "app.kubernetes.io/managed-by",
  "app.kubernetes.io/part-of",
];

test("every pod the chart runs carries the common labels and its component; selectors stay the selector labels", async () => {
  const renders = [
    ...Object.values(MODES).map((set) => ({ set, tests: true })),
    { set: ["dns.enabled=true", "dns.manageWorkloads=true"], tests: true },
    { set: [], values: withOutputs([output("public")]) },
  ];
  const seen = new Set<string>();
  for (const options of renders) {
    const objects = await renderOk(helm4(), options);
    for (const object of objects) {
      if (!["Deployment", "DaemonSet", "Job", "Pod"].includes(object.kind)) continue;
      const labels = object.kind === "Pod"
        ? object.metadata.labels ?? {}
        : podTemplate(object).metadata.labels ?? {};
      const component = labels["app.kubernetes.io/component"];
      assert.ok(component !== undefined, `${object.kind} ${object.metadata.name}`);
      for (const key of COMMON) {
        assert.ok(key in labels, `${object.kind} ${object.metadata.name} lacks ${key}`);
      }
      assert.equal(labels["app.kubernetes.io/part-of"], "ouroboros");
      assert.equal(labels["app.kubernetes.io/managed-by"], "Helm");
      assert.ok(matches(selectorLabels(component), labels));
      if (object.kind === "Deployment" || object.kind === "DaemonSet") {
        assert.deepEqual(
          selectorOf(object),
          selectorLabels(component),
          `${object.metadata.name}: selector unchanged`,
        );
      }
      seen.add(`${object.kind}/${component}`);
    }
  }
  for (
    const expected of [
      "Deployment/controller",
      "Deployment/proxy",
      "DaemonSet/etc-hosts",
      "Job/cleanup-hook",
      "Pod/doctor",
      "Deployment/dns",
      "Deployment/kuberture",
      "DaemonSet/etc-hosts-cleanup",
    ]
  ) {
    assert.ok(seen.has(expected), `no ${expected} was checked`);
  }
  // The operator's pod labels are added to them.
  const labelled = await renderOk(helm4(), { set: ["proxy.podLabels.team=edge"] });
  const labels = podTemplate(find(labelled, PROXY[0], PROXY[1])).metadata.labels ?? {};
  assert.equal(labels.team, "edge");
  assert.equal(labels["app.kubernetes.io/component"], "proxy");
});

// --- Proxy availability ----------------------------------------------------------------------------

test("the proxy by default: one pod per node preferred, spread over zones and nodes, and a budget of one", async () => {
  const objects = await renderOk(helm4());
  const spec = podSpec(find(objects, PROXY[0], PROXY[1]));
  const selector = { matchLabels: selectorLabels("proxy") };
  assert.deepEqual(spec.affinity, {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{
        weight: 100,
        podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: selector },
      }],
    },
  });
  assert.deepEqual(spec.topologySpreadConstraints, [
    {
      maxSkew: 1,
      topologyKey: "topology.kubernetes.io/zone",
      whenUnsatisfiable: "ScheduleAnyway",
      labelSelector: selector,
    },
    {
      maxSkew: 1,
      topologyKey: "kubernetes.io/hostname",
      whenUnsatisfiable: "ScheduleAnyway",
      labelSelector: selector,
    },
  ]);
  const budgets = ofKind(objects, "PodDisruptionBudget");
  assert.deepEqual(
    budgets.map((o) => [o.metadata.name, (o.spec as { minAvailable?: number }).minAvailable]),
    [
      ["ouroboros-proxy", 1],
    ],
  );
  // One replica: nothing to spread, and no budget that would block every drain.
  const single = await renderOk(helm4(), { set: ["proxy.replicaCount=1"] });
  const singleSpec = podSpec(find(single, PROXY[0], PROXY[1]));
  assert.equal(singleSpec.affinity, undefined);
  assert.equal(singleSpec.topologySpreadConstraints, undefined);
  assert.deepEqual(ofKind(single, "PodDisruptionBudget"), []);
  // The operator's own replace the defaults; the budget can still be turned off.
  const own = await renderOk(helm4(), {
    set: ["podDisruptionBudget.enabled=false"],
    values: {
      proxy: {
        affinity: { nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] } },
        topologySpreadConstraints: [{
          maxSkew: 2,
          topologyKey: "kubernetes.io/hostname",
          whenUnsatisfiable: "DoNotSchedule",
          labelSelector: selector,
        }],
      },
    },
  });
  const ownSpec = podSpec(find(own, PROXY[0], PROXY[1]));
  assert.deepEqual(ownSpec.affinity, {
    nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [] },
  });
  assert.equal(ownSpec.topologySpreadConstraints?.length, 1);
  assert.deepEqual(ofKind(own, "PodDisruptionBudget"), []);
});

// --- Termination grace ------------------------------------------------------------------------------

test("termination grace: the proxy's from shutdownGrace + 10 s, 30 s for the others; a given value must exceed shutdownGrace", async () => {
  const grace = (objects: readonly K8sObject[], kind: string, name: string): unknown =>
    (podSpec(find(objects, kind, name)) as { terminationGracePeriodSeconds?: number })
      .terminationGracePeriodSeconds;
  const plain = await renderOk(helm4(), {
    set: ["dns.enabled=true"],
    values: withOutputs([output("public")]),
  });
  assert.equal(grace(plain, PROXY[0], PROXY[1]), 40);
  assert.equal(grace(plain, CONTROLLER[0], CONTROLLER[1]), 30);
  assert.equal(grace(plain, "Deployment", "ouroboros-dns"), 30);
  assert.equal(grace(plain, "Deployment", "ouroboros-kuberture"), 30);
  // Fractions round up: the kubelet counts whole seconds.
  const longer = await renderOk(helm4(), { set: ["proxy.shutdownGrace=1m30.5s", ...MODES["etc-hosts"]] });
  assert.equal(grace(longer, PROXY[0], PROXY[1]), 101);
  assert.equal(grace(longer, ETC_HOSTS[0], ETC_HOSTS[1]), 30);
  const given = await renderOk(helm4(), { set: ["terminationGracePeriodSeconds=45"] });
  assert.equal(grace(given, PROXY[0], PROXY[1]), 45);
  assert.equal(grace(given, CONTROLLER[0], CONTROLLER[1]), 45);
  for (const value of [30, 12]) {
    const refused = await renderFails(helm4(), { set: [`terminationGracePeriodSeconds=${value}`] });
    assert.match(
      refused,
      new RegExp(`terminationGracePeriodSeconds=${value} must exceed proxy\\.shutdownGrace=30s`),
    );
  }
  // Without the proxy there is no drain to protect.
  const noProxy = await renderOk(helm4(), {
    set: ["terminationGracePeriodSeconds=5", "proxy.enabled=false"],
  });
  assert.equal(grace(noProxy, CONTROLLER[0], CONTROLLER[1]), 5);
});
