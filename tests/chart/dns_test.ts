/**
 * The chart's `dns:` section as Helm 4 renders it (and Helm 3, compared object for object): off by
 * default; on, a Deployment, Service, Records CRD and RBAC with the ports, probes, spread, Pod
 * Security and naming of the chart's other parts; the RBAC of each opt-in compared as sets; the
 * uninstall hook only with manageWorkloads; the CRD valid, kept on uninstall and accepting par's
 * Records; the NetworkPolicy and the metrics Service; the combinations refused at render time.
 * Each value set is rendered once and asserted on many times.
 */

import assert from "node:assert/strict";
import { Ajv } from "npm:ajv@8.20.0";
import {
  CHART_DIR,
  chartHelms,
  container,
  envOf,
  find,
  ids,
  isHook,
  type K8sObject,
  matches,
  notes,
  ofKind,
  podSpec,
  podTemplate,
  renderFails,
  renderOk,
  restrictedViolations,
  rules,
  selectorLabels,
  selectorOf,
} from "./support.ts";
import {
  added,
  DNS_ALONE,
  DNS_EVERYTHING,
  dnsContainer,
  dnsDeployment,
  dnsRbac,
  once,
  validateAll,
} from "./dns_support.ts";

const { helm4, helms, test } = await chartHelms("chart dns tests");

const DEFAULTS = once(() => renderOk(helm4()));
const ON = once(() => renderOk(helm4(), { set: ["dns.enabled=true"] }));
const EVERYTHING = once(() => renderOk(helm4(), DNS_EVERYTHING));
const ALONE = once(() => renderOk(helm4(), DNS_ALONE));
const WORKLOADS_ONLY = once(() =>
  renderOk(helm4(), { set: ["dns.enabled=true", "dns.manageWorkloads=true"] })
);
const PROXY_CONFIG_ONLY = once(() =>
  renderOk(helm4(), { set: ["dns.enabled=true", "dns.manageProxyConfig=true"] })
);

/** What dns.enabled=true adds to the default install (release and namespace "ouroboros"). */
const ON_OBJECTS = [
  "ClusterRole /ouroboros:ouroboros-dns",
  "ClusterRoleBinding /ouroboros:ouroboros-dns",
  "CustomResourceDefinition /records.dns.par.dev",
  "Deployment ouroboros/ouroboros-dns",
  "PodDisruptionBudget ouroboros/ouroboros-dns",
  "Role ouroboros/ouroboros-dns",
  "Role ouroboros/ouroboros-dns-par",
  "RoleBinding ouroboros/ouroboros-dns",
  "RoleBinding ouroboros/ouroboros-dns-par",
  "Service ouroboros/ouroboros-dns",
  "ServiceAccount ouroboros/ouroboros-dns",
];

const CLUSTER_READS = rules(
  "core/pods: list,watch",
  "dns.par.dev/records: list,watch",
);
const INGRESS_READS = rules("networking.k8s.io/ingresses: list,watch");
const OWN_SERVICES = rules(
  "core/services/ouroboros-proxy: list,watch",
  "core/services/ouroboros-dns: list,watch",
);
const PAR_SERVICES = rules("core/services: list,watch");
const WORKLOAD_PATCH = rules("apps/deployments: list,watch,patch");
const PROXY_CONFIG = rules("core/configmaps: list,watch,update,patch", "apps/deployments: list,watch,patch");
const RESTORE = rules("apps/deployments: list,patch");

const sorted = (...sets: string[][]): string[] => sets.flat().sort();

// --- On and off ------------------------------------------------------------------------------------

test("the default install renders nothing of dns; dns.enabled=true adds exactly its objects", async () => {
  const defaults = await DEFAULTS();
  // coredns and node-local-dns objects are the controller's (its Corefile, its start-up check), not dns's.
  const ours = (id: string) => /dns|records/.test(id) && !/coredns|node-local-dns/.test(id);
  assert.deepEqual(ids(defaults).filter(ours), []);
  assert.deepEqual(ofKind(defaults, "CustomResourceDefinition"), []);
  // Helm installs a crds/ folder whatever the values: the CRD must come only from the template.
  const crdsDir = await Deno.stat(`${CHART_DIR}/crds`).then(() => true, () => false);
  assert.equal(crdsDir, false, "chart/crds/ would install the Records CRD with dns off");
  const on = await ON();
  assert.deepEqual(added(on, defaults), ON_OBJECTS);
  assert.deepEqual(added(defaults, on), [], "turning dns on changes nothing else's names");
  // No hook without manageWorkloads.
  assert.deepEqual(
    on.filter(isHook).map((o) => o.metadata.name).filter((n) => n.includes("ouroboros-dns")),
    [],
  );
});

