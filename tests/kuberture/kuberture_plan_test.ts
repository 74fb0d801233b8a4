import assert from "node:assert/strict";
import type { KubertureConfig, KubertureOutput } from "../../lib/kuberture/config/kuberture_config.ts";
import { planKuberturePass } from "../../lib/kuberture/kuberture_plan.ts";
import type { EndpointSlice } from "../../lib/resources/endpoint_slice.ts";
import type { ObjectMeta } from "../../lib/resources/kube_object.ts";

function meta(name: string, labels: Record<string, string> = {}): ObjectMeta {
  return {
    name,
    namespace: "kuberture",
    uid: name,
    resourceVersion: "1",
    labels,
    annotations: {},
    ownerReferences: [],
  };
}

function output(name: string, extra: Partial<KubertureOutput> = {}): KubertureOutput {
  return {
    name,
    hostnames: [`${name}.example.com`],
    annotationPrefix: "external-dns.alpha.kubernetes.io/",
    serviceName: `kuberture-${name}`,
    recordTTL: 60,
    addressSource: "endpointslice",
    addressType: undefined,
    kind: "service",
    ...extra,
  };
}

function config(outputs: KubertureOutput[]): KubertureConfig {
  return {
    source: { namespace: "default", serviceName: "kubernetes" },
    outputs,
    metricsBindAddress: ":8080",
    healthProbeBindAddress: ":8081",
    logLevel: undefined,
  };
}

const SLICE: EndpointSlice = {
  metadata: meta("kubernetes"),
  addressType: "IPv4",
  endpoints: [{ addresses: ["192.0.2.2"], conditions: {} }, {
    addresses: ["192.0.2.1"],
    conditions: { ready: true },
  }],
};

Deno.test("planKuberturePass: write, keep, prune", async (t) => {
  await t.step("every output with addresses is written, with sorted targets", () => {
    const plan = planKuberturePass({
      config: config([output("api")]),
      slices: [SLICE],
      nodes: [],
      owned: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    const step = plan.outputs[0]!;
    assert.equal(step.kind, "write");
    if (step.kind !== "write") return;
    const annotations = step.manifest.metadata.annotations!;
    assert.equal(annotations["external-dns.alpha.kubernetes.io/target"], "192.0.2.1,192.0.2.2");
    assert.deepEqual(plan.prune, []);
  });
  await t.step("no address: keep; an IPv6 output of an IPv4-only cluster is held back", () => {
    const plan = planKuberturePass({
      config: config([output("v6", { addressType: "IPv6" })]),
      slices: [SLICE],
      nodes: [],
      owned: [{ kind: "Service", object: { metadata: meta("kuberture-v6") } }],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    assert.equal(plan.outputs[0]!.kind, "keep");
    assert.deepEqual(plan.prune, [], "a held-back output's Service is not pruned");
  });
  await t.step("objects no output names are pruned, also when an output switches kind", () => {
    const plan = planKuberturePass({
      config: config([output("api", { kind: "crd", annotationPrefix: "" })]),
      slices: [SLICE],
      nodes: [],
      owned: [
        { kind: "Service", object: { metadata: meta("kuberture-api") } },
        { kind: "Service", object: { metadata: meta("kuberture-old") } },
      ],
      namespace: "kuberture",
      instance: "kuberture",
      owner: { apiVersion: "apps/v1", kind: "Deployment", name: "kuberture", uid: "u-1" },
    });
    assert.deepEqual(plan.prune, [
      { kind: "Service", name: "kuberture-api" },
      { kind: "Service", name: "kuberture-old" },
    ]);
    const step = plan.outputs[0]!;
    assert.equal(step.kind === "write" && step.manifest.kind, "DNSEndpoint");
    const refs = step.kind === "write" ? step.manifest.metadata.ownerReferences : undefined;
    assert.deepEqual(refs, [{
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "kuberture",
      uid: "u-1",
      blockOwnerDeletion: true,
    }]);
  });
  await t.step("node sources say which endpoints and Nodes gave nothing", () => {
    const plan = planKuberturePass({
      config: config([output("pub", { addressSource: "node-external", addressType: "IPv4" })]),
      slices: [{
        metadata: meta("kubernetes"),
        addressType: "IPv4",
        endpoints: [
          { addresses: ["10.0.0.1"], conditions: {}, nodeName: "cp-1" },
          { addresses: ["10.0.0.9"], conditions: {} },
        ],
      }],
      nodes: [{
        metadata: meta("cp-1"),
        status: { addresses: [{ type: "InternalIP", address: "10.0.0.1" }] },
      }],
      owned: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    const step = plan.outputs[0]!;
    assert.equal(step.kind, "keep");
    assert.match(step.unresolved, /endpoint IPs no Node lists: 10\.0\.0\.9/);
    assert.match(step.unresolved, /Node cp-1: no address of the asked type and family/);
  });
});
