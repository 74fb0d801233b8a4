import assert from "node:assert/strict";
import { POD_HEALTH } from "../../lib/resources/pod_health.ts";

Deno.test("POD_HEALTH: ports, the Ready condition, restarts and how the last run ended", () => {
  const decoded = POD_HEALTH.decode({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "proxy-1", namespace: "ouroboros", resourceVersion: "3" },
    spec: {
      containers: [{
        name: "proxy",
        ports: [{ containerPort: 8080 }, { name: "health", containerPort: 8081 }],
      }],
    },
    status: {
      phase: "Running",
      podIP: "10.0.0.7",
      conditions: [{ type: "PodScheduled", status: "True" }, {
        type: "Ready",
        status: "False",
        reason: "ContainersNotReady",
      }],
      containerStatuses: [{
        name: "proxy",
        ready: false,
        restartCount: 3,
        state: { waiting: { reason: "CrashLoopBackOff" } },
        lastState: { terminated: { reason: "OOMKilled", finishedAt: "2026-05-01T11:55:00Z" } },
      }],
    },
  });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.ports, [{ containerPort: 8080 }, { name: "health", containerPort: 8081 }]);
  assert.deepEqual(decoded.value.status, {
    phase: "Running",
    podIP: "10.0.0.7",
    ready: { status: "False", reason: "ContainersNotReady" },
    containers: [{
      name: "proxy",
      ready: false,
      restartCount: 3,
      waitingReason: "CrashLoopBackOff",
      lastTermination: { reason: "OOMKilled", finishedAt: "2026-05-01T11:55:00Z" },
    }],
  });
});

Deno.test("POD_HEALTH: a pod not yet scheduled has no condition, IP or containers", () => {
  const decoded = POD_HEALTH.decode({
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "p", namespace: "n", resourceVersion: "1" },
    spec: { containers: [{ name: "c" }] },
  });
  assert.ok(decoded.ok);
  assert.deepEqual(decoded.value.status, { containers: [] });
});