test("Helm 3 renders the dns objects Helm 4 renders, with every option", async () => {
  const [, helm3] = helms();
  for (
    const [options, objects] of [[{ set: ["dns.enabled=true"] }, await ON()], [
      DNS_EVERYTHING,
      await EVERYTHING(),
    ]] as const
  ) {
    assert.deepEqual(await renderOk(helm3!, options), objects);
  }
});

// --- The Deployment ------------------------------------------------------------------------------

test("the Deployment: 2 replicas spread over nodes and zones, ports, probes, POD_NAMESPACE, restricted", async () => {
  const on = await ON();
  const deployment = dnsDeployment(on);
  const spec = deployment.spec as { replicas: number; strategy: unknown };
  assert.equal(spec.replicas, 2);
  assert.deepEqual(spec.strategy, {
    type: "RollingUpdate",
    rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
  });
  const labels = selectorLabels("dns");
  assert.deepEqual(selectorOf(deployment), labels);
  // The pods carry the common labels too (helm.sh/chart, version, …), the selector's among them.
  const podLabels = podTemplate(deployment).metadata.labels ?? {};
  assert.ok(matches(labels, podLabels));
  assert.equal(podLabels["app.kubernetes.io/part-of"], "ouroboros");
  const pod = podSpec(deployment);
  assert.equal(pod.serviceAccountName, "ouroboros-dns");
  assert.deepEqual(pod.affinity, {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{
        weight: 100,
        podAffinityTerm: { topologyKey: "kubernetes.io/hostname", labelSelector: { matchLabels: labels } },
      }],
    },
  });
  assert.deepEqual(pod.topologySpreadConstraints, [{
    maxSkew: 1,
    topologyKey: "topology.kubernetes.io/zone",
    whenUnsatisfiable: "ScheduleAnyway",
    labelSelector: { matchLabels: labels },
  }]);
  const c = dnsContainer(on);
  assert.equal(c.image, "ghcr.io/ouroboros-ts/ouroboros:0.1.0");
  assert.deepEqual(c.ports, [
    { name: "dns-udp", containerPort: 5353, protocol: "UDP" },
    { name: "dns-tcp", containerPort: 5353, protocol: "TCP" },
    { name: "health", containerPort: 8084, protocol: "TCP" },
  ]);
  assert.deepEqual(c.livenessProbe?.httpGet, { path: "/healthz", port: "health" });
  assert.deepEqual(c.readinessProbe?.httpGet, { path: "/readyz", port: "health" });
  assert.deepEqual(c.env, [{
    name: "POD_NAMESPACE",
    valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } },
  }]);
  assert.deepEqual(restrictedViolations(pod), []);
  assert.equal(pod.securityContext?.runAsUser, 65532);
  assert.equal(c.securityContext?.readOnlyRootFilesystem, true);
  assert.equal(podTemplate(deployment).metadata.annotations?.["prometheus.io/port"], "8084");
  // The PDB takes one pod at a time, never blocking a drain.
  const pdb = find(on, "PodDisruptionBudget", "ouroboros-dns");
  assert.deepEqual(pdb.spec, {
    maxUnavailable: 1,
    unhealthyPodEvictionPolicy: "AlwaysAllow",
    selector: { matchLabels: labels },
  });
  // One replica: no spread and no PDB; the operator's own placement replaces the defaults.
  const alone = await ALONE();
  assert.equal(podSpec(dnsDeployment(alone)).affinity, undefined);
  assert.equal(podSpec(dnsDeployment(alone)).topologySpreadConstraints, undefined);
  assert.deepEqual(ofKind(alone, "PodDisruptionBudget"), []);
  assert.equal(podSpec(dnsDeployment(alone)).serviceAccountName, "dns-reader");
  const everything = await EVERYTHING();
  assert.deepEqual(podSpec(dnsDeployment(everything)).imagePullSecrets, [{ name: "registry" }]);
  const placed = await renderOk(helm4(), {
    set: ["dns.enabled=true"],
    values: {
      dns: {
        affinity: {
          nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } },
        },
        topologySpreadConstraints: [{ maxSkew: 2, topologyKey: "zone", whenUnsatisfiable: "DoNotSchedule" }],
        nodeSelector: { pool: "edge" },
        tolerations: [{ operator: "Exists" }],
        podLabels: { team: "edge" },
      },
    },
  });
  const placedPod = podSpec(dnsDeployment(placed));
  assert.deepEqual(Object.keys(placedPod.affinity ?? {}), ["nodeAffinity"]);
  assert.deepEqual(placedPod.topologySpreadConstraints?.map((t) => t.maxSkew), [2]);
  assert.deepEqual(placedPod.nodeSelector, { pool: "edge" });
  assert.deepEqual(placedPod.tolerations, [{ operator: "Exists" }]);
  assert.equal(podTemplate(dnsDeployment(placed)).metadata.labels?.team, "edge");
});

