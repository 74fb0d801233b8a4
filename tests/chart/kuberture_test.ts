/**
 * The chart's `kuberture:` section as Helm 4 and Helm 3 render it: off by default, on for the
 * cozystack package's own values (the seed's two examples, unchanged), the config file rendered
 * from the values and mounted for hot reload, least-privilege RBAC compared as sets, leader
 * election arguments, the NetworkPolicy, the ServiceMonitor, image and instance naming, and the
 * combinations refused at render time with a message naming the values.
 */

import assert from "node:assert/strict";
import {
  chartHelms,
  container,
  envOf,
  find,
  ids,
  matches,
  ofKind,
  podSpec,
  podTemplate,
  rbacMatrix,
  renderFails,
  renderOk,
  restrictedViolations,
  rules,
  selectorLabels,
  selectorOf,
  validateObject,
} from "./support.ts";
import {
  defaultConfig,
  KUBERTURE_ONLY,
  kubertureArgs,
  kubertureDeployment,
  kubertureObjects,
  output,
  renderedConfig,
  SEED_MULTIPLE,
  SEED_SINGLE,
  valuesOf,
  withOutputs,
} from "./kuberture_support.ts";

const { helm4, helms, test } = await chartHelms("chart kuberture tests");

const APP_VERSION = /^appVersion: "([^"]+)"$/m.exec(
  await Deno.readTextFile(new URL("../../chart/Chart.yaml", import.meta.url)),
)![1]!;

/** The leader-election arguments of release "ouroboros" in namespace "ouroboros", by default. */
const ELECTION_ARGS = [
  "--leader-elect",
  "--leader-election-namespace=ouroboros",
  "--leader-election-id=kuberture-leader",
  "--leader-election-lease-duration=15s",
  "--leader-election-renew-deadline=10s",
  "--leader-election-retry-period=2s",
];

/** kuberture's objects of a render of the single-output seed example, release "ouroboros". */
const SEED_OBJECTS = [
  "ConfigMap ouroboros/ouroboros-kuberture",
  "Deployment ouroboros/ouroboros-kuberture",
  "Job ouroboros/ouroboros-kuberture-cleanup",
  "Role default/ouroboros:ouroboros-kuberture-source",
  "Role ouroboros/ouroboros-kuberture",
  "Role ouroboros/ouroboros-kuberture-cleanup",
  "Role ouroboros/ouroboros-kuberture-leader-election",
  "RoleBinding default/ouroboros:ouroboros-kuberture-source",
  "RoleBinding ouroboros/ouroboros-kuberture",
  "RoleBinding ouroboros/ouroboros-kuberture-cleanup",
  "RoleBinding ouroboros/ouroboros-kuberture-leader-election",
  "Service ouroboros/ouroboros-kuberture-metrics",
  "ServiceAccount ouroboros/ouroboros-kuberture",
  "ServiceAccount ouroboros/ouroboros-kuberture-cleanup",
];

/** The Role in the release namespace without an `output: crd`: DNSEndpoints list and delete only (pruning). */
const MAIN_RULES = rules(
  "core/services: get,list,create,patch,delete",
  "externaldns.k8s.io/dnsendpoints: list,delete",
  "core/events: create,patch",
  "core/pods: get",
  "apps/replicasets: get",
);
const SOURCE_RULES = rules("discovery.k8s.io/endpointslices: list,watch");
/** The post-delete hook's Role: list and delete of what this instance wrote. */
/** The uninstall hook's: this instance's Services, and DNSEndpoints an earlier `output: crd` may have left. */
const CLEANUP_RULES = rules("core/services: list,delete", "externaldns.k8s.io/dnsendpoints: list,delete");
const LEASE_RULES = rules(
  "coordination.k8s.io/leases: create",
  "coordination.k8s.io/leases/kuberture-leader: get,update,watch",
);

// --- On and off ----------------------------------------------------------------------------------

