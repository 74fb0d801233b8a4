import assert from "node:assert/strict";
import { decodeDeployment, DEPLOYMENT } from "../../lib/resources/deployment.ts";
import { resourcePath } from "../../lib/resources/resource_type.ts";

const meta = {
  name: "web",
  namespace: "shop",
  resourceVersion: "3",
  labels: { app: "web" },
  annotations: { "ouroboros.dev/original-dns": "{}" },
};

function deployment(podSpec: Record<string, unknown>) {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: meta,
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web", tier: "front" }, annotations: { "checksum/config": "abc" } },
        spec: { containers: [{ name: "web", image: "nginx" }], ...podSpec },
      },
    },
  };
}

Deno.test("decodeDeployment keeps the metadata and the pod template's labels and annotations", () => {
  const decoded = decodeDeployment(deployment({}));
  assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
  assert.deepEqual(decoded.value.metadata.labels, { app: "web" });
  assert.deepEqual(decoded.value.metadata.annotations, { "ouroboros.dev/original-dns": "{}" });
  assert.deepEqual(decoded.value.spec.template.metadata, {
    labels: { app: "web", tier: "front" },
    annotations: { "checksum/config": "abc" },
  });
  assert.deepEqual(decoded.value.spec.template.spec, { hostNetwork: false }, "no DNS fields: none invented");
});

Deno.test("decodeDeployment keeps dnsConfig as written: absent fields absent, empty ones empty", () => {
  const podSpecs: Record<string, unknown>[] = [
    { dnsPolicy: "ClusterFirst" },
    { dnsConfig: {} },
    { dnsConfig: { searches: [] } },
    {
      dnsPolicy: "None",
      hostNetwork: true,
      dnsConfig: {
        nameservers: ["10.96.0.53"],
        searches: ["corp.example"],
        options: [{ name: "ndots", value: "2" }, { name: "edns0" }],
      },
    },
  ];
  for (const podSpec of podSpecs) {
    const decoded = decodeDeployment(deployment(podSpec));
    assert.ok(decoded.ok, decoded.ok ? "" : decoded.reason);
    assert.deepEqual(
      decoded.value.spec.template.spec,
      { hostNetwork: false, ...podSpec },
      JSON.stringify(podSpec),
    );
  }
});

Deno.test("decodeDeployment refuses a malformed dnsConfig, naming the field", () => {
  assert.deepEqual(decodeDeployment(deployment({ dnsConfig: { nameservers: "10.0.0.1" } })), {
    ok: false,
    reason: "spec.template.spec.dnsConfig.nameservers is a string, not a list",
  });
});

Deno.test("DEPLOYMENT is the namespaced apps/v1 deployments resource", () => {
  assert.equal(
    resourcePath(DEPLOYMENT, { namespace: "shop", name: "web" }),
    "/apis/apps/v1/namespaces/shop/deployments/web",
  );
  assert.equal(DEPLOYMENT.decode, decodeDeployment);
});
