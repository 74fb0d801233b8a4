import assert from "node:assert/strict";
import { type BackendSettings, resolveBackendHost } from "../../lib/proxy/backend.ts";

const NONE: BackendSettings = {
  targetHost: "",
  targetServiceName: "",
  targetServiceNamespace: "",
  clusterDomain: "cluster.local",
};

Deno.test("the backend host is --target-host, or composed from the Service and the cluster domain", async (t) => {
  const cases: readonly { name: string; settings: Partial<BackendSettings>; host: string }[] = [
    {
      name: "target-host wins over the Service",
      settings: {
        targetHost: "10.0.0.9",
        targetServiceName: "ingress",
        targetServiceNamespace: "ingress-nginx",
      },
      host: "10.0.0.9",
    },
    {
      name: "target-host alone",
      settings: { targetHost: "ingress.example.com" },
      host: "ingress.example.com",
    },
    {
      name: "composed on cluster.local",
      settings: { targetServiceName: "ingress-nginx-controller", targetServiceNamespace: "ingress-nginx" },
      host: "ingress-nginx-controller.ingress-nginx.svc.cluster.local",
    },
    {
      name: "composed on a detected cozy.local",
      settings: {
        targetServiceName: "ingress",
        targetServiceNamespace: "tenant-root",
        clusterDomain: "cozy.local",
      },
      host: "ingress.tenant-root.svc.cozy.local",
    },
    {
      name: "a trailing dot on the domain is dropped",
      settings: {
        targetServiceName: "ingress",
        targetServiceNamespace: "ingress",
        clusterDomain: "cozy.local.",
      },
      host: "ingress.ingress.svc.cozy.local",
    },
    {
      name: "multi-segment domain",
      settings: {
        targetServiceName: "traefik",
        targetServiceNamespace: "kube-system",
        clusterDomain: "k8s.example.org",
      },
      host: "traefik.kube-system.svc.k8s.example.org",
    },
  ];
  for (const c of cases) {
    await t.step(c.name, () => {
      assert.deepEqual(resolveBackendHost({ ...NONE, ...c.settings }), { host: c.host });
    });
  }
});

Deno.test("a missing backend is reported with the flags that fix it", async (t) => {
  await t.step("nothing set", () => {
    const outcome = resolveBackendHost(NONE);
    assert.ok("problem" in outcome);
    for (const flag of ["--target-host", "--target-service-name", "--target-service-namespace"]) {
      assert.ok(outcome.problem.includes(flag), `${flag} missing from: ${outcome.problem}`);
    }
  });
  await t.step("a Service name without a namespace", () => {
    const outcome = resolveBackendHost({ ...NONE, targetServiceName: "ingress-nginx-controller" });
    assert.ok("problem" in outcome);
    assert.ok(outcome.problem.includes("--target-service-namespace"), outcome.problem);
    assert.ok(outcome.problem.includes(`--target-service-name="ingress-nginx-controller"`), outcome.problem);
  });
  await t.step("a namespace alone is not enough", () => {
    const outcome = resolveBackendHost({ ...NONE, targetServiceNamespace: "ingress-nginx" });
    assert.ok("problem" in outcome);
    assert.ok(outcome.problem.includes("--target-service-name"), outcome.problem);
  });
});