test("the defaults render nothing of kuberture, and kuberture.enabled=false wins over outputs", async () => {
  for (const helm of helms()) {
    const defaults = await renderOk(helm);
    assert.deepEqual(ids(kubertureObjects(defaults)), [], helm.label);
    assert.ok(!ids(defaults).some((id) => id.includes("kuberture")), helm.label);
    const off = await renderOk(helm, { values: valuesOf(SEED_SINGLE), set: ["kuberture.enabled=false"] });
    assert.deepEqual(ids(off), ids(defaults), `${helm.label}: enabled=false renders the defaults' objects`);
  }
});

test("kuberture.enabled=true without an output fails with the package's message; unset, it stays off", async () => {
  for (const helm of helms()) {
    const stderr = await renderFails(helm, { set: ["kuberture.enabled=true"] });
    assert.match(stderr, /kuberture\.config\.outputs must contain at least one output entry/, helm.label);
    assert.match(stderr, /set kuberture\.enabled=false/, helm.label);
    const unset = await renderOk(helm, { values: { kuberture: { config: { outputs: [] } } } });
    assert.deepEqual(ids(kubertureObjects(unset)), [], helm.label);
  }
});

// --- The seed's examples ---------------------------------------------------------------------------

test("the seed's two examples work unchanged as values: kuberture's objects, valid and restricted", async () => {
  for (const helm of helms()) {
    for (
      const [example, names] of [[SEED_SINGLE, ["kuberture-api"]], [SEED_MULTIPLE, [
        "kuberture-public",
        "kuberture-internal",
      ]]] as const
    ) {
      const values = valuesOf(example);
      const alone = await renderOk(helm, { values, set: KUBERTURE_ONLY });
      assert.deepEqual(
        ids(alone),
        SEED_OBJECTS,
        `${helm.label}: kuberture alone renders exactly its objects`,
      );
      for (const object of alone) await validateObject(object);
      assert.deepEqual(restrictedViolations(podSpec(kubertureDeployment(alone))), [], helm.label);
      const given = (values.kuberture as { config: { outputs: Record<string, unknown>[] } }).config.outputs;
      assert.deepEqual(renderedConfig(alone), defaultConfig(given), `${helm.label}: config.yaml`);
      const written = (given as { serviceName: string }[]).map((o) => o.serviceName);
      assert.deepEqual(written, names);
      // Next to the controller and the proxy (the chart's defaults), kuberture adds the same objects.
      const withDefaults = await renderOk(helm, { values });
      const defaults = await renderOk(helm);
      assert.deepEqual(ids(withDefaults), [...ids(defaults), ...SEED_OBJECTS].sort(), helm.label);
      for (const object of kubertureObjects(withDefaults)) await validateObject(object);
    }
  }
});

// --- The config file ---------------------------------------------------------------------------

test("config.yaml holds kuberture.config as given, and is mounted as a directory without a checksum", async () => {
  const outputs = [
    output("public", { addressSource: "node-public", addressType: "IPv6", recordTTL: 86400 }),
    output("internal", {
      hostname: ["*.api.k8s.example.internal", "api.k8s.example.internal."],
      annotationPrefix: "internal-dns.example.com/",
      output: "crd",
    }),
  ];
  const config = {
    source: { namespace: "kube-system", serviceName: "apiserver" },
    metricsBindAddress: "0.0.0.0:9090",
    healthProbeBindAddress: "[::]:9091",
    logLevel: "debug",
  };
  for (const helm of helms()) {
    const objects = await renderOk(helm, { values: withOutputs(outputs, { config }) });
    assert.deepEqual(renderedConfig(objects), { ...config, outputs }, helm.label);
    // An omitted annotationPrefix stays omitted, so the binary applies its default.
    const text =
      (find(objects, "ConfigMap", "ouroboros-kuberture").data as Record<string, string>)["config.yaml"]!;
    assert.equal(text.match(/annotationPrefix:/g)?.length, 1, text);
    const deployment = kubertureDeployment(objects);
    const template = podTemplate(deployment);
    assert.deepEqual(
      Object.keys(template.metadata.annotations ?? {}).filter((key) => key.startsWith("checksum/")),
      [],
      "no checksum annotation: a config change is hot-reloaded, not rolled out",
    );
    const c = container(deployment, "kuberture");
    assert.deepEqual(c.volumeMounts, [{ name: "config", mountPath: "/etc/kuberture", readOnly: true }]);
    assert.ok(!JSON.stringify(c.volumeMounts).includes("subPath"), "a subPath mount never sees updates");
    assert.deepEqual(podSpec(deployment).volumes, [{
      name: "config",
      configMap: { name: "ouroboros-kuberture" },
    }]);
    assert.deepEqual(c.ports, [
      { name: "metrics", containerPort: 9090, protocol: "TCP" },
      { name: "health", containerPort: 9091, protocol: "TCP" },
    ]);
    assert.equal(c.livenessProbe?.httpGet?.path, "/healthz");
    assert.equal(c.readinessProbe?.httpGet?.path, "/readyz");
    assert.equal(c.livenessProbe?.httpGet?.port, "health");
    assert.equal(c.readinessProbe?.httpGet?.port, "health");
  }
});

