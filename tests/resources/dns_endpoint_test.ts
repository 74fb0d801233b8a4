import assert from "node:assert/strict";
import {
  decodeDnsEndpoint,
  decodeObservedGeneration,
  DNS_ENDPOINT,
  type ObservedGeneration,
} from "../../lib/resources/dns_endpoint.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "ouroboros", namespace: "ingress-nginx", resourceVersion: "12" };

Deno.test("decodeDnsEndpoint keeps every endpoint field", () => {
  const decoded = decodeDnsEndpoint({
    apiVersion: "externaldns.k8s.io/v1alpha1",
    kind: "DNSEndpoint",
    metadata: meta,
    spec: {
      endpoints: [
        {
          dnsName: "shop.example.com",
          recordType: "A",
          targets: ["10.96.0.20"],
          recordTTL: 60,
          labels: { owner: "ouroboros" },
          providerSpecific: [{ name: "alias", value: "false" }, { name: "flag" }],
          setIdentifier: "x",
        },
        { dnsName: "www.example.com" },
      ],
    },
    status: { observedGeneration: 1 },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec.endpoints, [
    {
      dnsName: "shop.example.com",
      recordType: "A",
      targets: ["10.96.0.20"],
      recordTTL: 60,
      labels: { owner: "ouroboros" },
      providerSpecific: [{ name: "alias", value: "false" }, { name: "flag", value: "" }],
    },
    { dnsName: "www.example.com", targets: [], labels: {}, providerSpecific: [] },
  ]);
});

Deno.test("decodeDnsEndpoint accepts one without endpoints", () => {
  const decoded = decodeDnsEndpoint({ metadata: meta, spec: {} });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec.endpoints, []);
});

Deno.test("decodeDnsEndpoint refuses malformed fields, naming the field", async (t) => {
  const endpoint = { dnsName: "a.example", recordType: "A", targets: ["10.0.0.1"] };
  const withEndpoint = (extra: Record<string, unknown>) => ({
    metadata: meta,
    spec: { endpoints: [{ ...endpoint, ...extra }] },
  });
  const cases: readonly [string, unknown, string][] = [
    [
      "endpoints an object",
      { metadata: meta, spec: { endpoints: {} } },
      "spec.endpoints is an object, not a list",
    ],
    [
      "no dnsName",
      { metadata: meta, spec: { endpoints: [endpoint, { recordType: "A" }] } },
      "spec.endpoints[1].dnsName is missing",
    ],
    [
      "recordType a number",
      withEndpoint({ recordType: 1 }),
      "spec.endpoints[0].recordType is a number, not a string",
    ],
    [
      "targets a string",
      withEndpoint({ targets: "10.0.0.1" }),
      "spec.endpoints[0].targets is a string, not a list",
    ],
    [
      "recordTTL a string",
      withEndpoint({ recordTTL: "60" }),
      "spec.endpoints[0].recordTTL is a string, not a whole number",
    ],
    ["labels a list", withEndpoint({ labels: ["a"] }), "spec.endpoints[0].labels is an array, not a map"],
    [
      "providerSpecific without name",
      withEndpoint({ providerSpecific: [{ value: "x" }] }),
      "spec.endpoints[0].providerSpecific[0].name is missing",
    ],
    [
      "providerSpecific value a number",
      withEndpoint({ providerSpecific: [{ name: "a", value: 1 }] }),
      "spec.endpoints[0].providerSpecific[0].value is a number, not a string",
    ],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeDnsEndpoint(raw), { ok: false, reason }));
  }
});

Deno.test("decodeDnsEndpoint keeps generation, creationTimestamp and status.observedGeneration", () => {
  const decoded = decodeDnsEndpoint({
    metadata: { ...meta, generation: 4, creationTimestamp: "2026-01-02T03:04:05Z" },
    spec: {},
    status: { observedGeneration: 3 },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.equal(decoded.value.metadata.generation, 4);
  assert.equal(decoded.value.metadata.creationTimestamp, "2026-01-02T03:04:05Z");
  assert.deepEqual(decoded.value.status, { observedGeneration: { kind: "value", value: 3 } });
});

Deno.test("decodeDnsEndpoint reads any status.observedGeneration without failing the object", async (t) => {
  const cases: readonly [string, Record<string, unknown>, ObservedGeneration][] = [
    ["no status", {}, { kind: "absent" }],
    ["null status", { status: null }, { kind: "absent" }],
    ["empty status", { status: {} }, { kind: "absent" }],
    ["null observedGeneration", { status: { observedGeneration: null } }, { kind: "absent" }],
    ["status not an object", { status: "ready" }, { kind: "absent" }],
    ["zero", { status: { observedGeneration: 0 } }, { kind: "value", value: 0 }],
    ["a string", { status: { observedGeneration: "3" } }, { kind: "invalid", raw: '"3"' }],
    ["a fraction", { status: { observedGeneration: 1.5 } }, { kind: "invalid", raw: "1.5" }],
    ["an object", { status: { observedGeneration: { n: 1 } } }, { kind: "invalid", raw: '{"n":1}' }],
    ["a boolean", { status: { observedGeneration: true } }, { kind: "invalid", raw: "true" }],
  ];
  for (const [name, extra, want] of cases) {
    await t.step(name, () => {
      const decoded = decodeDnsEndpoint({ metadata: meta, spec: {}, ...extra });
      assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
      assert.deepEqual(decoded.value.status.observedGeneration, want);
      assert.equal(decoded.value.metadata.creationTimestamp, undefined, "absent when the server sent none");
    });
  }
});

Deno.test("decodeObservedGeneration reads a raw status", () => {
  assert.deepEqual(decodeObservedGeneration({ observedGeneration: 7 }), { kind: "value", value: 7 });
  assert.deepEqual(decodeObservedGeneration(undefined), { kind: "absent" });
  assert.deepEqual(decodeObservedGeneration({ observedGeneration: [] }), { kind: "invalid", raw: "[]" });
});

Deno.test("DNS_ENDPOINT is external-dns' v1alpha1 dnsendpoints resource", () => {
  assert.equal(
    resourcePath(DNS_ENDPOINT, { namespace: "n" }),
    "/apis/externaldns.k8s.io/v1alpha1/namespaces/n/dnsendpoints",
  );
  assert.equal(DNS_ENDPOINT.decode, decodeDnsEndpoint);
});
