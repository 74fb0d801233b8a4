import assert from "node:assert/strict";
import { decodeEndpointSlice, ENDPOINT_SLICE } from "../../lib/resources/endpoint_slice.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = {
  name: "kubernetes",
  namespace: "default",
  resourceVersion: "200",
  labels: { "kubernetes.io/service-name": "kubernetes" },
};

Deno.test("decodeEndpointSlice keeps the family, addresses, node names and all three ready states", () => {
  const decoded = decodeEndpointSlice({
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: meta,
    addressType: "IPv4",
    endpoints: [
      { addresses: ["10.0.0.1"], conditions: { ready: true, serving: true }, nodeName: "cp-1", zone: "a" },
      { addresses: ["10.0.0.2"], conditions: { ready: false, terminating: true }, nodeName: "cp-2" },
      { addresses: ["10.0.0.3"], conditions: {} },
      { addresses: ["10.0.0.4", "10.0.0.5"] },
      { addresses: ["10.0.0.6"], conditions: { ready: null }, nodeName: "" },
    ],
    ports: [{ name: "https", port: 6443, protocol: "TCP" }],
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.equal(decoded.value.addressType, "IPv4");
  assert.deepEqual(decoded.value.metadata.labels, { "kubernetes.io/service-name": "kubernetes" });
  assert.deepEqual(decoded.value.endpoints, [
    { addresses: ["10.0.0.1"], conditions: { ready: true }, nodeName: "cp-1" },
    { addresses: ["10.0.0.2"], conditions: { ready: false }, nodeName: "cp-2" },
    { addresses: ["10.0.0.3"], conditions: {} },
    { addresses: ["10.0.0.4", "10.0.0.5"], conditions: {} },
    { addresses: ["10.0.0.6"], conditions: {} },
  ]);
  assert.equal("ready" in decoded.value.endpoints[2]!.conditions, false, "absent ready is not false");
});

Deno.test("decodeEndpointSlice accepts a slice without endpoints (a Service with no backends)", () => {
  const decoded = decodeEndpointSlice({ metadata: meta, addressType: "FQDN", endpoints: null });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.endpoints, []);
  assert.equal(decoded.value.addressType, "FQDN");
});

Deno.test("decodeEndpointSlice refuses malformed fields, naming the field", async (t) => {
  const cases: readonly [string, unknown, string][] = [
    ["no addressType", { metadata: meta, endpoints: [] }, "addressType is missing"],
    ["addressType a number", { metadata: meta, addressType: 4 }, "addressType is a number, not a string"],
    [
      "endpoints a map",
      { metadata: meta, addressType: "IPv4", endpoints: { a: 1 } },
      "endpoints is an object, not a list",
    ],
    [
      "an address a number",
      { metadata: meta, addressType: "IPv4", endpoints: [{ addresses: ["10.0.0.1"] }, { addresses: [7] }] },
      "endpoints[1].addresses[0] is a number, not a string",
    ],
    [
      "ready a string",
      { metadata: meta, addressType: "IPv4", endpoints: [{ addresses: [], conditions: { ready: "yes" } }] },
      "endpoints[0].conditions.ready is a string, not a boolean",
    ],
    [
      "nodeName a list",
      { metadata: meta, addressType: "IPv4", endpoints: [{ addresses: [], nodeName: ["n"] }] },
      "endpoints[0].nodeName is an array, not a string",
    ],
    [
      "the old v1beta1 version",
      { apiVersion: "discovery.k8s.io/v1beta1", metadata: meta, addressType: "IPv4" },
      'apiVersion is "discovery.k8s.io/v1beta1", expected "discovery.k8s.io/v1"',
    ],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeEndpointSlice(raw), { ok: false, reason }));
  }
});

Deno.test("ENDPOINT_SLICE is the namespaced discovery.k8s.io/v1 endpointslices resource", () => {
  assert.equal(
    resourcePath(ENDPOINT_SLICE, { namespace: "default" }),
    "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
  );
  assert.equal(ENDPOINT_SLICE.decode, decodeEndpointSlice);
});
