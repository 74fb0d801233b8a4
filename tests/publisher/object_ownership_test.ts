import assert from "node:assert/strict";
import {
  isOwnedBy,
  type ObjectOwnership,
  otherInstance,
  ownerLabels,
  ownerSelector,
} from "../../lib/publisher/object_ownership.ts";

const OURS: ObjectOwnership = {
  managedBy: { label: "app.kubernetes.io/managed-by", value: "kuberture" },
  instance: { label: "kuberture/instance", value: "main" },
};

Deno.test("ownership: the labels, the selector, and who holds an object", async (t) => {
  assert.deepEqual(ownerLabels(OURS), {
    "app.kubernetes.io/managed-by": "kuberture",
    "kuberture/instance": "main",
  });
  assert.equal(ownerSelector(OURS), "app.kubernetes.io/managed-by=kuberture,kuberture/instance=main");
  const cases: [string, Record<string, string>, boolean, string | undefined][] = [
    ["both labels", { ...ownerLabels(OURS), extra: "x" }, true, undefined],
    ["no labels", {}, false, undefined],
    ["the tool only", { "app.kubernetes.io/managed-by": "kuberture" }, false, undefined],
    ["the instance only", { "kuberture/instance": "main" }, false, undefined],
    [
      "another tool",
      { "app.kubernetes.io/managed-by": "helm", "kuberture/instance": "main" },
      false,
      undefined,
    ],
    [
      "another release",
      { "app.kubernetes.io/managed-by": "kuberture", "kuberture/instance": "blue" },
      false,
      "blue",
    ],
  ];
  for (const [name, labels, owned, other] of cases) {
    await t.step(name, () => {
      assert.equal(isOwnedBy(labels, OURS), owned);
      assert.equal(otherInstance(labels, OURS), other);
    });
  }
});