// --- Arguments, environment, image ------------------------------------------------------------------

test("the container runs `ouroboros kuberture` with its config, log format and leader election", async () => {
  for (const helm of helms()) {
    const objects = await renderOk(helm, { values: valuesOf(SEED_SINGLE) });
    assert.deepEqual(kubertureArgs(objects), [
      "kuberture",
      "--config=/etc/kuberture/config.yaml",
      "--log-format=json",
      ...ELECTION_ARGS,
    ]);
    const c = container(kubertureDeployment(objects), "kuberture");
    assert.deepEqual(c.env, [
      { name: "KUBERTURE_INSTANCE", value: "ouroboros-kuberture" },
      { name: "POD_NAMESPACE", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
    ]);
    const custom = await renderOk(helm, {
      values: valuesOf(SEED_SINGLE),
      set: [
        "kuberture.logFormat=text",
        "kuberture.leaderElection.id=edge-lease",
        "kuberture.leaderElection.namespace=kube-system",
        "kuberture.leaderElection.leaseDuration=1m",
        "kuberture.leaderElection.renewDeadline=40s",
        "kuberture.leaderElection.retryPeriod=500ms",
      ],
    });
    assert.deepEqual(kubertureArgs(custom), [
      "kuberture",
      "--config=/etc/kuberture/config.yaml",
      "--log-format=text",
      "--leader-elect",
      "--leader-election-namespace=kube-system",
      "--leader-election-id=edge-lease",
      "--leader-election-lease-duration=1m",
      "--leader-election-renew-deadline=40s",
      "--leader-election-retry-period=500ms",
    ]);
    const off = await renderOk(helm, {
      values: valuesOf(SEED_SINGLE),
      set: ["kuberture.leaderElection.enabled=false"],
    });
    assert.deepEqual(kubertureArgs(off), [
      "kuberture",
      "--config=/etc/kuberture/config.yaml",
      "--log-format=json",
      "--leader-elect=false",
    ], "the binary elects by default, so off must be said");
    assert.deepEqual((kubertureDeployment(off).spec as { strategy: unknown }).strategy, {
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 0, maxUnavailable: 1 },
    }, "without election the old pod stops before the new one starts");
    assert.deepEqual((kubertureDeployment(objects).spec as { strategy: unknown }).strategy, {
      type: "RollingUpdate",
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
  }
});

test("the image is ours unless kuberture.image says otherwise; pull secrets and policy follow the chart's", async () => {
  for (const helm of helms()) {
    const image = async (set: string[], setString: string[] = []) => {
      const objects = await renderOk(helm, { values: valuesOf(SEED_SINGLE), set, setString });
      const c = container(kubertureDeployment(objects), "kuberture");
      return {
        image: c.image,
        pullPolicy: c.imagePullPolicy,
        secrets: podSpec(kubertureDeployment(objects)).imagePullSecrets,
      };
    };
    assert.deepEqual(await image([]), {
      image: `ghcr.io/ouroboros-ts/ouroboros:${APP_VERSION}`,
      pullPolicy: "IfNotPresent",
      secrets: undefined,
    });
    assert.deepEqual(
      await image([
        "image.repository=registry.example/ouroboros",
        "image.pullPolicy=Always",
        "imagePullSecrets[0].name=pull",
      ], ["image.tag=1.10"]),
      { image: "registry.example/ouroboros:1.10", pullPolicy: "Always", secrets: [{ name: "pull" }] },
    );
    const digest = "0.2.0@sha256:" + "a".repeat(64);
    assert.deepEqual(
      await image([
        "kuberture.image.repository=mirror.example/ouroboros",
        "kuberture.image.pullPolicy=Never",
        "imagePullSecrets[0].name=pull",
        "kuberture.imagePullSecrets[0].name=mirror",
      ], [`kuberture.image.tag=${digest}`]),
      { image: `mirror.example/ouroboros:${digest}`, pullPolicy: "Never", secrets: [{ name: "mirror" }] },
    );
  }
});

test("the instance is named as kuberture's chart names its release, so a switch takes kuberture's Services over", async () => {
  for (const helm of helms()) {
    const instance = async (release: string, set: string[] = []) => {
      const objects = await renderOk(helm, { release, values: valuesOf(SEED_SINGLE), set });
      const deployment = ofKind(kubertureObjects(objects), "Deployment")[0]!;
      return [deployment.metadata.name, envOf(container(deployment, "kuberture")).KUBERTURE_INSTANCE];
    };
    assert.deepEqual(await instance("kuberture"), ["kuberture-ouroboros-kuberture", "kuberture"]);
    assert.deepEqual(await instance("ouroboros"), ["ouroboros-kuberture", "ouroboros-kuberture"]);
    assert.deepEqual(await instance("edge", ["kuberture.nameOverride=apiname"]), [
      "edge-ouroboros-kuberture",
      "edge-apiname",
    ]);
    assert.deepEqual(await instance("edge", ["kuberture.fullnameOverride=api-dns"]), ["api-dns", "api-dns"]);
  }
});

// --- RBAC --------------------------------------------------------------------------------------------

test("RBAC, compared as sets: Nodes only with a node-* source, DNSEndpoints written only with output crd (else list and delete, to prune)", async () => {
  const matrix = async (outputs: ReturnType<typeof output>[], set: string[] = []) => {
    const helm = helm4();
    return rbacMatrix(
      await renderOk(helm, { values: withOutputs(outputs), set: [...KUBERTURE_ONLY, ...set] }),
    );
  };
  const base = {
    "Role default/ouroboros:ouroboros-kuberture-source": SOURCE_RULES,
    "Role ouroboros/ouroboros-kuberture": MAIN_RULES,
    "Role ouroboros/ouroboros-kuberture-leader-election": LEASE_RULES,
    "Role ouroboros/ouroboros-kuberture-cleanup": CLEANUP_RULES,
  };
  assert.deepEqual(await matrix([output("api", { addressSource: "endpointslice" })]), base);
  assert.deepEqual(await matrix([output("api")]), base, "the default source needs no Nodes");
  for (const source of ["node-internal", "node-external", "node-public"]) {
    assert.deepEqual(await matrix([output("api"), output("edge", { addressSource: source })]), {
      ...base,
      "ClusterRole /ouroboros:ouroboros-kuberture-nodes": rules("core/nodes: list,watch"),
    }, source);
  }
  assert.deepEqual(await matrix([output("api", { output: "crd" })]), {
    ...base,
    "Role ouroboros/ouroboros-kuberture": [
      ...MAIN_RULES.filter((rule) => !rule.startsWith("externaldns.k8s.io/dnsendpoints")),
      ...rules("externaldns.k8s.io/dnsendpoints: get,list,create,patch,delete"),
    ].sort(),
    "Role ouroboros/ouroboros-kuberture-cleanup": CLEANUP_RULES,
  });
  assert.deepEqual(await matrix([output("api")], ["kuberture.leaderElection.enabled=false"]), {
    "Role default/ouroboros:ouroboros-kuberture-source": SOURCE_RULES,
    "Role ouroboros/ouroboros-kuberture": MAIN_RULES,
    "Role ouroboros/ouroboros-kuberture-cleanup": CLEANUP_RULES,
  });
  assert.deepEqual(
    await matrix([output("api")], [
      "kuberture.config.source.namespace=ouroboros",
      "kuberture.leaderElection.namespace=kube-system",
      "kuberture.leaderElection.id=edge",
    ]),
    {
      "Role ouroboros/ouroboros-kuberture-source": SOURCE_RULES,
      "Role ouroboros/ouroboros-kuberture": MAIN_RULES,
      "Role ouroboros/ouroboros-kuberture-cleanup": CLEANUP_RULES,
      "Role kube-system/ouroboros:ouroboros-kuberture-leader-election": rules(
        "coordination.k8s.io/leases: create",
        "coordination.k8s.io/leases/edge: get,update,watch",
      ),
    },
  );
});

test("every kuberture Role is bound to kuberture's own ServiceAccount, never the controller's", async () => {
  for (const helm of helms()) {
    for (
      const set of [[], ["kuberture.serviceAccount.create=false", "kuberture.serviceAccount.name=dns-sa"]]
    ) {
      const objects = await renderOk(helm, {
        values: withOutputs([output("api", { addressSource: "node-internal" })]),
        set,
      });
      const account = set.length === 0 ? "ouroboros-kuberture" : "dns-sa";
      const own = kubertureObjects(objects);
      assert.deepEqual(
        ofKind(own, "ServiceAccount").map((o) => o.metadata.name),
        set.length === 0 ? [account] : [],
      );
      assert.equal(podSpec(kubertureDeployment(objects)).serviceAccountName, account);
      const roles = own.filter((o) => o.kind === "Role" || o.kind === "ClusterRole");
      const bindings = own.filter((o) => o.kind === "RoleBinding" || o.kind === "ClusterRoleBinding");
      assert.equal(roles.length, 4);
      for (const role of roles) {
        const binding = bindings.filter((b) =>
          b.metadata.name === role.metadata.name && b.metadata.namespace === role.metadata.namespace
        );
        assert.equal(binding.length, 1, `${role.kind} ${role.metadata.name} has one binding`);
        assert.deepEqual(binding[0]!.roleRef, {
          apiGroup: "rbac.authorization.k8s.io",
          kind: role.kind,
          name: role.metadata.name,
        });
        assert.deepEqual(binding[0]!.subjects, [{
          kind: "ServiceAccount",
          name: account,
          namespace: "ouroboros",
        }]);
      }
    }
  }
});

// --- Availability --------------------------------------------------------------------------------------

test("more replicas: spread over nodes and a PodDisruptionBudget; refused without leader election", async () => {
  for (const helm of helms()) {
    const one = await renderOk(helm, { values: valuesOf(SEED_SINGLE) });
    assert.deepEqual(ofKind(kubertureObjects(one), "PodDisruptionBudget"), []);
    assert.equal(podSpec(kubertureDeployment(one)).affinity, undefined);
    const three = await renderOk(helm, { values: valuesOf(SEED_SINGLE), set: ["kuberture.replicaCount=3"] });
    const pdb = find(three, "PodDisruptionBudget", "ouroboros-kuberture");
    assert.deepEqual(pdb.spec, {
      minAvailable: 1,
      unhealthyPodEvictionPolicy: "AlwaysAllow",
      selector: { matchLabels: selectorLabels("kuberture") },
    });
    assert.ok(matches(selectorOf(pdb), podTemplate(kubertureDeployment(three)).metadata.labels));
    assert.match(JSON.stringify(podSpec(kubertureDeployment(three)).affinity), /kubernetes\.io\/hostname/);
    await validateObject(pdb);
    const stderr = await renderFails(helm, {
      values: valuesOf(SEED_SINGLE),
      set: ["kuberture.replicaCount=2", "kuberture.leaderElection.enabled=false"],
    });
    assert.match(
      stderr,
      /kuberture\.replicaCount=2 needs kuberture\.leaderElection\.enabled=true/,
      helm.label,
    );
  }
});

// --- NetworkPolicy, metrics --------------------------------------------------------------------------

test("NetworkPolicy: off by default; on, the metrics and health ports in and the API server ports out", async () => {
  for (const helm of helms()) {
    const off = await renderOk(helm, { values: valuesOf(SEED_SINGLE), set: ["networkPolicy.enabled=true"] });
    assert.deepEqual(
      ofKind(kubertureObjects(off), "NetworkPolicy"),
      [],
      "the chart's switch is not kuberture's",
    );
    const on = await renderOk(helm, {
      values: withOutputs([output("api")], { config: { metricsBindAddress: ":9090" } }),
      set: ["kuberture.networkPolicy.enabled=true"],
    });
    const policy = find(on, "NetworkPolicy", "ouroboros-kuberture");
    assert.ok(matches(selectorOf(policy), podTemplate(kubertureDeployment(on)).metadata.labels));
    assert.deepEqual(policy.spec, {
      podSelector: { matchLabels: selectorLabels("kuberture") },
      policyTypes: ["Ingress", "Egress"],
      ingress: [{ ports: [{ port: 9090, protocol: "TCP" }, { port: 8081, protocol: "TCP" }] }],
      egress: [{ ports: [{ port: 443, protocol: "TCP" }, { port: 6443, protocol: "TCP" }] }],
    });
    await validateObject(policy);
    const narrowed = await renderOk(helm, {
      values: withOutputs([output("api")], {
        networkPolicy: {
          enabled: true,
          from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }],
          apiServerPorts: [6443],
        },
      }),
    });
    const spec = find(narrowed, "NetworkPolicy", "ouroboros-kuberture").spec as Record<string, unknown>;
    assert.deepEqual(spec.ingress, [{
      ports: [{ port: 8080, protocol: "TCP" }, { port: 8081, protocol: "TCP" }],
      from: [{ namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "monitoring" } } }],
    }]);
    assert.deepEqual(spec.egress, [{ ports: [{ port: 6443, protocol: "TCP" }] }]);
  }
});

