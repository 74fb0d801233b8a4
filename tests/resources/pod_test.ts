import assert from "node:assert/strict";
import { decodePod, POD } from "../../lib/resources/pod.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const OWNER = {
  apiVersion: "apps/v1",
  kind: "ReplicaSet",
  name: "ouroboros-kuberture-6c9f7",
  uid: "rs-uid",
  controller: true,
};

Deno.test("decodePod keeps the owner reference that names its ReplicaSet, and the phase", () => {
  const decoded = decodePod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: "ouroboros-kuberture-6c9f7-x2x9q",
      namespace: "ouroboros",
      resourceVersion: "91",
      ownerReferences: [OWNER],
    },
    spec: { containers: [{ name: "kuberture", image: "ghcr.io/example/ouroboros" }] },
    status: { phase: "Running" },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value, {
    metadata: {
      name: "ouroboros-kuberture-6c9f7-x2x9q",
      namespace: "ouroboros",
      uid: "",
      resourceVersion: "91",
      labels: {},
      annotations: {},
      ownerReferences: [OWNER],
    },
    spec: { hostNetwork: false },
    status: { phase: "Running", podIPs: [] },
  });
});

Deno.test("decodePod reads the addresses of both families, the primary one and hostNetwork", () => {
  const decoded = decodePod({
    metadata: { name: "web-1", namespace: "shop", resourceVersion: "5" },
    spec: { hostNetwork: true, containers: [] },
    status: {
      phase: "Pending",
      podIP: "10.244.1.7",
      podIPs: [{ ip: "10.244.1.7" }, { ip: "fd00:10:244:1::7" }, null, {}],
    },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec, { hostNetwork: true });
  assert.deepEqual(decoded.value.status, {
    phase: "Pending",
    podIP: "10.244.1.7",
    podIPs: ["10.244.1.7", "fd00:10:244:1::7"],
  });
});

Deno.test("decodePod: a pod not yet scheduled has no phase and no address", () => {
  const decoded = decodePod({ metadata: { name: "p", namespace: "n", resourceVersion: "1" }, status: {} });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.status, { podIPs: [] });
  assert.deepEqual(decoded.value.spec, { hostNetwork: false });
});

Deno.test("decodePod refuses a podIPs that is not a list, naming the field", () => {
  assert.deepEqual(
    decodePod({
      metadata: { name: "p", namespace: "n", resourceVersion: "1" },
      status: { podIPs: "10.0.0.1" },
    }),
    { ok: false, reason: "status.podIPs is a string, not a list" },
  );
});

Deno.test("decodePod refuses an object of another kind", () => {
  assert.deepEqual(decodePod({ kind: "Node", metadata: { name: "n", resourceVersion: "1" } }), {
    ok: false,
    reason: 'kind is "Node", expected "Pod"',
  });
});

Deno.test("POD is the namespaced core v1 pods resource", () => {
  assert.equal(
    resourcePath(POD, { namespace: "ouroboros", name: "p" }),
    "/api/v1/namespaces/ouroboros/pods/p",
  );
  assert.equal(POD.decode, decodePod);
});
