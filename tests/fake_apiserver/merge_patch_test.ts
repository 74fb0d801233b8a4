import assert from "node:assert/strict";
import type { Json } from "../support/fake_apiserver/json.ts";
import { mergePatch, strategicMergePatch } from "../support/fake_apiserver/merge_patch.ts";

Deno.test("merge patch (RFC 7386): objects merge key by key, null deletes, everything else replaces", () => {
  const cases: [Json, Json, Json][] = [
    [{ a: "b" }, { a: "c" }, { a: "c" }],
    [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
    [{ a: "b" }, { a: null }, {}],
    [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
    [{ a: ["b"] }, { a: "c" }, { a: "c" }],
    [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
    [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
    [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }], // arrays are replaced, never merged
    [["a", "b"], ["c", "d"], ["c", "d"]],
    [{ a: "b" }, ["c"], ["c"]],
    [{ a: "foo" }, null, null],
    [{ a: "foo" }, "bar", "bar"],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }], // nulls already in the target stay
    [[1, 2], { a: "b", c: null }, { a: "b" }], // a non-object target becomes an object
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ];
  for (const [target, patch, expected] of cases) {
    assert.deepEqual(
      mergePatch(target, patch),
      expected,
      `${JSON.stringify(target)} + ${JSON.stringify(patch)}`,
    );
  }
});

Deno.test("merge patch does not modify its inputs", () => {
  const target = { data: { a: "1", b: "2" }, metadata: { labels: { x: "y" } } };
  const patch = { data: { a: null, c: "3" } };
  const before = JSON.stringify([target, patch]);
  const result = mergePatch(target, patch);
  assert.deepEqual(result, { data: { b: "2", c: "3" }, metadata: { labels: { x: "y" } } });
  assert.equal(JSON.stringify([target, patch]), before);
});

Deno.test("strategic merge patch is applied as a merge patch without its $-directives", () => {
  const target = { spec: { replicas: 2, paused: true }, data: { a: "1" } };
  const patch = {
    spec: { replicas: 0, paused: null, $retainKeys: ["replicas"] },
    data: { b: "2" },
    $setElementOrder: [],
  };
  assert.deepEqual(strategicMergePatch(target, patch), { spec: { replicas: 0 }, data: { a: "1", b: "2" } });
});