test("metrics: a Service on the metrics port always, a ServiceMonitor scraping it when asked", async () => {
  for (const helm of helms()) {
    const plain = await renderOk(helm, { values: valuesOf(SEED_SINGLE) });
    assert.deepEqual(ofKind(kubertureObjects(plain), "ServiceMonitor"), []);
    const objects = await renderOk(helm, {
      values: withOutputs([output("api")], {
        serviceMonitor: { enabled: true, interval: "1m", additionalLabels: { release: "prometheus" } },
      }),
    });
    const service = find(objects, "Service", "ouroboros-kuberture-metrics");
    assert.ok(matches(selectorOf(service), podTemplate(kubertureDeployment(objects)).metadata.labels));
    assert.deepEqual((service.spec as { ports: unknown }).ports, [
      { name: "metrics", port: 8080, targetPort: "metrics", protocol: "TCP" },
    ]);
    const monitor = find(objects, "ServiceMonitor", "ouroboros-kuberture");
    assert.equal(monitor.metadata.labels?.release, "prometheus");
    assert.deepEqual(monitor.spec, {
      selector: { matchLabels: selectorLabels("kuberture") },
      namespaceSelector: { matchNames: ["ouroboros"] },
      endpoints: [{ port: "metrics", path: "/metrics", interval: "1m", scrapeTimeout: "10s" }],
    });
    assert.ok(
      matches(
        (monitor.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels,
        service.metadata.labels,
      ),
    );
    for (const object of kubertureObjects(objects)) await validateObject(object);
  }
});

// --- Refusals ------------------------------------------------------------------------------------------

test("render-time refusals name the values: shared names, Services and hostnames, ports, budgets, durations", async () => {
  const cases: { values: Record<string, unknown>; set?: string[]; message: RegExp }[] = [
    {
      values: withOutputs([
        output("api"),
        output("api", { serviceName: "other", hostname: ["b.example.com"] }),
      ]),
      message:
        /kuberture\.config\.outputs\[1\] \(api\) has the name of kuberture\.config\.outputs\[0\] \(api\)/,
    },
    {
      values: withOutputs([output("a"), output("b", { serviceName: "kuberture-a" })]),
      message: /outputs\[1\] \(b\) writes Service kuberture-a, as kuberture\.config\.outputs\[0\] \(a\) does/,
    },
    {
      values: withOutputs([output("a"), output("b", { hostname: ["A.k8s.example.com."] })]),
      message:
        /outputs\[1\] \(b\) publishes hostname a\.k8s\.example\.com, as kuberture\.config\.outputs\[0\] \(a\) does/,
    },
    {
      values: withOutputs([output("a", { serviceName: "ouroboros-kuberture-metrics" })]),
      message: /writes Service ouroboros-kuberture-metrics, which is kuberture's metrics Service/,
    },
    {
      values: withOutputs([output("a", { serviceName: "ouroboros-proxy" })]),
      message: /writes Service ouroboros-proxy, which is the proxy Service/,
    },
    {
      values: withOutputs([output("a")], { config: { healthProbeBindAddress: "0.0.0.0:8080" } }),
      message: /metricsBindAddress and kuberture\.config\.healthProbeBindAddress both use port 8080/,
    },
    {
      values: withOutputs([output("a")], { config: { metricsBindAddress: ":70000" } }),
      message: /kuberture\.config\.metricsBindAddress needs a port from 1 to 65535, got 70000/,
    },
    {
      values: withOutputs([output("a")]),
      set: ["kuberture.replicaCount=2", "kuberture.pdb.minAvailable=2"],
      message: /kuberture\.pdb\.minAvailable=2 with kuberture\.replicaCount=2 would block every node drain/,
    },
    {
      values: withOutputs([output("a")]),
      set: ["kuberture.leaderElection.renewDeadline=20s"],
      message: /kuberture\.leaderElection durations must satisfy .* got leaseDuration=15s, renewDeadline=20s/,
    },
  ];
  for (const helm of helms()) {
    for (const { values, set, message } of cases) {
      const stderr = await renderFails(helm, { values, set: set ?? [] });
      assert.match(stderr, message, `${helm.label}: ${JSON.stringify({ values, set })}\n${stderr}`);
    }
    // The refusals are not too eager: two outputs with distinct names, Services and hostnames pass.
    await renderOk(helm, {
      values: withOutputs([output("a"), output("b")]),
      set: ["kuberture.replicaCount=2"],
    });
  }
});

test("uninstall: one post-delete Job runs ouroboros kuberture --cleanup as this instance", async () => {
  for (const helm of helms()) {
    const objects = await renderOk(helm, {
      values: withOutputs([output("api"), output("edge", { output: "crd" })]),
      set: KUBERTURE_ONLY,
    });
    const jobs = objects.filter((object) =>
      object.kind === "Job" && String(object.metadata?.name).includes("kuberture")
    );
    assert.deepEqual(jobs.map((job) => job.metadata?.name), ["ouroboros-kuberture-cleanup"], helm.label);
    const job = jobs[0]!;
    assert.equal((job.metadata?.annotations as Record<string, string>)["helm.sh/hook"], "post-delete");
    const c = container(job, "cleanup");
    assert.equal(c.command, undefined, "the image's own entrypoint, no shell");
    assert.deepEqual(c.args, ["kuberture", "--cleanup", "--log-format=json"]);
    assert.equal(envOf(c).KUBERTURE_INSTANCE, "ouroboros-kuberture");
  }
});