test("the Service: 53/UDP and 53/TCP to the named container ports, a fixed clusterIP only when given", async () => {
  const on = await ON();
  const service = find(on, "Service", "ouroboros-dns");
  const spec = service.spec as { type: string; clusterIP?: string; ports: unknown[] };
  assert.equal(spec.type, "ClusterIP");
  assert.equal(spec.clusterIP, undefined);
  assert.deepEqual(spec.ports, [
    { name: "dns-udp", port: 53, targetPort: "dns-udp", protocol: "UDP" },
    { name: "dns-tcp", port: 53, targetPort: "dns-tcp", protocol: "TCP" },
  ]);
  const ports = new Set((dnsContainer(on).ports ?? []).map((p) => `${p.name}/${p.protocol}`));
  assert.ok(
    ports.has("dns-udp/UDP") && ports.has("dns-tcp/TCP"),
    "each targetPort names a port of its protocol",
  );
  // It selects the dns pods and no other workload's.
  for (const workload of ofKind(on, "Deployment")) {
    assert.equal(
      matches(selectorOf(service), podTemplate(workload).metadata.labels),
      workload.metadata.name === "ouroboros-dns",
      workload.metadata.name,
    );
  }
  const fixed = find(await EVERYTHING(), "Service", "ouroboros-dns");
  assert.equal((fixed.spec as { clusterIP?: string }).clusterIP, "10.96.0.53");
});

// --- Arguments -----------------------------------------------------------------------------------

/** The listeners, always first. */
const LISTENERS = ["dns", "--listen-dns=:5353", "--listen-health=:8084"];
/** The answer settings at their defaults. */
const DEFAULT_ANSWERS = [
  "--ttl=30s",
  "--max-udp-size=1232",
  "--upstream-timeout=2s",
  "--cache-size=10000",
  "--tcp-idle-timeout=10s",
];
/** This release's Services, in namespace "ouroboros". */
const PROXY_SERVICE = ["--proxy-service-name=ouroboros-proxy", "--proxy-service-namespace=ouroboros"];
const DNS_SERVICE = ["--dns-service-name=ouroboros-dns", "--dns-service-namespace=ouroboros"];
const DEFAULT_LOGS = ["--log-level=info", "--log-format=json"];

test("the arguments: listeners, answers, the controller's sources, this release's Services, the opt-ins", async () => {
  assert.deepEqual(dnsContainer(await ON()).args, [
    ...LISTENERS,
    ...DEFAULT_ANSWERS,
    "--hairpin=true",
    "--ingress-hosts=tls",
    "--wildcards=rewrite",
    ...PROXY_SERVICE,
    ...DNS_SERVICE,
    "--par-namespace=ouroboros",
    ...DEFAULT_LOGS,
  ]);
  assert.deepEqual(dnsContainer(await EVERYTHING()).args, [
    ...LISTENERS,
    "--upstream=10.96.0.10, [fd00::a]:5353",
    "--ttl=1m",
    "--max-udp-size=4096",
    "--upstream-timeout=1500ms",
    "--cache-size=0",
    "--tcp-idle-timeout=30s",
    "--client-selector=app in (cert-manager,webhook),tier!=batch",
    "--hairpin=true",
    "--gateway-api",
    "--gateway-route-kinds=HTTPRoute,GRPCRoute,TLSRoute",
    "--ingress-hosts=all",
    "--wildcards=skip",
    "--ingress-class=nginx",
    "--gateway-class=eg",
    ...PROXY_SERVICE,
    ...DNS_SERVICE,
    "--par-namespace=par",
    "--manage-workloads",
    "--manage-proxy-config",
    "--cluster-domain=cozy.local",
    "--log-level=warning",
    "--log-format=text",
  ]);
  // Without hairpin answers: no proxy Service and no hostname source.
  assert.deepEqual(dnsContainer(await ALONE()).args, [
    ...LISTENERS,
    ...DEFAULT_ANSWERS,
    "--hairpin=false",
    ...DNS_SERVICE,
    "--par-namespace=ouroboros",
    ...DEFAULT_LOGS,
  ]);
});

