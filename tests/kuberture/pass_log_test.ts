import assert from "node:assert/strict";
import { KubeClient } from "../../lib/kube/client.ts";
import { WriteFencedError } from "../../lib/kube/errors.ts";
import { parseKubertureConfig } from "../../lib/kuberture/config/kuberture_config.ts";
import { createKubertureMetrics } from "../../lib/kuberture/kuberture_metrics.ts";
import { PassLog } from "../../lib/kuberture/pass_log.ts";
import { type PassReport, runPass } from "../../lib/kuberture/run_pass.ts";
import type { EndpointSlice } from "../../lib/resources/endpoint_slice.ts";
import { errorMessage } from "../../lib/util/error_message.ts";
import { startFakeApiServer } from "../support/fake_apiserver/mod.ts";
import { LogRecorder } from "../support/log_recorder.ts";

function passLog(log: LogRecorder): PassLog {
  const metrics = createKubertureMetrics({ version: "test", rss: () => 0, leading: () => true });
  return new PassLog({
    log,
    metrics,
    recorder: { record: () => Promise.resolve({ kind: "suppressed" as const }) },
    dryRun: false,
  });
}

function failedWith(message: string, fenced: boolean): PassReport {
  return {
    outputs: [{
      kind: "failed",
      output: "api",
      name: "kuberture-api",
      message,
      ...(fenced ? { fenced: true } : {}),
    }],
    prune: [],
  };
}

Deno.test("kuberture pass log: a write the fence stopped at a hand-over is no ERROR; any other failure is", async () => {
  const log = new LogRecorder();
  const said = passLog(log);
  const fenced = errorMessage(
    new WriteFencedError("APPLY services/kuberture-api", "this replica is not the leader"),
  );
  await said.say(failedWith(fenced, true), AbortSignal.timeout(5_000));
  assert.deepEqual(
    log.find("error", ""),
    [],
    "losing the lease mid-pass is said once, by the control loop, at INFO",
  );
  assert.equal(log.find("debug", "output not written: this replica no longer leads").length, 1);

  await said.say(
    failedWith("APPLY services/kuberture-api: 500 InternalError", false),
    AbortSignal.timeout(5_000),
  );
  assert.deepEqual(log.find("error", "").map((entry) => entry.message), ["output failed; retrying"]);
});

Deno.test("kuberture pass: a write the fence stopped is reported as fenced, sent to nobody", async () => {
  await using server = await startFakeApiServer();
  using client = new KubeClient({
    server: server.url,
    writeFence: (request) => {
      throw new WriteFencedError(request, "this replica is not the leader of lease kuberture/kuberture");
    },
  });
  const text =
    "outputs:\n  - name: api\n    hostname: [api.k8s.example.com]\n    serviceName: kuberture-api\n";
  const parsed = parseKubertureConfig(text, { path: "config.yaml" });
  assert.ok(parsed.ok);
  const slice = {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      namespace: "default",
      name: "kubernetes",
      labels: { "kubernetes.io/service-name": "kubernetes" },
    },
    addressType: "IPv4",
    endpoints: [{ addresses: ["192.0.2.1"], conditions: { ready: true } }],
  } as unknown as EndpointSlice;
  const report = await runPass({
    config: parsed.config,
    slices: [slice],
    nodes: [],
    namespace: "kuberture",
    instance: "kuberture",
    owner: undefined,
    listDnsEndpoints: false,
  }, { api: client, dryRun: false, signal: AbortSignal.timeout(10_000) });
  assert.deepEqual(report.outputs.map((output) => [output.kind, output.kind === "failed" && output.fenced]), [
    [
      "failed",
      true,
    ],
  ]);
  assert.deepEqual(server.audit.filter((entry) => entry.method !== "GET"), []);
});
