/**
 * The `kuberture:` values: every value path of kuberture's chart (which the cozystack package
 * nests under `kuberture:`) is a key here with kuberture's default unless a reason is given, and
 * the schema refuses what the package's schema and kuberture's code refuse (an empty or
 * unterminated annotation prefix, TTLs outside 1-86400 (kuberture's schema said 0; its code
 * refuses it), unknown address sources, unknown keys in an output), naming the key, in Helm 4 and
 * Helm 3, while accepting every legitimate spelling.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { CHART_DIR, chartHelms, namesKey, renderFails, renderOk, valueAt } from "./support.ts";
import { output, SEED_MULTIPLE, SEED_SINGLE, valuesOf, withOutputs } from "./kuberture_support.ts";

const { helms, test } = await chartHelms("chart kuberture schema tests");

const VALUES = parse(await Deno.readTextFile(`${CHART_DIR}/values.yaml`)) as { kuberture: unknown };

/**
 * kuberture's chart/values.yaml, flattened: each value path and its default. The cozystack package
 * overrides only image.tag and serviceMonitor.enabled.
 */
const KUBERTURE_CHART: Record<string, unknown> = {
  "replicaCount": 1,
  "revisionHistoryLimit": 3,
  "image.repository": "ghcr.io/lexfrei/kuberture",
  "image.tag": "",
  "image.pullPolicy": "IfNotPresent",
  "imagePullSecrets": [],
  "nameOverride": "",
  "fullnameOverride": "",
  "serviceAccount.create": true,
  "serviceAccount.annotations": {},
  "serviceAccount.name": "",
  "config.source.namespace": "default",
  "config.source.serviceName": "kubernetes",
  "config.outputs": [],
  "config.metricsBindAddress": ":8080",
  "config.healthProbeBindAddress": ":8081",
  "resources.requests.cpu": "10m",
  "resources.requests.memory": "32Mi",
  "resources.limits.memory": "64Mi",
  "pdb.minAvailable": 1,
  "networkPolicy.enabled": false,
  "nodeSelector": {},
  "tolerations": [],
  "affinity": {},
  "podAnnotations": {},
  "podLabels": {},
  "service.type": "ClusterIP",
  "service.port": 8080,
  "serviceMonitor.enabled": false,
  "serviceMonitor.interval": "30s",
  "serviceMonitor.scrapeTimeout": "10s",
  "serviceMonitor.additionalLabels": {},
};

/** Defaults that differ from kuberture's chart, and why (each also said in values.yaml). */
const CHANGED: Record<string, { ours: unknown; why: string }> = {
  "image.repository": { ours: "", why: "empty takes image.repository: one binary, our image" },
  "image.pullPolicy": { ours: "", why: "empty takes image.pullPolicy" },
  "resources.requests.memory": { ours: "64Mi", why: "a V8 process" },
  "resources.limits.memory": { ours: "192Mi", why: "a V8 process" },
};

Deno.test("every value path of kuberture's chart is a kuberture.* key, with kuberture's default or a reason", () => {
  for (const [path, theirs] of Object.entries(KUBERTURE_CHART)) {
    const ours = valueAt(VALUES.kuberture, path);
    const changed = CHANGED[path];
    if (changed === undefined) assert.deepEqual(ours, theirs, `kuberture.${path}`);
    else assert.deepEqual(ours, changed.ours, `kuberture.${path} (${changed.why})`);
  }
  // Off by default, and on for the package's values: enabled is null, not false.
  assert.equal(valueAt(VALUES.kuberture, "enabled"), null);
});

