import assert from "node:assert/strict";
import { decodeDeployment, DEPLOYMENT } from "../../lib/resources/deployment.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = { name: "coredns", namespace: "kube-system", resourceVersion: "8" };

Deno.test("decodeDeployment keeps the desired and current replica counts", () => {
  const decoded = decodeDeployment({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta,
    spec: { replicas: 3, selector: { matchLabels: { k8s: "dns" } }, template: {} },
    status: { replicas: 2, readyReplicas: 2 },
  });
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual([decoded.value.metadata.name, decoded.value.spec, decoded.value.status], [
    "coredns",
    { replicas: 3 },
    { replicas: 2 },
  ]);
});

Deno.test("decodeDeployment applies the API defaults: 1 desired, 0 current", () => {
  const decoded = decodeDeployment({ metadata: meta });
  assert.ok(decoded.ok);
  assert.deepEqual([decoded.value.spec, decoded.value.status], [{ replicas: 1 }, { replicas: 0 }]);
});

Deno.test("decodeDeployment keeps an explicit zero", () => {
  const decoded = decodeDeployment({ metadata: meta, spec: { replicas: 0 } });
  assert.ok(decoded.ok);
  assert.equal(decoded.value.spec.replicas, 0);
});

Deno.test("decodeDeployment refuses malformed fields, naming the field", async (t) => {
  const cases: readonly [string, unknown, string][] = [
    [
      "spec.replicas a string",
      { metadata: meta, spec: { replicas: "3" } },
      "spec.replicas is a string, not a whole number",
    ],
    [
      "spec.replicas fractional",
      { metadata: meta, spec: { replicas: 1.5 } },
      "spec.replicas is a number, not a whole number",
    ],
    [
      "status.replicas null-safe but not a list",
      { metadata: meta, status: { replicas: [] } },
      "status.replicas is an array, not a whole number",
    ],
    ["status a string", { metadata: meta, status: "ok" }, "status is a string, not an object"],
  ];
  for (const [name, raw, reason] of cases) {
    await t.step(name, () => assert.deepEqual(decodeDeployment(raw), { ok: false, reason }));
  }
});

Deno.test("DEPLOYMENT is the apps/v1 deployments resource (with its scale subresource path)", () => {
  assert.equal(
    resourcePath(DEPLOYMENT, { namespace: "kube-system", name: "coredns", subresource: "scale" }),
    "/apis/apps/v1/namespaces/kube-system/deployments/coredns/scale",
  );
  assert.equal(DEPLOYMENT.decode, decodeDeployment);
});
