import assert from "node:assert/strict";
import { decodeDnsEndpoint, DNS_ENDPOINT } from "../../lib/resources/dns_endpoint.ts";
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

Deno.test("DNS_ENDPOINT is external-dns' v1alpha1 dnsendpoints resource", () => {
  assert.equal(
    resourcePath(DNS_ENDPOINT, { namespace: "n" }),
    "/apis/externaldns.k8s.io/v1alpha1/namespaces/n/dnsendpoints",
  );
  assert.equal(DNS_ENDPOINT.decode, decodeDnsEndpoint);
});