/** Bad kuberture values and the key the error must name. */
const BAD: { values: Record<string, unknown>; key: string }[] = [
  {
    values: withOutputs([output("a", { annotationPrefix: "" })]),
    key: "kuberture.config.outputs.0.annotationPrefix",
  },
  {
    values: withOutputs([output("a", { annotationPrefix: "internal-dns.example.com" })]),
    key: "kuberture.config.outputs.0.annotationPrefix",
  },
  { values: withOutputs([output("a", { recordTTL: 0 })]), key: "kuberture.config.outputs.0.recordTTL" },
  { values: withOutputs([output("a", { recordTTL: 86401 })]), key: "kuberture.config.outputs.0.recordTTL" },
  {
    values: withOutputs([output("a"), output("b", { addressSource: "node" })]),
    key: "kuberture.config.outputs.1.addressSource",
  },
  {
    values: withOutputs([output("a", { addressType: "ipv4" })]),
    key: "kuberture.config.outputs.0.addressType",
  },
  { values: withOutputs([output("a", { output: "dnsendpoint" })]), key: "kuberture.config.outputs.0.output" },
  { values: withOutputs([output("a", { ttl: 60 })]), key: "ttl" },
  { values: withOutputs([output("a", { hostnames: ["a.example.com"] })]), key: "hostnames" },
  { values: withOutputs([output("a", { hostname: [] })]), key: "kuberture.config.outputs.0.hostname" },
  {
    values: withOutputs([output("a", { hostname: ["api example.com"] })]),
    key: "kuberture.config.outputs.0.hostname.0",
  },
  {
    values: withOutputs([output("a", { hostname: "a.example.com" })]),
    key: "kuberture.config.outputs.0.hostname",
  },
  {
    values: withOutputs([output("a", { serviceName: "Kuberture_API" })]),
    key: "kuberture.config.outputs.0.serviceName",
  },
  { values: withOutputs([{ name: "a", hostname: ["a.example.com"] }]), key: "serviceName" },
  {
    values: withOutputs([output("a")], { config: { source: { namespace: "Default" } } }),
    key: "kuberture.config.source.namespace",
  },
  {
    values: withOutputs([output("a")], { config: { metricsBindAddress: "8080" } }),
    key: "kuberture.config.metricsBindAddress",
  },
  {
    values: withOutputs([output("a")], { config: { logLevel: "verbose" } }),
    key: "kuberture.config.logLevel",
  },
  { values: withOutputs([output("a")], { config: { leaderElect: true } }), key: "leaderElect" },
  { values: withOutputs([output("a")], { enabled: "yes" }), key: "kuberture.enabled" },
  { values: withOutputs([output("a")], { replicas: 2 }), key: "replicas" },
  {
    values: withOutputs([output("a")], { leaderElection: { id: "Kuberture_Leader" } }),
    key: "kuberture.leaderElection.id",
  },
  {
    values: withOutputs([output("a")], { leaderElection: { leaseDuration: "15" } }),
    key: "kuberture.leaderElection.leaseDuration",
  },
  {
    values: withOutputs([output("a")], { image: { pullPolicy: "Sometimes" } }),
    key: "kuberture.image.pullPolicy",
  },
  {
    values: withOutputs([output("a")], { serviceMonitor: { interval: "often" } }),
    key: "kuberture.serviceMonitor.interval",
  },
  {
    values: withOutputs([output("a")], { networkPolicy: { apiServerPorts: [] } }),
    key: "kuberture.networkPolicy.apiServerPorts",
  },
  {
    values: withOutputs([output("a")], { pdb: { minAvailable: "half" } }),
    key: "kuberture.pdb.minAvailable",
  },
  {
    values: withOutputs([output("a")], { service: { type: "ExternalName" } }),
    key: "kuberture.service.type",
  },
  { values: withOutputs([output("a")], { logFormat: "xml" }), key: "kuberture.logFormat" },
];

test("the schema refuses each bad kuberture value, naming the key, in Helm 4 and Helm 3", async () => {
  for (const helm of helms()) {
    for (const bad of BAD) {
      const stderr = await renderFails(helm, { values: bad.values });
      const label = `${helm.label} ${JSON.stringify(bad.values)}`;
      assert.match(stderr, /values don't meet the specifications of the schema/, label);
      assert.ok(namesKey(stderr, bad.key), `${label}: the error does not name ${bad.key}:\n${stderr}`);
    }
  }
});

test("the schema accepts the seed's examples and every legitimate spelling of each output key", async () => {
  const good: Record<string, unknown>[] = [
    valuesOf(SEED_SINGLE),
    valuesOf(SEED_MULTIPLE),
    withOutputs([
      output("a", { addressSource: "node-internal", addressType: "IPv4", recordTTL: 1 }),
      output("b", { addressSource: "node-external", addressType: "IPv6", recordTTL: 86400 }),
      output("c", {
        addressSource: "node-public",
        output: "crd",
        annotationPrefix: "internal-dns.example.com/",
      }),
      output("d", {
        output: "service",
        hostname: ["*.apps.example.com", "api.example.com.", "API.Example.com"],
      }),
    ]),
    withOutputs([output("a")], {
      enabled: true,
      config: {
        source: { namespace: "kube-system", serviceName: "kubernetes" },
        metricsBindAddress: "0.0.0.0:9090",
        healthProbeBindAddress: "[::]:9091",
        logLevel: "warn",
      },
      image: {
        repository: "mirror.example/ouroboros",
        tag: `0.1.0@sha256:${"0".repeat(64)}`,
        pullPolicy: "Always",
      },
      replicaCount: 2,
      pdb: { minAvailable: "50%" },
      networkPolicy: { enabled: true, from: [{ podSelector: {} }], apiServerPorts: [6443] },
      serviceMonitor: { enabled: true, interval: "1m", scrapeTimeout: "500ms", additionalLabels: { a: "b" } },
      leaderElection: {
        id: "edge.lease-1",
        namespace: "kube-system",
        leaseDuration: "1m30s",
        renewDeadline: "45.5s",
      },
    }),
  ];
  for (const helm of helms()) {
    for (const values of good) await renderOk(helm, { values });
  }
});
