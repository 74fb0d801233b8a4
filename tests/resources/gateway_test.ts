import assert from "node:assert/strict";
import { decodeGateway, GATEWAY } from "../../lib/resources/gateway.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "gw", namespace: "infra", resourceVersion: "9" };

Deno.test("decodeGateway keeps the class, listeners and status addresses", () => {
  const decoded = decodeGateway({
    apiVersion: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    metadata: meta,
    spec: {
      gatewayClassName: "cilium",
      listeners: [
        { name: "http", protocol: "HTTP", port: 80, allowedRoutes: { namespaces: { from: "All" } } },
        {
          name: "https",
          hostname: "*.example.com",
          protocol: "HTTPS",
          port: 443,
          tls: { mode: "Terminate" },
        },
      ],
    },
    status: { addresses: [{ type: "IPAddress", value: "198.51.100.4" }, { value: "198.51.100.5" }] },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec, {
    gatewayClassName: "cilium",
    listeners: [
      { name: "http", protocol: "HTTP", port: 80 },
      { name: "https", hostname: "*.example.com", protocol: "HTTPS", port: 443 },
    ],
  });
  assert.deepEqual(decoded.value.status.addresses, [
    { type: "IPAddress", value: "198.51.100.4" },
    { type: "IPAddress", value: "198.51.100.5" },
  ]);
});

Deno.test("decodeGateway accepts a Gateway with only its class", () => {
  const decoded = decodeGateway({ metadata: meta, spec: { gatewayClassName: "x" } });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec.listeners, []);
  assert.deepEqual(decoded.value.status.addresses, []);
});

Deno.test("decodeGateway refuses malformed fields, naming the field", async (t) => {
  const listener = { name: "http", protocol: "HTTP", port: 80 };
  const cases: readonly [string, unknown, string][] = [
    ["no spec", { metadata: meta }, "spec.gatewayClassName is missing"],
    [
      "class a number",
      { metadata: meta, spec: { gatewayClassName: 1 } },
      "spec.gatewayClassName is a number, not a string",
    ],
    [
      "listeners an object",
      { metadata: meta, spec: { gatewayClassName: "x", listeners: {} } },
      "spec.listeners is an object, not a list",
    ],
    ["listener without name", {
      metadata: meta,
      spec: { gatewayClassName: "x", listeners: [{ protocol: "HTTP", port: 80 }] },
    }, "spec.listeners[0].name is missing"],
    ["hostname a number", {
      metadata: meta,
      spec: { gatewayClassName: "x", listeners: [{ ...listener, hostname: 3 }] },
    }, "spec.listeners[0].hostname is a number, not a string"],
    ["no protocol", {
      metadata: meta,
      spec: { gatewayClassName: "x", listeners: [listener, { name: "b", port: 81 }] },
    }, "spec.listeners[1].protocol is missing"],
    ["port a string", {
      metadata: meta,
      spec: { gatewayClassName: "x", listeners: [{ ...listener, port: "80" }] },
    }, "spec.listeners[0].port is a string, not a whole number"],
    ["port fractional", {
      metadata: meta,
      spec: { gatewayClassName: "x", listeners: [{ ...listener, port: 80.5 }] },
    }, "spec.listeners[0].port is a number, not a whole number"],
    ["port out of range", {
      metadata: meta,
      spec: { gatewayClassName: "x", listeners: [{ ...listener, port: 70000 }] },
    }, "spec.listeners[0].port is 70000, not a port (1-65535)"],
    ["address without value", {
      metadata: meta,
      spec: { gatewayClassName: "x" },
      status: { addresses: [{ type: "IPAddress" }] },
    }, "status.addresses[0].value is missing"],
    ["HTTPRoute kind", { kind: "HTTPRoute", metadata: meta }, 'kind is "HTTPRoute", expected "Gateway"'],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeGateway(raw), { ok: false, reason }));
  }
});

Deno.test("GATEWAY is the Gateway API v1 gateways resource", () => {
  assert.equal(
    resourcePath(GATEWAY, { namespace: "infra" }),
    "/apis/gateway.networking.k8s.io/v1/namespaces/infra/gateways",
  );
  assert.equal(GATEWAY.decode, decodeGateway);
});
