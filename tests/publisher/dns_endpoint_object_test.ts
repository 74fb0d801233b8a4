import assert from "node:assert/strict";
import { dnsEndpointObject } from "../../lib/publisher/dns_endpoint_object.ts";

const ENDPOINT = {
  dnsName: "api.example.com",
  recordType: "A" as const,
  recordTTL: 60,
  targets: ["192.0.2.1"],
};

Deno.test("a DNSEndpoint: the writer compares labels, annotations and the whole endpoint list; empty annotations are left out", () => {
  const owner = { apiVersion: "apps/v1", kind: "Deployment", name: "kuberture", uid: "u-1" };
  const built = dnsEndpointObject({
    name: "kuberture-api",
    namespace: "edge",
    labels: { "app.kubernetes.io/managed-by": "kuberture" },
    annotations: {},
    ownerReferences: [owner],
    endpoints: [ENDPOINT],
  });
  assert.equal(built.name, "kuberture-api");
  assert.deepEqual(built.spec, { endpoints: [ENDPOINT] });
  assert.deepEqual(built.manifest, {
    apiVersion: "externaldns.k8s.io/v1alpha1",
    kind: "DNSEndpoint",
    metadata: {
      name: "kuberture-api",
      namespace: "edge",
      labels: { "app.kubernetes.io/managed-by": "kuberture" },
      ownerReferences: [owner],
    },
    spec: { endpoints: [ENDPOINT] },
  });
  const annotated = dnsEndpointObject({
    name: "r",
    namespace: "edge",
    labels: {},
    annotations: { "ouroboros.lexfrei.tech/source": "ingress" },
    endpoints: [],
  });
  assert.deepEqual(annotated.manifest.metadata.annotations, { "ouroboros.lexfrei.tech/source": "ingress" });
  assert.equal("ownerReferences" in annotated.manifest.metadata, false);
});
