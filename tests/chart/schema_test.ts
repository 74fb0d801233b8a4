/**
 * The chart's values: every key of the original chart with its original name and default, each
 * documented, new keys marked "(new)", values.yaml and values.schema.json describing the same keys,
 * and the schema refusing bad values with an error that names the key, in Helm 4 and Helm 3.
 */

import assert from "node:assert/strict";
import { parseDocument } from "yaml";
import { assertSchemaRefuses, CHART_DIR, chartHelms, renderOk, valueAt } from "./support.ts";

const { helms, test } = await chartHelms("chart schema tests");

const VALUES_TEXT = await Deno.readTextFile(`${CHART_DIR}/values.yaml`);
const VALUES: unknown = parseDocument(VALUES_TEXT).toJS();
const SCHEMA: unknown = JSON.parse(await Deno.readTextFile(`${CHART_DIR}/values.schema.json`));

/** Dotted paths of every key of a values tree (maps are walked; lists and scalars are leaves). */
function keyPaths(tree: unknown, prefix = ""): string[] {
  if (typeof tree !== "object" || tree === null || Array.isArray(tree)) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(tree)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    out.push(path);
    out.push(...keyPaths(value, path));
  }
  return out;
}

/** Dotted paths of every property the schema declares with its own `properties` (free maps are leaves). */
function schemaPaths(schema: unknown, prefix = ""): string[] {
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (properties === undefined) return [];
  const out: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    out.push(path);
    out.push(...schemaPaths(value, path));
  }
  return out;
}

/** The original chart's values and defaults (every key of the original's values.yaml). */
const ORIGINAL: Record<string, unknown> = {
  // Changed on purpose (see CHANGED below): this project's own image.
  "image.repository": "ghcr.io/lexfrei/ouroboros",
  "image.pullPolicy": "IfNotPresent",
  "image.tag": "",
  "imagePullSecrets": [],
  "nameOverride": "",
  "fullnameOverride": "",
  "controller.enabled": true,
  "controller.replicaCount": 1,
  "controller.clusterDomain": "",
  "controller.mode": "coredns",
  "controller.podAnnotations": {},
  "controller.podLabels": {},
  "controller.nodeSelector": {},
  "controller.tolerations": [],
  "controller.affinity": {},
  "controller.topologySpreadConstraints": [],
  "controller.gatewayApi.enabled": false,
  "controller.ingressClass": "",
  "controller.gatewayClass": "",
  "controller.coredns.namespace": "kube-system",
  "controller.coredns.configmap": "coredns",
  "controller.coredns.key": "Corefile",
  "controller.coredns.cleanupOnUninstall": true,
  "controller.corednsImport.namespace": "kube-system",
  "controller.corednsImport.configmap": "coredns-custom",
  "controller.corednsImport.key": "ouroboros.override",
  "controller.corednsImport.cleanupOnUninstall": true,
  "controller.cleanupHookImage": {
    repository: "mirror.gcr.io/alpine/kubectl",
    tag: "1.36.3",
    pullPolicy: "IfNotPresent",
  },
  "controller.resync": "30s",
  "controller.logLevel": "info",
  "proxy.enabled": true,
  "proxy.replicaCount": 2,
  "proxy.podAnnotations": {},
  "proxy.podLabels": {},
  "proxy.nodeSelector": {},
  "proxy.tolerations": [],
  "proxy.affinity": {},
  "proxy.topologySpreadConstraints": [],
  "proxy.service.type": "ClusterIP",
  "proxy.service.annotations": {},
  "proxy.target.host": "",
  "proxy.target.serviceName": "ingress-nginx-controller",
  "proxy.target.namespace": "ingress-nginx",
  "proxy.target.httpPort": 80,
  "proxy.target.httpsPort": 443,
  "proxy.dialTimeout": "5s",
  "proxy.readyTimeout": "2s",
  "proxy.shutdownGrace": "30s",
  "externalDns.namespace": "",
  "externalDns.recordTTL": 60,
  "externalDns.output": "crd",
  "externalDns.annotationPrefix": "external-dns.alpha.kubernetes.io/",
  "externalDns.proxyIP": "",
  "externalDns.proxyService": "",
  "externalDns.annotations": {},
  "externalDns.labels": {},
  "externalDns.cleanupOnUninstall": true,
  "externalDns.cleanupHookImage": {
    repository: "mirror.gcr.io/alpine/kubectl",
    tag: "1.36.3",
    pullPolicy: "IfNotPresent",
  },
  "etcHosts.enabled": false,
  "etcHosts.hostsPath": "/etc/hosts",
  "etcHosts.proxyIP": "",
  "etcHosts.tolerations": [{ operator: "Exists" }],
  "serviceAccount.annotations": {},
  "serviceAccount.name": "",
  "podSecurityContext.runAsNonRoot": true,
  "podSecurityContext.seccompProfile": { type: "RuntimeDefault" },
  "securityContext": {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ["ALL"] },
    readOnlyRootFilesystem: true,
  },
  "podDisruptionBudget.minAvailable": 1,
  "podDisruptionBudget.maxUnavailable": null,
  "networkPolicy.enabled": false,
  "networkPolicy.ingress.from": [],
};

