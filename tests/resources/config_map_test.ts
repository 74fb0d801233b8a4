import assert from "node:assert/strict";
import { CONFIG_MAP, CONFIG_MAP_VERSION, decodeConfigMap } from "../../lib/resources/config_map.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "coredns", namespace: "kube-system", resourceVersion: "77" };

Deno.test("decodeConfigMap keeps text data, the binary keys and the immutable flag", () => {
  const decoded = decodeConfigMap({
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: meta,
    data: { Corefile: ".:53 {\n    forward . /etc/resolv.conf\n}\n" },
    binaryData: { "logo.png": "iVBORw0KGgo=" },
    immutable: true,
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.data, { Corefile: ".:53 {\n    forward . /etc/resolv.conf\n}\n" });
  assert.deepEqual(decoded.value.binaryDataKeys, ["logo.png"]);
  assert.equal(decoded.value.immutable, true);
});

Deno.test("decodeConfigMap accepts a ConfigMap without data", () => {
  const decoded = decodeConfigMap({ metadata: meta });
  assert.ok(decoded.ok);
  assert.deepEqual({
    data: decoded.value.data,
    keys: decoded.value.binaryDataKeys,
    immutable: decoded.value.immutable,
  }, {
    data: {},
    keys: [],
    immutable: false,
  });
});

Deno.test("decodeConfigMap refuses malformed fields, naming the field", async (t) => {
  const cases: readonly [string, unknown, string][] = [
    ["data a list", { metadata: meta, data: ["a"] }, "data is an array, not a map"],
    [
      "data value a number",
      { metadata: meta, data: { Corefile: "x", port: 53 } },
      "data.port is a number, not a string",
    ],
    ["binaryData a string", { metadata: meta, binaryData: "x" }, "binaryData is a string, not a map"],
    ["immutable a string", { metadata: meta, immutable: "true" }, "immutable is a string, not a boolean"],
    ["a Secret", { kind: "Secret", metadata: meta }, 'kind is "Secret", expected "ConfigMap"'],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeConfigMap(raw), { ok: false, reason }));
  }
});

Deno.test("CONFIG_MAP is the core v1 configmaps resource", () => {
  assert.equal(
    resourcePath(CONFIG_MAP, { namespace: "kube-system", name: "coredns" }),
    "/api/v1/namespaces/kube-system/configmaps/coredns",
  );
  assert.equal(CONFIG_MAP.decode, decodeConfigMap);
});

Deno.test("CONFIG_MAP_VERSION keeps a ConfigMap's identity and none of its data", () => {
  const decoded = CONFIG_MAP_VERSION.decode({
    kind: "ConfigMap",
    apiVersion: "v1",
    metadata: { ...meta, labels: { a: "b" } },
    data: { Corefile: ".:53 {}\n".repeat(1000) },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value, {
    metadata: { ...meta, uid: "", labels: {}, annotations: {}, ownerReferences: [] },
  });
  assert.equal(
    resourcePath(CONFIG_MAP_VERSION, { namespace: "kube-system", name: "coredns" }),
    resourcePath(CONFIG_MAP, { namespace: "kube-system", name: "coredns" }),
  );
  assert.deepEqual(CONFIG_MAP_VERSION.decode({ kind: "Secret", metadata: meta }), {
    ok: false,
    reason: 'kind is "Secret", expected "ConfigMap"',
  });
});