// --- RBAC ----------------------------------------------------------------------------------------

test("RBAC per opt-in: reads by default; Deployments patch only with manageWorkloads, ConfigMaps only with manageProxyConfig", async () => {
  assert.deepEqual(dnsRbac(await ON()), {
    "ClusterRole /ouroboros:ouroboros-dns": sorted(CLUSTER_READS, INGRESS_READS),
    "Role ouroboros/ouroboros-dns": OWN_SERVICES,
    "Role ouroboros/ouroboros-dns-par": PAR_SERVICES,
  });
  assert.deepEqual(dnsRbac(await WORKLOADS_ONLY()), {
    "ClusterRole /ouroboros:ouroboros-dns": sorted(CLUSTER_READS, INGRESS_READS, WORKLOAD_PATCH),
    "Role ouroboros/ouroboros-dns": OWN_SERVICES,
    "Role ouroboros/ouroboros-dns-par": PAR_SERVICES,
    "ClusterRole /ouroboros:ouroboros-dns-restore": RESTORE,
  });
  assert.deepEqual(dnsRbac(await PROXY_CONFIG_ONLY()), {
    "ClusterRole /ouroboros:ouroboros-dns": sorted(CLUSTER_READS, INGRESS_READS),
    "Role ouroboros/ouroboros-dns": OWN_SERVICES,
    "Role ouroboros/ouroboros-dns-par": sorted(PAR_SERVICES, PROXY_CONFIG),
  });
  assert.deepEqual(dnsRbac(await EVERYTHING()), {
    "ClusterRole /ouroboros:ouroboros-dns": sorted(
      CLUSTER_READS,
      INGRESS_READS,
      rules(
        "gateway.networking.k8s.io/gateways: list,watch",
        "gateway.networking.k8s.io/httproutes: list,watch",
        "gateway.networking.k8s.io/grpcroutes: list,watch",
        "gateway.networking.k8s.io/tlsroutes: list,watch",
      ),
      WORKLOAD_PATCH,
    ),
    "Role ouroboros/ouroboros-dns": OWN_SERVICES,
    "Role par/ouroboros:ouroboros-dns-par": sorted(PAR_SERVICES, PROXY_CONFIG),
    "ClusterRole /ouroboros:ouroboros-dns-restore": RESTORE,
  });
  // No hairpin answers: no Ingress, no proxy Service.
  assert.deepEqual(dnsRbac(await ALONE()), {
    "ClusterRole /ouroboros:ouroboros-dns": CLUSTER_READS,
    "Role ouroboros/ouroboros-dns": rules("core/services/ouroboros-dns: list,watch"),
    "Role ouroboros/ouroboros-dns-par": PAR_SERVICES,
  });
});

test("RBAC bindings: each names a rendered role in its own namespace and the dns ServiceAccount", async () => {
  for (const objects of [await ON(), await EVERYTHING(), await ALONE()]) {
    const bindings = [...ofKind(objects, "RoleBinding"), ...ofKind(objects, "ClusterRoleBinding")]
      .filter((b) => b.metadata.name.includes("ouroboros-dns"));
    assert.ok(bindings.length >= 3);
    const account = podSpec(dnsDeployment(objects)).serviceAccountName;
    for (const binding of bindings) {
      const ref = binding.roleRef as { kind: string; name: string };
      const role = objects.find((o) => o.kind === ref.kind && o.metadata.name === ref.name);
      assert.ok(role !== undefined, `${binding.metadata.name} binds a missing ${ref.kind}`);
      assert.equal(role.metadata.namespace, binding.metadata.namespace);
      assert.equal(isHook(role), isHook(binding));
      const subjects = binding.subjects as { kind: string; name: string; namespace: string }[];
      const expected = isHook(binding) ? "ouroboros-dns-restore" : account;
      assert.deepEqual(subjects, [{ kind: "ServiceAccount", name: expected, namespace: "ouroboros" }]);
    }
  }
  // serviceAccount.create=false renders no ServiceAccount and binds the one named.
  assert.deepEqual(ofKind(await ALONE(), "ServiceAccount").map((o) => o.metadata.name), []);
});

