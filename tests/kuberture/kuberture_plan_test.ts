import assert from "node:assert/strict";
import type { KubertureConfig, KubertureOutput } from "../../lib/kuberture/config/kuberture_config.ts";
import {
  type KuberturePlan,
  type OwnedKind,
  planKuberturePass,
  writerGroups,
} from "../../lib/kuberture/kuberture_plan.ts";
import { kubertureOwnership } from "../../lib/kuberture/output_object.ts";
import { ownerLabels } from "../../lib/publisher/object_ownership.ts";
import { planOwnedObjects } from "../../lib/publisher/owned_object_plan.ts";
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
    addressType: "IPv4",
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

/**
 * What the publisher's writers prune when given the plan's groups and these owned objects (of
 * this instance), one writer per kind as a pass runs them.
 */
function pruned(plan: KuberturePlan, owned: readonly { kind: OwnedKind; name: string }[]) {
  const labels = ownerLabels(kubertureOwnership("kuberture"));
  return (["Service", "DNSEndpoint"] as const).flatMap((kind) => {
    const result = planOwnedObjects({
      ownership: kubertureOwnership("kuberture"),
      groups: writerGroups(plan, kind),
      owned: owned.filter((object) => object.kind === kind).map(({ name }) => ({
        name,
        uid: name,
        resourceVersion: "1",
        labels,
        annotations: {},
        spec: {},
      })),
      reapply: true,
    });
    return result.kind === "apply" ? result.deletes.map(({ name }) => ({ kind, name })) : [];
  });
}

Deno.test("planKuberturePass: write, keep, prune", async (t) => {
  await t.step("every output with addresses is written, with sorted targets", () => {
    const plan = planKuberturePass({
      config: config([output("api")]),
      slices: [SLICE],
      nodes: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    const step = plan.outputs[0]!;
    assert.equal(step.kind, "write");
    if (step.kind !== "write") return;
    const annotations = step.desired.manifest.metadata.annotations!;
    assert.equal(annotations["external-dns.alpha.kubernetes.io/target"], "192.0.2.1,192.0.2.2");
    assert.deepEqual(pruned(plan, [{ kind: "Service", name: "kuberture-api" }]), []);
  });
  await t.step("no address: keep; an IPv6 output of an IPv4-only cluster is held back", () => {
    const plan = planKuberturePass({
      config: config([output("v6", { addressType: "IPv6" })]),
      slices: [SLICE],
      nodes: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    assert.equal(plan.outputs[0]!.kind, "keep");
    assert.deepEqual(
      pruned(plan, [{ kind: "Service", name: "kuberture-v6" }]),
      [],
      "a held-back output's Service is not pruned",
    );
    assert.deepEqual(
      pruned(plan, [{ kind: "Service", name: "kuberture-old" }]),
      [],
      "no output resolved at all: nothing is pruned (a glitch must not unpublish everything)",
    );
    const both = planKuberturePass({
      config: config([output("v6", { addressType: "IPv6" }), output("api")]),
      slices: [SLICE],
      nodes: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    assert.deepEqual(
      pruned(both, [{ kind: "Service", name: "kuberture-v6" }, { kind: "Service", name: "kuberture-old" }]),
      [{ kind: "Service", name: "kuberture-old" }],
      "with one output resolving, what no output names goes; the held-back name stays",
    );
    const mixed = planKuberturePass({
      config: config([
        output("v6", { addressType: "IPv6" }),
        output("v6crd", { addressType: "IPv6", kind: "crd" }),
      ]),
      slices: [SLICE],
      nodes: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: undefined,
    });
    assert.deepEqual(
      pruned(mixed, [{ kind: "Service", name: "kuberture-old" }, {
        kind: "DNSEndpoint",
        name: "kuberture-older",
      }]),
      [],
      "no output resolved, whatever their kinds: nothing of either kind is pruned",
    );
  });
  await t.step("objects no output names are pruned, also when an output switches kind", () => {
    const plan = planKuberturePass({
      config: config([output("api", { kind: "crd", annotationPrefix: "" })]),
      slices: [SLICE],
      nodes: [],
      namespace: "kuberture",
      instance: "kuberture",
      owner: { apiVersion: "apps/v1", kind: "Deployment", name: "kuberture", uid: "u-1" },
    });
    assert.deepEqual(
      pruned(plan, [
        { kind: "Service", name: "kuberture-api" },
        { kind: "Service", name: "kuberture-old" },
        { kind: "DNSEndpoint", name: "kuberture-api" },
        { kind: "DNSEndpoint", name: "kuberture-older" },
      ]),
      [
        { kind: "Service", name: "kuberture-api" },
        { kind: "Service", name: "kuberture-old" },
        { kind: "DNSEndpoint", name: "kuberture-older" },
      ],
    );
    const step = plan.outputs[0]!;
    assert.equal(step.kind === "write" && step.desired.manifest.kind, "DNSEndpoint");
    const refs = step.kind === "write" ? step.desired.manifest.metadata.ownerReferences : undefined;
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
