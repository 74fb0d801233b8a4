import assert from "node:assert/strict";
import { decodeTlsRoute, TLS_ROUTE_VERSIONS } from "../../lib/resources/tls_route.ts";

function tlsRoute(apiVersion: string): Record<string, unknown> {
  return {
    apiVersion,
    kind: "TLSRoute",
    metadata: { name: "db", namespace: "shop", resourceVersion: "9" },
    spec: {
      hostnames: ["db.example.com"],
      parentRefs: [{ name: "gw" }],
      rules: [{ backendRefs: [{ name: "db" }] }],
    },
  };
}

Deno.test("TLSRoute versions are tried newest first: v1, v1alpha3, v1alpha2", () => {
  assert.deepEqual(TLS_ROUTE_VERSIONS.map((type) => type.version), ["v1", "v1alpha3", "v1alpha2"]);
  assert.ok(TLS_ROUTE_VERSIONS.every((type) => type.kind === "TLSRoute" && type.plural === "tlsroutes"));
});

Deno.test("decodeTlsRoute reads every served version, and refuses an unknown one", async (t) => {
  for (const version of ["v1", "v1alpha3", "v1alpha2"]) {
    await t.step(version, () => {
      const decoded = decodeTlsRoute(tlsRoute(`gateway.networking.k8s.io/${version}`));
      assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
      assert.deepEqual(decoded.value.spec.hostnames, ["db.example.com"]);
      assert.equal(decoded.value.spec.parentRefs[0]?.namespace, "shop");
    });
  }
  await t.step("v1alpha1 (never served)", () => {
    const decoded = decodeTlsRoute(tlsRoute("gateway.networking.k8s.io/v1alpha1"));
    assert.deepEqual(decoded, {
      ok: false,
      reason: 'apiVersion is "gateway.networking.k8s.io/v1alpha1", expected "gateway.networking.k8s.io/v1"',
    });
  });
  await t.step("not an object", () => assert.equal(decodeTlsRoute("TLSRoute").ok, false));
});