// --- The uninstall hook ----------------------------------------------------------------------------

test("the restore hook: only with manageWorkloads, post-delete, restricted, running --restore-workloads", async () => {
  for (const objects of [await ON(), await PROXY_CONFIG_ONLY(), await ALONE()]) {
    assert.deepEqual(objects.filter(isHook).filter((o) => o.metadata.name.includes("ouroboros-dns")), []);
  }
  const objects = await WORKLOADS_ONLY();
  const hooks = objects.filter(isHook).filter((o) => o.metadata.name.includes("ouroboros-dns"));
  assert.deepEqual(hooks.map((o) => `${o.kind} ${o.metadata.annotations?.["helm.sh/hook-weight"]}`), [
    "ServiceAccount -10",
    "ClusterRole -10",
    "ClusterRoleBinding -10",
    "Job 0",
  ]);
  for (const hook of hooks) assert.equal(hook.metadata.annotations?.["helm.sh/hook"], "post-delete");
  const job = find(objects, "Job", "ouroboros-dns-restore");
  assert.equal(
    job.metadata.annotations?.["helm.sh/hook-delete-policy"],
    "hook-succeeded,before-hook-creation",
    "a failed Job stays for kubectl logs",
  );
  const spec = job.spec as {
    backoffLimit: number;
    ttlSecondsAfterFinished: number;
    activeDeadlineSeconds: number;
  };
  assert.deepEqual([spec.backoffLimit, spec.ttlSecondsAfterFinished, spec.activeDeadlineSeconds], [
    1,
    600,
    120,
  ]);
  const pod = podSpec(job);
  assert.equal(pod.serviceAccountName, "ouroboros-dns-restore");
  assert.equal(pod.restartPolicy, "Never");
  assert.deepEqual(restrictedViolations(pod), []);
  const c = container(job, "restore");
  assert.equal(c.image, dnsContainer(objects).image);
  assert.deepEqual(c.args, ["dns", "--restore-workloads", "--log-level=info", "--log-format=json"]);
  assert.deepEqual(Object.keys(envOf(c)), ["POD_NAMESPACE"]);
  // The hook pod is never taken for a dns pod (the Service would send it queries).
  assert.ok(!matches(selectorOf(dnsDeployment(objects)), podTemplate(job).metadata.labels));
  // cleanupOnUninstall=false drops it.
  const off = await renderOk(helm4(), {
    set: ["dns.enabled=true", "dns.manageWorkloads=true", "dns.cleanupOnUninstall=false"],
  });
  assert.deepEqual(added(off, await DEFAULTS()).filter((id) => id.includes("restore")), []);
});

// --- The Records CRD -------------------------------------------------------------------------------

interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  subresources?: Record<string, unknown>;
  schema: { openAPIV3Schema: Record<string, unknown> };
}

