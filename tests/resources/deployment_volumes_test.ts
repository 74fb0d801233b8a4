import assert from "node:assert/strict";
import { decodeDeploymentVolumes } from "../../lib/resources/deployment_volumes.ts";

function raw(podSpec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { namespace: "kube-system", name: "coredns", resourceVersion: "1" },
    spec: { template: { spec: podSpec } },
  };
}

Deno.test("deployment volumes: ConfigMap volumes with their items, other volumes left out", () => {
  const decoded = decodeDeploymentVolumes(raw({
    volumes: [
      { name: "config", configMap: { name: "coredns", items: [{ key: "Corefile", path: "Corefile" }] } },
      { name: "custom", configMap: { name: "coredns-custom" } },
      { name: "tmp", emptyDir: {} },
    ],
  }));
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.configMapVolumes, [
    { name: "config", configMap: "coredns", items: ["Corefile"] },
    { name: "custom", configMap: "coredns-custom" },
  ]);
});

Deno.test("deployment volumes: mounts of init and app containers, subPath and subPathExpr kept", () => {
  const decoded = decodeDeploymentVolumes(raw({
    initContainers: [{
      name: "init",
      volumeMounts: [{ name: "custom", mountPath: "/x", subPathExpr: "$(A)" }],
    }],
    containers: [{
      name: "coredns",
      volumeMounts: [
        { name: "custom", mountPath: "/etc/coredns/custom" },
        { name: "custom", mountPath: "/etc/coredns/one", subPath: "one" },
        { name: "config", mountPath: "/etc/coredns", subPath: "" },
      ],
    }],
  }));
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.mounts, [
    { container: "init", volume: "custom", mountPath: "/x", subPath: "$(A)" },
    { container: "coredns", volume: "custom", mountPath: "/etc/coredns/custom" },
    { container: "coredns", volume: "custom", mountPath: "/etc/coredns/one", subPath: "one" },
    { container: "coredns", volume: "config", mountPath: "/etc/coredns" },
  ]);
});