/**
 * Original keys whose default this chart changes on purpose, with the new default and what the
 * comment above the key must say (chart/README.md "Differences from the original" lists them too).
 */
const CHANGED: Record<string, { value: unknown; says: RegExp }> = {
  "controller.resources": {
    value: { requests: { cpu: "50m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
    says: /The 256Mi limit fits 10,000 with room to/,
  },
  "proxy.resources": {
    value: { requests: { cpu: "50m", memory: "96Mi" }, limits: { cpu: "1000m", memory: "256Mi" } },
    says: /about 20 KiB per open connection/,
  },
  "etcHosts.resources": {
    value: { requests: { cpu: "10m", memory: "96Mi" }, limits: { cpu: "200m", memory: "256Mi" } },
    says: /the original chart's 64Mi limit was below the idle figure/,
  },
  "podDisruptionBudget.enabled": { value: true, says: /the original's default was false/ },
  "terminationGracePeriodSeconds": { value: null, says: /the original's was 30/ },
  // This project's own image: the original's binary lacks flags this chart passes.
  "image.repository": { value: "ghcr.io/ouroboros-ts/ouroboros", says: /Not the original.s/ },
};

/** Keys this chart adds; their doc comment must say "(new)". */
const NEW_KEYS = [
  "image.digest",
  "controller.ingressHosts",
  "controller.wildcards",
  "controller.markerId",
  "controller.logFormat",
  "controller.v8Flags",
  "controller.leaderElection",
  "controller.leaderElection.enabled",
  "controller.leaderElection.id",
  "controller.leaderElection.namespace",
  "controller.leaderElection.leaseDuration",
  "controller.leaderElection.renewDeadline",
  "controller.leaderElection.retryPeriod",
  "controller.dryRun",
  "controller.priorityClassName",
  "controller.extraArgs",
  "controller.extraEnv",
  "controller.extraVolumes",
  "controller.extraVolumeMounts",
  "proxy.priorityClassName",
  "proxy.extraArgs",
  "proxy.extraEnv",
  "proxy.extraVolumes",
  "proxy.extraVolumeMounts",
  "proxy.service.ipFamilyPolicy",
  "proxy.service.ipFamilies",
  "serviceAccount.create",
  "proxy.drainDelay",
  "proxy.idleTimeout",
  "proxy.proxyProtocol",
  "proxy.logLevel",
  "proxy.logFormat",
  "routing",
  "routing.enabled",
  "routing.readTimeout",
  "routing.cleanupOnUninstall",
  "etcHosts.nodeSelector",
  "etcHosts.affinity",
  "etcHosts.cleanupOnUninstall",
  "etcHosts.cleanupPauseImage",
  "controller.podSecurityContext",
  "controller.securityContext",
  "proxy.podSecurityContext",
  "proxy.securityContext",
  "etcHosts.podAnnotations",
  "etcHosts.podLabels",
  "etcHosts.priorityClassName",
  "etcHosts.extraArgs",
  "etcHosts.extraEnv",
  "etcHosts.extraVolumes",
  "etcHosts.extraVolumeMounts",
  "etcHosts.podSecurityContext",
  "etcHosts.securityContext",
  "etcHosts.updateStrategy",
  "rbac.events",
  "networkPolicy.metrics.from",
  "metrics.podAnnotations",
  "metrics.serviceMonitor.enabled",
  "metrics.serviceMonitor.interval",
  "metrics.serviceMonitor.labels",
  "kuberture",
];

/**
 * The `# --` doc comment of each key of values.yaml (its own, or empty), by dotted path, read from
 * the text: comment lines directly above a key belong to it.
 */
function docComments(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const stack: { indent: number; key: string }[] = [];
  let pending: string[] = [];
  for (const line of text.split("\n")) {
    const comment = /^\s*# ?(.*)$/.exec(line);
    if (comment !== null) {
      pending.push(comment[1]!);
      continue;
    }
    // Keys may hold dots and slashes (label keys such as kubernetes.io/os).
    const key = /^(\s*)([A-Za-z][\w./-]*):/.exec(line);
    if (key === null) {
      if (line.trim() === "") pending = [];
      continue;
    }
    const indent = key[1]!.length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    stack.push({ indent, key: key[2]! });
    const doc = pending.join(" ");
    out.set(stack.map((entry) => entry.key).join("."), doc.startsWith("-- ") ? doc : "");
    pending = [];
  }
  return out;
}

Deno.test("values.yaml keeps every key of the original chart with its default; the uid is 65532 and the image ours on purpose", () => {
  for (const [path, value] of Object.entries(ORIGINAL)) {
    assert.deepEqual(valueAt(VALUES, path), path in CHANGED ? CHANGED[path]?.value : value, path);
  }
  // Changed defaults, each saying so: distroless nonroot instead of nobody, and the rest.
  assert.equal(valueAt(VALUES, "podSecurityContext.runAsUser"), 65532);
  assert.match(VALUES_TEXT, /65532, the distroless `nonroot` user \(the original used 65534\)/);
  const docs = docComments(VALUES_TEXT);
  for (const [path, { value, says }] of Object.entries(CHANGED)) {
    assert.deepEqual(valueAt(VALUES, path), value, path);
    assert.match(docs.get(path) ?? "", says, path);
  }
});

Deno.test("every values key is documented with '# --' (itself or its parent), and new keys say '(new)'", () => {
  const docs = docComments(VALUES_TEXT);
  const paths = keyPaths(VALUES);
  assert.ok(paths.length > 100);
  for (const path of paths) {
    assert.ok(docs.has(path), `${path} not found in the text`);
    const parts = path.split(".");
    const documented = parts.some((_, i) => (docs.get(parts.slice(0, i + 1).join(".")) ?? "") !== "");
    // Keys that only group others (controller, proxy.target, …) need no comment of their own.
    const isGroup = paths.some((other) => other.startsWith(`${path}.`)) && docs.get(path) === "";
    assert.ok(documented || isGroup, `${path} has no '# --' comment`);
  }
  for (const path of NEW_KEYS) {
    const parts = path.split(".");
    const own = docs.get(path) ?? "";
    assert.ok(
      own.includes("(new)") || (docs.get(parts.slice(0, -1).join(".")) ?? "").includes("(new)"),
      path,
    );
  }
  for (const path of Object.keys(ORIGINAL)) {
    assert.ok(!(docs.get(path) ?? "").includes("(new)"), `${path} is original, not new`);
  }
});

Deno.test("values.schema.json is draft-07, closed, and declares exactly the keys of values.yaml", () => {
  assert.equal((SCHEMA as { $schema: string }).$schema, "http://json-schema.org/draft-07/schema#");
  assert.equal((SCHEMA as { additionalProperties: unknown }).additionalProperties, false);
  const undeclared: string[] = [];
  const walk = (values: unknown, schema: unknown, prefix: string): void => {
    if (typeof values !== "object" || values === null || Array.isArray(values)) return;
    const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
    for (const [key, value] of Object.entries(values)) {
      const path = prefix === "" ? key : `${prefix}.${key}`;
      const declared = properties[key];
      if (declared === undefined) undeclared.push(path);
      // A declared object without properties is a free-form map (resources, annotations, …).
      else if ((declared as { properties?: unknown }).properties !== undefined) walk(value, declared, path);
    }
  };
  walk(VALUES, SCHEMA, "");
  assert.deepEqual(undeclared, [], "keys of values.yaml the schema does not declare");
  for (const path of schemaPaths(SCHEMA)) {
    if (path === "global") continue;
    assert.notEqual(valueAt(VALUES, path), undefined, `the schema declares ${path}, values.yaml does not`);
  }
});

/** Bad values and the key the error must name. */
const BAD: { set?: string[]; setString?: string[]; key: string }[] = [
  { set: ["controller.mode=bogus"], key: "controller.mode" },
  { set: ["controller.replicaCount=-1"], key: "controller.replicaCount" },
  { set: ["proxy.replicaCount=-1"], key: "proxy.replicaCount" },
  { set: ["externalDns.recordTTL=0"], key: "externalDns.recordTTL" },
  { set: ["externalDns.recordTTL=86401"], key: "externalDns.recordTTL" },
  { set: ["externalDns.annotationPrefix=internal-dns"], key: "externalDns.annotationPrefix" },
  { set: ["externalDns.output=json"], key: "externalDns.output" },
  { set: ["externalDns.proxyIP=1.2.3"], key: "externalDns.proxyIP" },
  { set: ["externalDns.namespace=Bad_NS"], key: "externalDns.namespace" },
  { set: ["image.pullPolicy=Sometimes"], key: "image.pullPolicy" },
  { set: ["controller.cleanupHookImage.pullPolicy=always"], key: "controller.cleanupHookImage.pullPolicy" },
  { set: ["image.tag=12"], key: "image.tag" },
  { setString: ["image.repository="], key: "image.repository" },
  { setString: ["image.digest=sha256:abc"], key: "image.digest" },
  { setString: [`image.digest=${"a".repeat(64)}`], key: "image.digest" },
  { setString: [`image.digest=sha256:${"A".repeat(64)}`], key: "image.digest" },
  { setString: [`image.digest=sha512:${"a".repeat(64)}`], key: "image.digest" },
  { setString: ["controller.coredns.namespace="], key: "controller.coredns.namespace" },
  { setString: ["controller.coredns.configmap="], key: "controller.coredns.configmap" },
  { setString: ["controller.corednsImport.key="], key: "controller.corednsImport.key" },
  { setString: ["proxy.target.serviceName="], key: "proxy.target.serviceName" },
  { setString: ["controller.cleanupHookImage.tag="], key: "controller.cleanupHookImage.tag" },
  { set: ["controller.clusterDomain=cluster_local"], key: "controller.clusterDomain" },
  { set: ["controller.resync=30"], key: "controller.resync" },
  { set: ["controller.resync=soon"], key: "controller.resync" },
  { set: ["controller.logLevel=verbose"], key: "controller.logLevel" },
  { set: ["controller.logFormat=xml"], key: "controller.logFormat" },
  { set: ["controller.v8Flags=max-old-space-size=96"], key: "controller.v8Flags" },
  { setString: ["controller.v8Flags=--max-old-space-size=96 --expose-gc"], key: "controller.v8Flags" },
  { set: ["controller.ingressHosts=some"], key: "controller.ingressHosts" },
  { set: ["controller.wildcards=all"], key: "controller.wildcards" },
  { set: ["controller.markerId=Edge_1"], key: "controller.markerId" },
  { set: ["controller.gatewayApi.enabled=yes"], key: "controller.gatewayApi.enabled" },
  { set: ["controller.leaderElection.enabled=yes"], key: "controller.leaderElection.enabled" },
  { set: ["controller.leaderElection.id=My_Lease"], key: "controller.leaderElection.id" },
  { set: ["controller.leaderElection.namespace=kube.system"], key: "controller.leaderElection.namespace" },
  { set: ["controller.leaderElection.leaseDuration=15"], key: "controller.leaderElection.leaseDuration" },
  { set: ["controller.leaderElection.renewDeadline=soon"], key: "controller.leaderElection.renewDeadline" },
  { setString: ["controller.leaderElection.retryPeriod="], key: "controller.leaderElection.retryPeriod" },
  { set: ["controller.leaderElection.elect=true"], key: "elect" },
  { set: ["controller.dryRun=yes"], key: "controller.dryRun" },
  { set: ["controller.replicas=2"], key: "replicas" },
  { set: ["proxy.proxyProtocol=v3"], key: "proxy.proxyProtocol" },
  { set: ["proxy.target.httpPort=0"], key: "proxy.target.httpPort" },
  { set: ["proxy.target.httpsPort=70000"], key: "proxy.target.httpsPort" },
  { set: ["proxy.service.type=ExternalName"], key: "proxy.service.type" },
  { set: ["proxy.idleTimeout=forever"], key: "proxy.idleTimeout" },
  { set: ["proxy.drainDelay=5"], key: "proxy.drainDelay" },
  { set: ["etcHosts.proxyIP=proxy.local"], key: "etcHosts.proxyIP" },
  { set: ["etcHosts.hostsPath=etc/hosts"], key: "etcHosts.hostsPath" },
  { set: ["podDisruptionBudget.minAvailable=-1"], key: "podDisruptionBudget.minAvailable" },
  { set: ["podDisruptionBudget.maxUnavailable=half"], key: "podDisruptionBudget.maxUnavailable" },
  { set: ["terminationGracePeriodSeconds=-5"], key: "terminationGracePeriodSeconds" },
  { set: ["serviceAccount.create=no"], key: "serviceAccount.create" },
  { set: ["controller.priorityClassName=High_Priority"], key: "controller.priorityClassName" },
  { set: ["proxy.extraArgs=--idle-timeout=1m"], key: "proxy.extraArgs" },
  { set: ["controller.extraEnv[0].value=x"], key: "name" },
  { set: ["proxy.extraVolumeMounts[0].name=data"], key: "mountPath" },
  { set: ["proxy.service.ipFamilyPolicy=DualStack"], key: "proxy.service.ipFamilyPolicy" },
  { set: ["proxy.service.ipFamilies={IPv4,IPv5}"], key: "proxy.service.ipFamilies" },
  { set: ["metrics.serviceMonitor.interval=often"], key: "metrics.serviceMonitor.interval" },
  { set: ["controller.clusterdomain=cozy.local"], key: "clusterdomain" },
  { set: ["replicas=2"], key: "replicas" },
];

test("the schema refuses each bad value, naming the key, in Helm 4 and Helm 3", async () => {
  for (const helm of helms()) await assertSchemaRefuses(helm, BAD);
});

test("the schema accepts the defaults, every mode and the legitimate spellings of each value", async () => {
  const good: string[][] = [
    [],
    ["controller.mode=coredns-import"],
    ["controller.mode=external-dns", "externalDns.output=service", "externalDns.proxyIP=fd00::10"],
    ["etcHosts.enabled=true", "etcHosts.proxyIP=10.96.0.10"],
    ["controller.mode=etc-hosts", "etcHosts.proxyIP=fd00::1"],
    [
      "controller.clusterDomain=cozy.local.",
      "controller.resync=1m30s",
      "proxy.drainDelay=0",
      "proxy.idleTimeout=0",
    ],
    ["controller.logLevel=warning", "proxy.logFormat=text", "controller.markerId=edge-1"],
    [
      "proxy.target.host=10.0.0.1",
      "podDisruptionBudget.enabled=true",
      "podDisruptionBudget.maxUnavailable=50%",
    ],
    ["proxy.target.host=ingress.example.net", "externalDns.namespace=dns", "serviceAccount.name=my-sa"],
    [
      "proxy.target.host=[fd00::1]",
      "metrics.serviceMonitor.enabled=true",
      "metrics.serviceMonitor.interval=1m",
    ],
    ["podDisruptionBudget.minAvailable=null", "podDisruptionBudget.maxUnavailable=1"],
    [
      "controller.replicaCount=2",
      "controller.leaderElection.enabled=true",
      "controller.leaderElection.id=edge.lease-1",
      "controller.leaderElection.namespace=kube-system",
      "controller.leaderElection.leaseDuration=1m30s",
      "controller.leaderElection.renewDeadline=45.5s",
      "controller.leaderElection.retryPeriod=500ms",
    ],
    ["controller.dryRun=true", "controller.mode=external-dns"],
    [`image.digest=sha256:${"0a".repeat(32)}`],
  ];
  for (const helm of helms()) {
    for (const set of good) await renderOk(helm, { set, setString: ["image.tag=1.10"] });
  }
});
