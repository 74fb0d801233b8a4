import assert from "node:assert/strict";
import { decodeRecords, RECORDS } from "../../lib/resources/records.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "egress", namespace: "shop", resourceVersion: "7" };

Deno.test("decodeRecords reads par's sample: both entries, namespaces kept as written", () => {
  const decoded = decodeRecords({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: meta,
    spec: {
      a: [
        {
          namespaces: ["shop", "test"],
          labels: { app: "example-proxy" },
          hostname: "google.com",
          "ip-addresses": ["1.1.1.1", "1.1.1.2"],
          "forward-type": "proxy",
        },
        {
          labels: { app: "example-manager" },
          hostname: "Google.COM.",
          "ip-addresses": ["1.1.1.3"],
          "forward-type": "manager",
        },
      ],
    },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec.a, [
    {
      index: 0,
      labels: { app: "example-proxy" },
      hostname: "google.com",
      ipAddresses: ["1.1.1.1", "1.1.1.2"],
      forwardType: "proxy",
      namespaces: ["shop", "test"],
    },
    {
      index: 1,
      labels: { app: "example-manager" },
      hostname: "Google.COM.",
      ipAddresses: ["1.1.1.3"],
      forwardType: "manager",
    },
  ]);
  assert.deepEqual(decoded.value.problems, []);
});

Deno.test("decodeRecords: a mistyped entry is a problem naming its path, the others still count", () => {
  const decoded = decodeRecords({
    metadata: meta,
    spec: {
      a: [
        {
          labels: "app=web",
          hostname: "a.example.com",
          "ip-addresses": ["10.0.0.1"],
          "forward-type": "manager",
        },
        "not an entry",
        null,
        { hostname: "b.example.com", "ip-addresses": "10.0.0.2", "forward-type": "manager" },
        { hostname: "c.example.com", "ip-addresses": ["10.0.0.3"], "forward-type": "manager" },
        { hostname: 42 },
      ],
    },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec.a.map((entry) => [entry.index, entry.hostname]), [[
    4,
    "c.example.com",
  ]]);
  assert.deepEqual(decoded.value.problems, [
    "spec.a[0].labels is a string, not a map; the entry is ignored",
    "spec.a[1] is a string, not an object; the entry is ignored",
    "spec.a[3].ip-addresses is a string, not a list; the entry is ignored",
    "spec.a[5].hostname is a number, not a string; the entry is ignored",
  ]);
});

Deno.test("decodeRecords: a spec.a that is not a list, or a spec that is not an object, reads no entry", () => {
  for (
    const [spec, problem] of [
      [{ a: { hostname: "a.example.com" } }, "spec.a is an object, not a list; no entry is read"],
      ["records", "spec is a string, not an object; no entry is read"],
    ] as const
  ) {
    const decoded = decodeRecords({ metadata: meta, spec });
    assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
    assert.deepEqual(decoded.value.spec.a, []);
    assert.deepEqual(decoded.value.problems, [problem]);
  }
});

Deno.test("decodeRecords: absent fields read as empty, and an object without spec has no entry", () => {
  const decoded = decodeRecords({ metadata: meta, spec: { a: [{}] } });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec.a, [{
    index: 0,
    labels: {},
    hostname: "",
    ipAddresses: [],
    forwardType: "",
  }]);
  const bare = decodeRecords({ metadata: meta });
  assert.ok(bare.ok);
  assert.deepEqual(bare.value.spec.a, []);
});

Deno.test("decodeRecords still fails an object whose metadata is broken, or of another kind", () => {
  assert.deepEqual(decodeRecords({ metadata: { name: "x" } }), {
    ok: false,
    reason: "metadata.resourceVersion is missing",
  });
  assert.equal(decodeRecords({ kind: "DNSEndpoint", metadata: meta }).ok, false);
});

Deno.test("RECORDS is par's namespaced dns.par.dev/v1alpha1 records resource", () => {
  assert.equal(
    resourcePath(RECORDS, { namespace: "shop" }),
    "/apis/dns.par.dev/v1alpha1/namespaces/shop/records",
  );
  assert.equal(RECORDS.kind, "Records");
  assert.equal(RECORDS.decode, decodeRecords);
});
