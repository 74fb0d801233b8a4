import assert from "node:assert/strict";
import { controllerReadiness } from "../../lib/controller/readiness.ts";
import type { Watched } from "../../lib/controller/sources.ts";
import type { ReflectorStatus } from "../../lib/reflector/reflector.ts";
import { RESTART_REASONS } from "../../lib/reflector/failure.ts";

function status(fields: Partial<ReflectorStatus>): ReflectorStatus {
  return {
    resource: "networking.k8s.io/v1 ingresses",
    phase: "watching",
    synced: true,
    condition: "healthy",
    resourceVersion: "1",
    restarts: Object.fromEntries(RESTART_REASONS.map((reason) => [reason, 0])) as ReflectorStatus["restarts"],
    ...fields,
  };
}

function kind(
  name: Watched["kind"],
  fields: Partial<ReflectorStatus>,
  role: Watched["role"] = "source",
): Pick<Watched, "kind" | "role" | "status"> {
  return { kind: name, role, status: () => status(fields) };
}

Deno.test("readiness: not ready until every source kind has listed, naming the ones still missing", () => {
  const readiness = controllerReadiness({
    watched: [
      kind("Ingress", { synced: false, phase: "listing" }),
      kind("Gateway", { synced: false, phase: "backoff", condition: "forbidden" }),
      kind("HTTPRoute", {}),
    ],
    loop: { succeeded: false, stoodBy: false },
    stopping: false,
  });
  assert.deepEqual(readiness, {
    ready: false,
    reason: "waiting for the first list of: Ingress (listing), Gateway (forbidden)",
  });
});

Deno.test("readiness: synced but no successful reconcile yet says why, on one line", () => {
  const watched = [kind("Ingress", {})];
  assert.deepEqual(
    controllerReadiness({ watched, loop: { succeeded: false, stoodBy: false }, stopping: false }),
    {
      ready: false,
      reason: "no reconcile has finished yet",
    },
  );
  assert.deepEqual(
    controllerReadiness({
      watched,
      loop: {
        succeeded: false,
        stoodBy: false,
        last: {
          kind: "refused",
          problem: "end-before-begin",
          message: "line 3: END\nbefore BEGIN",
          scope: "nothing-written",
        },
      },
      stopping: false,
    }),
    { ready: false, reason: "the last reconcile was refused (end-before-begin): line 3: END before BEGIN" },
  );
  assert.deepEqual(
    controllerReadiness({
      watched,
      loop: { succeeded: false, stoodBy: false, last: { kind: "error", message: "503 from the server" } },
      stopping: false,
    }),
    { ready: false, reason: "the last reconcile failed: 503 from the server" },
  );
});

Deno.test("readiness: ready after a success, and stays ready through later failures; the target watch does not count", () => {
  const watched = [
    kind("Ingress", {}),
    kind("ConfigMap", { synced: false, condition: "forbidden" }, "target"),
  ];
  assert.deepEqual(
    controllerReadiness({
      watched,
      loop: { succeeded: true, stoodBy: false, last: { kind: "error", message: "timeout" } },
      stopping: false,
    }),
    { ready: true },
  );
  assert.deepEqual(
    controllerReadiness({ watched, loop: { succeeded: true, stoodBy: false }, stopping: true }),
    {
      ready: false,
      reason: "shutting down",
    },
  );
});

Deno.test("readiness: the proxy Service (a prerequisite) must have listed too; no address for it is not ready", () => {
  const watched = [
    kind("Ingress", {}),
    kind("Service", { synced: false, phase: "backoff", condition: "forbidden" }, "prerequisite"),
  ];
  assert.deepEqual(
    controllerReadiness({ watched, loop: { succeeded: false, stoodBy: false }, stopping: false }),
    {
      ready: false,
      reason: "waiting for the first list of: Service (forbidden)",
    },
  );
  assert.deepEqual(
    controllerReadiness({
      watched: [kind("Ingress", {}), kind("Service", {}, "prerequisite")],
      loop: {
        succeeded: false,
        stoodBy: false,
        last: {
          kind: "refused",
          problem: "headless",
          message: "Service ouroboros/proxy is headless",
          scope: "nothing-written",
        },
      },
      stopping: false,
    }),
    {
      ready: false,
      reason: "the last reconcile was refused (headless): Service ouroboros/proxy is headless",
    },
  );
});

Deno.test("readiness: a persistent reconcile failure makes even a ready controller not ready, saying for how long and why", () => {
  const watched = [kind("Ingress", {})];
  const last = { kind: "error", message: "GET …/configmaps/coredns:\n503 Service Unavailable" } as const;
  assert.deepEqual(
    controllerReadiness({
      watched,
      loop: {
        succeeded: true,
        stoodBy: false,
        last,
        failing: { since: 1_000, attempts: 6, persistent: true },
      },
      stopping: false,
      now: 41_000,
    }),
    {
      ready: false,
      reason:
        "reconciles have kept failing for 40 s (6 attempts): GET …/configmaps/coredns: 503 Service Unavailable",
    },
  );
  assert.deepEqual(
    controllerReadiness({
      watched,
      loop: {
        succeeded: true,
        stoodBy: false,
        last,
        failing: { since: 1_000, attempts: 2, persistent: false },
      },
      stopping: false,
      now: 3_000,
    }),
    { ready: true },
    "a transient failure leaves readiness alone",
  );
});
