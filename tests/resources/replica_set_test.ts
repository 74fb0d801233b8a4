import assert from "node:assert/strict";
import { decodeReplicaSet, REPLICA_SET } from "../../lib/resources/replica_set.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

Deno.test("decodeReplicaSet keeps the owner reference that names its Deployment", () => {
  const decoded = decodeReplicaSet({
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: "ouroboros-kuberture-6c9f7",
      namespace: "ouroboros",
      resourceVersion: "90",
      ownerReferences: [
        {
          apiVersion: "apps/v1",
          kind: "Deployment",
          name: "ouroboros-kuberture",
          uid: "d-uid",
          controller: true,
        },
      ],
    },
    spec: { replicas: 2, selector: { matchLabels: { app: "k" } } },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.metadata.ownerReferences, [
    {
      apiVersion: "apps/v1",
      kind: "Deployment",
      name: "ouroboros-kuberture",
      uid: "d-uid",
      controller: true,
    },
  ]);
});

Deno.test("decodeReplicaSet refuses another kind and a malformed owner reference", () => {
  const metadata = { name: "rs", namespace: "x", resourceVersion: "1" };
  assert.deepEqual(decodeReplicaSet({ apiVersion: "apps/v1", kind: "Deployment", metadata }), {
    ok: false,
    reason: 'kind is "Deployment", expected "ReplicaSet"',
  });
  assert.deepEqual(
    decodeReplicaSet({ metadata: { ...metadata, ownerReferences: [{ kind: "Deployment" }] } }),
    {
      ok: false,
      reason: "metadata.ownerReferences[0].apiVersion is missing",
    },
  );
});

Deno.test("REPLICA_SET is the namespaced apps/v1 replicasets resource", () => {
  assert.equal(
    resourcePath(REPLICA_SET, { namespace: "ouroboros", name: "rs" }),
    "/apis/apps/v1/namespaces/ouroboros/replicasets/rs",
  );
  assert.equal(REPLICA_SET.decode, decodeReplicaSet);
});