test("the Records CRD: par's names and schema, a status subresource, kept on uninstall, only with installCRD", async () => {
  const crd = find(await ON(), "CustomResourceDefinition", "records.dns.par.dev");
  assert.equal(crd.metadata.annotations?.["helm.sh/resource-policy"], "keep");
  assert.ok(!isHook(crd), "a hook CRD would be deleted with its hook policy, not kept");
  const spec = crd.spec as { group: string; scope: string; names: unknown; versions: CrdVersion[] };
  assert.equal(spec.group, "dns.par.dev");
  assert.equal(spec.scope, "Namespaced");
  assert.deepEqual(spec.names, {
    kind: "Records",
    listKind: "RecordsList",
    plural: "records",
    singular: "records",
  });
  assert.deepEqual(spec.versions.map((v) => [v.name, v.served, v.storage]), [["v1alpha1", true, true]]);
  assert.deepEqual(spec.versions[0]!.subresources, { status: {} });
  await validateAll([crd]);

  // The schema accepts par's Records and refuses what par's API refuses.
  const ajv = new Ajv({ strict: false, allErrors: true });
  const validate = ajv.compile(spec.versions[0]!.schema.openAPIV3Schema);
  const records = (a: unknown[]) => ({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { name: "cert-manager", namespace: "cert-manager" },
    spec: { a },
  });
  const manager = {
    labels: { "app.kubernetes.io/name": "cert-manager" },
    hostname: "shop.example.com",
    "ip-addresses": ["10.96.0.80", "fd00::80"],
    "forward-type": "manager",
  };
  const proxy = { labels: { app: "crawler" }, hostname: "", "ip-addresses": [], "forward-type": "proxy" };
  assert.ok(validate(records([manager, proxy])), JSON.stringify(validate.errors));
  assert.ok(validate(records([])), JSON.stringify(validate.errors));
  const bad: Record<string, unknown>[] = [
    { ...manager, "forward-type": "Manager" },
    { ...manager, "forward-type": undefined },
    { ...manager, hostname: undefined },
    { ...manager, labels: undefined },
    { ...manager, "ip-addresses": undefined },
    { ...manager, "ip-addresses": "10.96.0.80" },
    { ...manager, labels: { app: 1 } },
    { ...manager, hostname: ["shop.example.com"] },
  ];
  for (const entry of bad) {
    const clean = JSON.parse(JSON.stringify(entry));
    assert.equal(validate(records([clean])), false, `accepted ${JSON.stringify(clean)}`);
  }
  assert.equal(validate({ ...records([]), spec: { a: manager } }), false, "spec.a is a list");

  // installCRD=false (par's chart installed it already): dns runs without it.
  assert.deepEqual(ofKind(await ALONE(), "CustomResourceDefinition"), []);
  assert.ok(ofKind(await ALONE(), "Deployment").length > 0);
});

// --- NetworkPolicy, metrics ------------------------------------------------------------------------

test("NetworkPolicy: DNS from dns.networkPolicy.from, health from networkPolicy.metrics.from, egress to the API server and upstream", async () => {
  assert.deepEqual(ofKind(await ON(), "NetworkPolicy"), []);
  // networkPolicy.enabled (the controller's and the proxy's) does not turn on the dns one.
  const shared = await renderOk(helm4(), { set: ["dns.enabled=true", "networkPolicy.enabled=true"] });
  assert.ok(!ofKind(shared, "NetworkPolicy").some((o) => o.metadata.name === "ouroboros-dns"));
  const policy = find(await EVERYTHING(), "NetworkPolicy", "ouroboros-dns");
  const everything = await EVERYTHING();
  assert.ok(matches(selectorOf(policy), podTemplate(dnsDeployment(everything)).metadata.labels));
  assert.deepEqual(policy.spec, {
    podSelector: { matchLabels: selectorLabels("dns") },
    policyTypes: ["Ingress", "Egress"],
    ingress: [
      {
        ports: [{ port: 5353, protocol: "UDP" }, { port: 5353, protocol: "TCP" }],
        from: [{ namespaceSelector: { matchLabels: { team: "edge" } } }],
      },
      {
        from: [{ namespaceSelector: { matchLabels: { role: "monitoring" } } }],
        ports: [{ port: 8084, protocol: "TCP" }],
      },
    ],
    egress: [
      { ports: [{ port: 443, protocol: "TCP" }, { port: 6443, protocol: "TCP" }] },
      {
        ports: [{ port: 53, protocol: "UDP" }, { port: 53, protocol: "TCP" }],
        to: [{
          namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
          podSelector: { matchLabels: { "k8s-app": "kube-dns" } },
        }],
      },
    ],
  });
  // Empty peers: DNS from every source, no health rule.
  const open = await renderOk(helm4(), { set: ["dns.enabled=true", "dns.networkPolicy.enabled=true"] });
  const ingress =
    (find(open, "NetworkPolicy", "ouroboros-dns").spec as { ingress: Record<string, unknown>[] })
      .ingress;
  assert.deepEqual(ingress, [{ ports: [{ port: 5353, protocol: "UDP" }, { port: 5353, protocol: "TCP" }] }]);
});

