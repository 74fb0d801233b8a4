import assert from "node:assert/strict";
import { resourcePath } from "../../lib/resources/resource_type.ts";
import { decodeService, SERVICE } from "../../lib/resources/service.ts";

const meta = { name: "ingress-nginx-controller", namespace: "ingress-nginx", resourceVersion: "3" };

Deno.test("decodeService keeps type, cluster IPs, ports and selector", () => {
  const decoded = decodeService({
    apiVersion: "v1",
    kind: "Service",
    metadata: meta,
    spec: {
      type: "LoadBalancer",
      clusterIP: "10.96.12.5",
      clusterIPs: ["10.96.12.5", "fd00::5"],
      ipFamilies: ["IPv4", "IPv6"],
      ports: [
        { name: "http", port: 80, targetPort: "http", protocol: "TCP", nodePort: 30080 },
        { name: "https", port: 443, targetPort: 8443 },
        { port: 53, protocol: "UDP" },
      ],
      selector: { "app.kubernetes.io/name": "ingress-nginx" },
    },
    status: { loadBalancer: {} },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec, {
    type: "LoadBalancer",
    clusterIP: "10.96.12.5",
    clusterIPs: ["10.96.12.5", "fd00::5"],
    ports: [
      { name: "http", protocol: "TCP", port: 80, targetPort: "http" },
      { name: "https", protocol: "TCP", port: 443, targetPort: 8443 },
      { protocol: "UDP", port: 53 },
    ],
    selector: { "app.kubernetes.io/name": "ingress-nginx" },
  });
});

Deno.test("decodeService defaults the type to ClusterIP and keeps a headless Service's None", () => {
  const decoded = decodeService({ metadata: meta, spec: { clusterIP: "None" } });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec, {
    type: "ClusterIP",
    clusterIP: "None",
    clusterIPs: [],
    ports: [],
    selector: {},
  });
});

Deno.test("decodeService refuses malformed fields, naming the field", async (t) => {
  const cases: readonly [string, unknown, string][] = [
    ["type a number", { metadata: meta, spec: { type: 1 } }, "spec.type is a number, not a string"],
    [
      "clusterIP a list",
      { metadata: meta, spec: { clusterIP: ["a"] } },
      "spec.clusterIP is an array, not a string",
    ],
    [
      "clusterIPs a string",
      { metadata: meta, spec: { clusterIPs: "10.0.0.1" } },
      "spec.clusterIPs is a string, not a list",
    ],
    ["port missing", { metadata: meta, spec: { ports: [{ name: "x" }] } }, "spec.ports[0].port is missing"],
    [
      "port a string",
      { metadata: meta, spec: { ports: [{ port: "80" }] } },
      "spec.ports[0].port is a string, not a whole number",
    ],
    [
      "port zero",
      { metadata: meta, spec: { ports: [{ port: 0 }] } },
      "spec.ports[0].port is 0, not a port (1-65535)",
    ],
    [
      "targetPort an object",
      { metadata: meta, spec: { ports: [{ port: 80, targetPort: {} }] } },
      "spec.ports[0].targetPort is an object, not a number or a string",
    ],
    [
      "selector value a boolean",
      { metadata: meta, spec: { selector: { app: true } } },
      "spec.selector.app is a boolean, not a string",
    ],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeService(raw), { ok: false, reason }));
  }
});

Deno.test("SERVICE is the core v1 services resource", () => {
  assert.equal(resourcePath(SERVICE, { namespace: "a", name: "b" }), "/api/v1/namespaces/a/services/b");
  assert.equal(SERVICE.decode, decodeService);
});
