import assert from "node:assert/strict";
import { decodeIngress, INGRESS } from "../../lib/resources/ingress.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const full = {
  apiVersion: "networking.k8s.io/v1",
  kind: "Ingress",
  metadata: {
    name: "web",
    namespace: "shop",
    uid: "u-1",
    resourceVersion: "42",
    generation: 3,
    labels: { app: "web" },
    annotations: { "kubernetes.io/ingress.class": "nginx" },
    managedFields: [{ manager: "kubectl" }],
  },
  spec: {
    ingressClassName: "nginx",
    defaultBackend: { service: { name: "web", port: { number: 80 } } },
    rules: [
      { host: "shop.example.com", http: { paths: [{ path: "/", pathType: "Prefix" }] } },
      { http: { paths: [] } },
    ],
    tls: [{ hosts: ["shop.example.com", "www.example.com"], secretName: "tls" }, { secretName: "no-hosts" }],
  },
  status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }, { hostname: "lb.example.net", ports: [] }] } },
};

Deno.test("decodeIngress keeps class, rule hosts, TLS hosts and load balancer addresses, and no labels or annotations", () => {
  const decoded = decodeIngress(full);
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value, {
    metadata: {
      name: "web",
      namespace: "shop",
      uid: "u-1",
      resourceVersion: "42",
      generation: 3,
      // Nothing reads them: a cache of 10,000 Ingresses does not hold them (issue 19).
      labels: {},
      annotations: {},
      ownerReferences: [],
    },
    spec: {
      ingressClassName: "nginx",
      rules: [{ host: "shop.example.com" }, {}],
      tls: [{ hosts: ["shop.example.com", "www.example.com"] }, { hosts: [] }],
    },
    status: { loadBalancer: { ingress: [{ ip: "203.0.113.7" }, { hostname: "lb.example.net" }] } },
  });
});

Deno.test("decodeIngress accepts a minimal list item (no kind, spec, status) with empty defaults", () => {
  const decoded = decodeIngress({ metadata: { name: "a", namespace: "n", resourceVersion: "1" } });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec, { rules: [], tls: [] });
  assert.deepEqual(decoded.value.status, { loadBalancer: { ingress: [] } });
});

Deno.test("decodeIngress treats null sections as absent, as the API server writes them", () => {
  const decoded = decodeIngress({
    metadata: { name: "a", namespace: "n", resourceVersion: "1", labels: null },
    spec: { rules: null, tls: [{ hosts: null }] },
    status: { loadBalancer: {} },
  });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.spec, { rules: [], tls: [{ hosts: [] }] });
});

Deno.test("decodeIngress does not look at labels or annotations, so malformed ones do not lose the Ingress", () => {
  const decoded = decodeIngress({
    metadata: { name: "a", namespace: "n", resourceVersion: "1", labels: { a: 1 }, annotations: [] },
    spec: { tls: [{ hosts: ["a.example.com"] }] },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec.tls, [{ hosts: ["a.example.com"] }]);
});

Deno.test("decodeIngress refuses malformed fields, naming the field", async (t) => {
  const meta = { name: "a", namespace: "n", resourceVersion: "1" };
  const cases: readonly [string, unknown, string][] = [
    ["not an object", "web", "Ingress is a string, not an object"],
    ["an array", [full], "Ingress is an array, not an object"],
    ["another kind", { ...full, kind: "Service" }, 'kind is "Service", expected "Ingress"'],
    [
      "an old apiVersion",
      { ...full, apiVersion: "extensions/v1beta1" },
      'apiVersion is "extensions/v1beta1", expected "networking.k8s.io/v1"',
    ],
    ["no metadata", { spec: {} }, "metadata is missing or not an object"],
    ["no name", { metadata: { resourceVersion: "1" } }, "metadata.name is missing"],
    ["no resourceVersion", { metadata: { name: "a" } }, "metadata.resourceVersion is missing"],
    ["spec a list", { metadata: meta, spec: [] }, "spec is an array, not an object"],
    [
      "class a number",
      { metadata: meta, spec: { ingressClassName: 5 } },
      "spec.ingressClassName is a number, not a string",
    ],
    ["rules an object", { metadata: meta, spec: { rules: {} } }, "spec.rules is an object, not a list"],
    [
      "rule a string",
      { metadata: meta, spec: { rules: ["a.example"] } },
      "spec.rules[0] is a string, not an object",
    ],
    [
      "host a number",
      { metadata: meta, spec: { rules: [{ host: "ok" }, { host: 7 }] } },
      "spec.rules[1].host is a number, not a string",
    ],
    [
      "tls hosts a string",
      { metadata: meta, spec: { tls: [{ hosts: "a.example" }] } },
      "spec.tls[0].hosts is a string, not a list",
    ],
    [
      "tls host a number",
      { metadata: meta, spec: { tls: [{ hosts: ["a", 1] }] } },
      "spec.tls[0].hosts[1] is a number, not a string",
    ],
    [
      "status ip a boolean",
      { metadata: meta, status: { loadBalancer: { ingress: [{ ip: true }] } } },
      "status.loadBalancer.ingress[0].ip is a boolean, not a string",
    ],
    ["status hostname an object", {
      metadata: meta,
      status: { loadBalancer: { ingress: [{ hostname: {} }] } },
    }, "status.loadBalancer.ingress[0].hostname is an object, not a string"],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => {
      assert.deepEqual(decodeIngress(raw), { ok: false, reason });
    });
  }
});

Deno.test("INGRESS describes networking.k8s.io/v1 ingresses and decodes with decodeIngress", () => {
  assert.equal(
    resourcePath(INGRESS, { namespace: "shop", name: "web" }),
    "/apis/networking.k8s.io/v1/namespaces/shop/ingresses/web",
  );
  assert.equal(INGRESS.decode, decodeIngress);
});

Deno.test("decodeIngress skips null list entries instead of losing the object's other hosts", () => {
  const decoded = decodeIngress({
    metadata: { name: "shop", namespace: "web", resourceVersion: "7" },
    spec: { tls: [null, { hosts: [null, "shop.example.com"] }], rules: [null, { host: "www.example.com" }] },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.spec.tls, [{ hosts: ["shop.example.com"] }]);
  assert.deepEqual(decoded.value.spec.rules, [{ host: "www.example.com" }]);
});
