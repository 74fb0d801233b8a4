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

Deno.test("decodePod keeps the owner reference that names its ReplicaSet, whatever the spec holds", () => {
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
  });
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
