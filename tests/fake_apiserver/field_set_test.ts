import assert from "node:assert/strict";
import {
  compareObjects,
  type FieldPath,
  FieldSet,
  fromFieldsV1,
  leafFields,
  mergeConfiguration,
  pathString,
  toFieldsV1,
  withoutFields,
  withoutNulls,
} from "../support/fake_apiserver/field_set.ts";
import type { JsonMap } from "../support/fake_apiserver/json.ts";
import { prng } from "../support/random.ts";

const strings = (set: FieldSet) => set.paths().map(pathString);

Deno.test("leaf fields: scalars and lists, never the server's metadata, apiVersion, kind, nulls or empty maps", () => {
  const cases: [JsonMap, string[]][] = [
    [{ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a", namespace: "x" } }, []],
    [
      {
        metadata: {
          name: "a",
          uid: "u",
          resourceVersion: "3",
          generation: 2,
          creationTimestamp: "t",
          managedFields: [],
          labels: { app: "x" },
        },
      },
      [".metadata.labels.app"],
    ],
    [{ spec: { ports: [{ port: 80 }], clusterIP: "None" } }, [".spec.clusterIP", ".spec.ports"]],
    [{ data: {}, spec: { selector: null }, status: { a: { b: {} } } }, []],
    [{ data: { "a.b/c": "1" } }, [".data.a.b/c"]],
  ];
  for (const [object, expected] of cases) {
    assert.deepEqual(strings(leafFields(object)), expected, JSON.stringify(object));
  }
});

Deno.test("compare: added maps come with their keys; spec, status and metadata are never fields themselves", () => {
  const cases: [JsonMap, JsonMap, { added: string[]; modified: string[]; removed: string[] }][] = [
    [{}, { data: { k: "v" } }, { added: [".data", ".data.k"], modified: [], removed: [] }],
    [{}, { spec: { type: "ClusterIP" } }, { added: [".spec.type"], modified: [], removed: [] }],
    [{}, { metadata: { labels: { a: "1" } } }, {
      added: [".metadata.labels", ".metadata.labels.a"],
      modified: [],
      removed: [],
    }],
    [{ data: { a: "1", b: "2" } }, { data: { a: "2" } }, {
      added: [],
      modified: [".data.a"],
      removed: [".data.b"],
    }],
    [{ spec: { ports: [1] } }, { spec: { ports: [1, 2] } }, {
      added: [],
      modified: [".spec.ports"],
      removed: [],
    }],
    [{ spec: { x: "1" } }, { spec: { x: { y: "1" } } }, {
      added: [".spec.x.y"],
      modified: [".spec.x"],
      removed: [],
    }],
    [{ data: { a: "1" } }, { data: { a: "1" } }, { added: [], modified: [], removed: [] }],
    [{ data: { a: "1" } }, {}, { added: [], modified: [], removed: [".data", ".data.a"] }],
    [{ metadata: { resourceVersion: "1" } }, { metadata: { resourceVersion: "2" } }, {
      added: [],
      modified: [],
      removed: [],
    }],
  ];
  for (const [before, after, expected] of cases) {
    const result = compareObjects(before, after);
    assert.deepEqual(
      { added: strings(result.added), modified: strings(result.modified), removed: strings(result.removed) },
      expected,
      `${JSON.stringify(before)} → ${JSON.stringify(after)}`,
    );
  }
});

Deno.test("fieldsV1: `.` marks a member with children, keys are sorted, and list items collapse into the list", () => {
  const set = FieldSet.of([["metadata", "labels"], ["metadata", "labels", "b"], ["metadata", "labels", "a"], [
    "spec",
    "clusterIP",
  ]]);
  const encoded = toFieldsV1(set);
  assert.deepEqual(encoded, {
    "f:metadata": { "f:labels": { ".": {}, "f:a": {}, "f:b": {} } },
    "f:spec": { "f:clusterIP": {} },
  });
  assert.deepEqual(Object.keys((encoded["f:metadata"] as JsonMap)["f:labels"] as JsonMap), [
    ".",
    "f:a",
    "f:b",
  ]);
  const real = {
    "f:spec": {
      "f:ports": { ".": {}, 'k:{"port":80,"protocol":"TCP"}': { ".": {}, "f:port": {} } },
      "f:type": {},
    },
  };
  assert.deepEqual(strings(fromFieldsV1(real)), [".spec.ports", ".spec.type"]);
  assert.deepEqual(strings(fromFieldsV1("not fields")), []);
});

Deno.test("property: fieldsV1 written and read back is the same set", () => {
  const random = prng(12);
  const keys = ["a", "b", "c.d", "e/f"];
  for (let round = 0; round < 300; round++) {
    const paths: FieldPath[] = [];
    const count = Math.floor(random() * 8);
    for (let i = 0; i < count; i++) {
      const depth = 1 + Math.floor(random() * 4);
      paths.push(Array.from({ length: depth }, () => keys[Math.floor(random() * keys.length)]!));
    }
    const set = FieldSet.of(paths);
    assert.ok(fromFieldsV1(toFieldsV1(set)).equals(set), JSON.stringify(paths));
  }
});

Deno.test("withoutFields removes the paths and the maps they leave empty, never metadata; inputs untouched", () => {
  const object = {
    metadata: { name: "a", labels: { x: "1" } },
    data: { k: "v" },
    spec: { a: { b: "1" }, c: "2" },
  };
  const before = JSON.stringify(object);
  assert.deepEqual(
    withoutFields(object, [["metadata", "labels", "x"], ["data", "k"], ["spec", "a", "b"], ["nope", "x"]]),
    {
      metadata: { name: "a" },
      spec: { c: "2" },
    },
  );
  assert.deepEqual(withoutFields({ metadata: { labels: { x: "1" } } }, [["metadata", "labels", "x"]]), {
    metadata: {},
  });
  assert.equal(JSON.stringify(object), before);
});

Deno.test("apply merge: maps merge key by key, lists and scalars are replaced; nulls in a configuration are dropped", () => {
  assert.deepEqual(
    mergeConfiguration(
      { metadata: { labels: { a: "1", b: "2" } }, spec: { ports: [1, 2], type: "ClusterIP" } },
      { metadata: { labels: { b: "3" } }, spec: { ports: [3] } },
    ),
    { metadata: { labels: { a: "1", b: "3" } }, spec: { ports: [3], type: "ClusterIP" } },
  );
  assert.deepEqual(withoutNulls({ a: null, b: { c: null, d: 1 }, e: [null] }), { b: { d: 1 }, e: [null] });
});
