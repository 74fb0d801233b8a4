import assert from "node:assert/strict";
import type { KubertureConfig } from "../../../lib/kuberture/config/kuberture_config.ts";
import { KUBERTURE_CONFIG_KEYS } from "../../../lib/kuberture/config/kuberture_config_keys.ts";
import { RESTART_NEEDED_KEYS, restartNeededKeys } from "../../../lib/kuberture/config/restart_needed_keys.ts";

const RUNNING: KubertureConfig = {
  source: { namespace: "default", serviceName: "kubernetes" },
  outputs: [{
    name: "api",
    hostnames: ["api.example.com"],
    annotationPrefix: "external-dns.alpha.kubernetes.io/",
    serviceName: "kuberture-api",
    recordTTL: 60,
    addressSource: "endpointslice",
    addressType: "IPv4",
    kind: "service",
  }],
  metricsBindAddress: ":8080",
  healthProbeBindAddress: ":8081",
  logLevel: undefined,
};

Deno.test("restartNeededKeys names each changed key that only a restart applies", async (t) => {
  const cases: readonly [string, KubertureConfig, readonly string[]][] = [
    ["nothing changed", RUNNING, []],
    ["the source namespace", { ...RUNNING, source: { ...RUNNING.source, namespace: "kube-system" } }, [
      "source.namespace",
    ]],
    ["the source Service", { ...RUNNING, source: { ...RUNNING.source, serviceName: "apiserver" } }, [
      "source.serviceName",
    ]],
    ["the metrics listener", { ...RUNNING, metricsBindAddress: ":9090" }, ["metricsBindAddress"]],
    ["the health listener", { ...RUNNING, healthProbeBindAddress: "0" }, ["healthProbeBindAddress"]],
    [
      "all four, in a fixed order",
      {
        ...RUNNING,
        healthProbeBindAddress: ":1",
        metricsBindAddress: ":2",
        source: { namespace: "a", serviceName: "b" },
      },
      ["source.namespace", "source.serviceName", "metricsBindAddress", "healthProbeBindAddress"],
    ],
    [
      "outputs and the log level apply live",
      { ...RUNNING, outputs: [{ ...RUNNING.outputs[0]!, hostnames: ["b.example.com"] }], logLevel: "debug" },
      [],
    ],
  ];
  for (const [name, next, expected] of cases) {
    await t.step(name, () => assert.deepEqual(restartNeededKeys(RUNNING, next), expected));
  }
});

Deno.test("the keys needing a restart are the ones the config reference marks so", () => {
  assert.deepEqual(
    KUBERTURE_CONFIG_KEYS.filter((doc) => doc.restart).map((doc) => doc.key).sort(),
    [...RESTART_NEEDED_KEYS].sort(),
  );
});
