import assert from "node:assert/strict";
import { ownedFieldsText, ownedObjectsDiff } from "../../lib/publisher/owned_object_diff.ts";
import type { DesiredObject, ObservedObject } from "../../lib/publisher/owned_object_plan.ts";

const PLACE = { kind: "DNSEndpoint", namespace: "ouroboros" };
const LABELS = { "app.kubernetes.io/managed-by": "ouroboros" };

function endpoint(host: string, targets: readonly string[]) {
  return { endpoints: [{ dnsName: host, recordType: "A", recordTTL: 60, targets: [...targets] }] };
}

function desired(name: string, host: string, targets: readonly string[]): DesiredObject {
  const fields = { labels: LABELS, annotations: {}, spec: endpoint(host, targets) };
  return { name, ...fields, manifest: { apiVersion: "v1", kind: "X", metadata: { name } } };
}

function observed(name: string, host: string, targets: readonly string[]): ObservedObject {
  return {
    name,
    uid: `uid-${name}`,
    resourceVersion: "7",
    labels: LABELS,
    annotations: {},
    spec: endpoint(host, targets),
  };
}

Deno.test("owned fields render as YAML with sorted keys and lists in their order", () => {
  assert.equal(
    ownedFieldsText({ labels: { b: "2", a: "1" }, annotations: {}, spec: { list: ["z", "a"] } }),
    'annotations: {}\nlabels:\n  a: "1"\n  b: "2"\nspec:\n  list:\n    - z\n    - a\n',
  );
});

Deno.test("the diff of planned writes: a section per object, creates then updates then deletes", () => {
  const cases: { name: string; writes: Parameters<typeof ownedObjectsDiff>[0]; expected: string }[] = [
    { name: "nothing to write", writes: { creates: [], updates: [], deletes: [] }, expected: "" },
    {
      name: "an update shows only the changed target, with context",
      writes: {
        creates: [],
        updates: [{
          desired: desired("a-v4", "a.example.com", ["10.0.0.2"]),
          observed: observed("a-v4", "a.example.com", ["10.0.0.1"]),
          patch: {},
        }],
        deletes: [],
      },
      expected: "--- a/ouroboros/DNSEndpoint/a-v4\n+++ b/ouroboros/DNSEndpoint/a-v4\n" +
        "@@ -7,4 +7,4 @@\n       recordTTL: 60\n       recordType: A\n       targets:\n" +
        "-        - 10.0.0.1\n+        - 10.0.0.2\n",
    },
  ];
  for (const { name, writes, expected } of cases) {
    assert.equal(ownedObjectsDiff(writes, PLACE), expected, name);
  }

  const all = ownedObjectsDiff({
    creates: [desired("new-v4", "new.example.com", ["10.0.0.1"])],
    updates: [{
      desired: desired("a-v4", "a.example.com", ["10.0.0.2"]),
      observed: observed("a-v4", "a.example.com", ["10.0.0.1"]),
      patch: {},
    }],
    deletes: [observed("gone-v4", "gone.example.com", ["10.0.0.1"])],
  }, PLACE);
  assert.deepEqual(
    [...all.matchAll(/^\+\+\+ b\/(.+)$/gm)].map(([, name]) => name),
    ["ouroboros/DNSEndpoint/new-v4", "ouroboros/DNSEndpoint/a-v4", "ouroboros/DNSEndpoint/gone-v4"],
  );
  assert.match(all, /^@@ -0,0 \+1,10 @@\n\+annotations: \{\}\n/m, "a create diffs from nothing");
  assert.match(all, /^@@ -1,10 \+0,0 @@\n-annotations: \{\}\n/m, "a delete diffs to nothing");
  assert.ok(all.split("\n").includes("-    - dnsName: gone.example.com"));
});
