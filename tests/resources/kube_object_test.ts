import assert from "node:assert/strict";
import { decodeMetadata, IDENTITY_ONLY } from "../../lib/resources/kube_object.ts";

const base = { name: "web-7d9f8-abcde", namespace: "ouroboros", resourceVersion: "12" };

Deno.test("decodeMetadata keeps owner references in order, controller flag only where written", () => {
  const decoded = decodeMetadata({
    ...base,
    ownerReferences: [
      {
        apiVersion: "apps/v1",
        kind: "ReplicaSet",
        name: "web-7d9f8",
        uid: "rs-uid",
        controller: true,
        blockOwnerDeletion: true,
      },
      { apiVersion: "v1", kind: "ConfigMap", name: "anchor", uid: "cm-uid" },
      { apiVersion: "v1", kind: "Secret", name: "other", uid: "s-uid", controller: false },
    ],
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.ownerReferences, [
    { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-7d9f8", uid: "rs-uid", controller: true },
    { apiVersion: "v1", kind: "ConfigMap", name: "anchor", uid: "cm-uid" },
    { apiVersion: "v1", kind: "Secret", name: "other", uid: "s-uid", controller: false },
  ]);
  assert.equal("controller" in decoded.value.ownerReferences[1]!, false, "absent stays absent");
});

Deno.test("decodeMetadata reads absent or null owner references as none", () => {
  for (const raw of [base, { ...base, ownerReferences: null }, { ...base, ownerReferences: [] }]) {
    const decoded = decodeMetadata(raw);
    assert.ok(decoded.ok);
    assert.deepEqual(decoded.value.ownerReferences, []);
  }
});

Deno.test("decodeMetadata refuses a malformed owner reference, naming the entry and field", async (t) => {
  const owner = { apiVersion: "apps/v1", kind: "ReplicaSet", name: "web", uid: "u" };
  const cases: readonly [string, unknown, string][] = [
    ["a map instead of a list", { owner }, "metadata.ownerReferences is not a list"],
    ["an entry that is a string", [owner, "web"], "metadata.ownerReferences[1] is not an object"],
    ["no uid", [{ ...owner, uid: undefined }], "metadata.ownerReferences[0].uid is missing"],
    ["an empty name", [{ ...owner, name: "" }], "metadata.ownerReferences[0].name is missing"],
    ["a numeric kind", [{ ...owner, kind: 7 }], "metadata.ownerReferences[0].kind is missing"],
    [
      "controller as text",
      [owner, { ...owner, controller: "true" }],
      "metadata.ownerReferences[1].controller is not a boolean",
    ],
  ];
  for (const [name, ownerReferences, reason] of cases) {
    await t.step(
      name,
      () => assert.deepEqual(decodeMetadata({ ...base, ownerReferences }), { ok: false, reason }),
    );
  }
});

Deno.test("decodeMetadata with IDENTITY_ONLY keeps identity and drops labels, annotations and owners unread", () => {
  const decoded = decodeMetadata({
    ...base,
    uid: "u",
    generation: 2,
    labels: { app: 1 },
    annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{}".repeat(500) },
    ownerReferences: "not a list",
  }, IDENTITY_ONLY);
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value, {
    ...base,
    uid: "u",
    generation: 2,
    labels: {},
    annotations: {},
    ownerReferences: [],
  });
});

Deno.test("decodeMetadata keeps only the annotations a shape names, and checks those", () => {
  const annotations = { "a.example/keep": "yes", "b.example/drop": "x".repeat(400) };
  const kept = decodeMetadata({ ...base, annotations }, {
    annotations: ["a.example/keep", "c.example/absent"],
  });
  assert.ok(kept.ok);
  assert.deepEqual(kept.value.annotations, { "a.example/keep": "yes" });
  const bad = decodeMetadata({ ...base, annotations: { "a.example/keep": 5 } }, {
    annotations: ["a.example/keep"],
  });
  assert.deepEqual(bad, { ok: false, reason: "metadata.annotations is not a map of strings" });
  const all = decodeMetadata({ ...base, annotations });
  assert.ok(all.ok);
  assert.deepEqual(all.value.annotations, annotations);
});