test("metrics: the chart's ServiceMonitor scrapes the dns pods' health port through a headless Service", async () => {
  assert.deepEqual(
    ofKind(await ON(), "Service").map((o) => o.metadata.name).filter((n) => n.includes("ouroboros-dns")),
    [
      "ouroboros-dns",
    ],
  );
  const objects = await EVERYTHING();
  const monitor = find(objects, "ServiceMonitor", "ouroboros");
  const selector =
    (monitor.spec as { selector: { matchLabels: Record<string, string> } }).selector.matchLabels;
  const metrics = find(objects, "Service", "ouroboros-dns-metrics");
  assert.ok(matches(selector, metrics.metadata.labels), "the ServiceMonitor selects the dns metrics Service");
  assert.ok(
    !matches(selector, find(objects, "Service", "ouroboros-dns").metadata.labels),
    "the DNS Service is not scraped",
  );
  assert.deepEqual((metrics.spec as { clusterIP: string; ports: unknown }).ports, [
    { name: "health", port: 8084, targetPort: "health", protocol: "TCP" },
  ]);
  assert.ok(matches(selectorOf(metrics), podTemplate(dnsDeployment(objects)).metadata.labels));
});

// --- Validity, names, refusals ---------------------------------------------------------------------

test("every dns object validates against the Kubernetes schemas; names fit 63 characters for a long release", async () => {
  for (const objects of [await ON(), await EVERYTHING(), await ALONE()]) await validateAll(objects);
  const release = `r${"x".repeat(52)}`;
  const long = await renderOk(helm4(), { ...DNS_EVERYTHING, release });
  const dns = long.filter((o) => o.metadata.name.includes("-dns") || o.kind === "CustomResourceDefinition");
  assert.ok(dns.length >= 12);
  for (const object of dns) {
    if (object.kind.startsWith("Cluster") || object.kind === "Role" || object.kind === "RoleBinding") {
      continue;
    }
    assert.ok(object.metadata.name.length <= 63, `${object.kind} ${object.metadata.name}`);
  }
  const names = long.map((o: K8sObject) => `${o.kind}/${o.metadata.namespace}/${o.metadata.name}`);
  assert.equal(new Set(names).size, names.length, "names stay distinct after cutting");
  const service = ofKind(long, "Service").find((o) => o.metadata.name.endsWith("-dns"))!;
  assert.equal(service.metadata.name.length, 63);
  assert.ok(
    dnsContainer(long).args?.includes(`--dns-service-name=${service.metadata.name}`),
    "the argument names the Service rendered",
  );
});

test("refused: hairpin answers without the proxy, a Gateway class without Gateway API (even without a controller)", async () => {
  const noProxy = await renderFails(helm4(), { set: ["dns.enabled=true", "proxy.enabled=false"] });
  assert.match(noProxy, /dns\.hairpin=true .*proxy\.enabled=false .*dns\.hairpin=false/);
  const gateway = await renderFails(helm4(), {
    set: ["dns.enabled=true", "controller.enabled=false", "controller.gatewayClass=eg"],
  });
  assert.match(gateway, /controller\.gatewayClass=eg .*controller\.gatewayApi\.enabled/);
  // Both are about hairpin answers: with dns.hairpin=false they render.
  await renderOk(helm4(), {
    set: [
      "dns.enabled=true",
      "dns.hairpin=false",
      "proxy.enabled=false",
      "controller.enabled=false",
      "controller.gatewayClass=eg",
    ],
  });
});

test("NOTES: dns says who it answers, how pods reach it, and whether workloads are patched", async () => {
  const off = await notes(helm4());
  assert.doesNotMatch(off, /ouroboros dns/, "dns is off by default");
  const on = await notes(helm4(), { set: ["dns.enabled=true", "dns.clientSelector=app=cert-manager"] });
  assert.match(
    on,
    /ouroboros dns answers DNS on Service ouroboros\/ouroboros-dns .* for the pods matching app=cert-manager/,
  );
  assert.match(on, /get service ouroboros-dns --output jsonpath='\{\.spec\.clusterIP\}'/);
  assert.match(on, /podDnsPolicy and podDnsConfig/);
  const patched = await notes(helm4(), { set: ["dns.enabled=true", "dns.manageWorkloads=true"] });
  assert.match(patched, /for every pod/);
  assert.match(
    patched,
    /dns\.manageWorkloads is on: Deployments matched by a Records entry are pointed at it/,
  );
});
