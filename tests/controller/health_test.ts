import assert from "node:assert/strict";
import { controllerHealthRoutes } from "../../lib/controller/health.ts";
import { healthHandler } from "../../lib/daemon/health_handler.ts";
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
  const readiness = controllerReadiness(
    [
      kind("Ingress", { synced: false, phase: "listing" }),
      kind("Gateway", { synced: false, phase: "backoff", condition: "forbidden" }),
      kind("HTTPRoute", {}),
    ],
    { succeeded: false },
    false,
  );
  assert.deepEqual(readiness, {
    ready: false,
    reason: "waiting for the first list of: Ingress (listing), Gateway (forbidden)",
  });
});

Deno.test("readiness: synced but no successful reconcile yet says why, on one line", () => {
  const watched = [kind("Ingress", {})];
  assert.deepEqual(controllerReadiness(watched, { succeeded: false }, false), {
    ready: false,
    reason: "no reconcile has finished yet",
  });
  assert.deepEqual(
    controllerReadiness(watched, {
      succeeded: false,
      last: {
        kind: "refused",
        problem: "end-before-begin",
        message: "line 3: END\nbefore BEGIN",
        scope: "nothing-written",
      },
    }, false),
    { ready: false, reason: "the last reconcile was refused (end-before-begin): line 3: END before BEGIN" },
  );
  assert.deepEqual(
    controllerReadiness(watched, {
      succeeded: false,
      last: { kind: "error", message: "503 from the server" },
    }, false),
    { ready: false, reason: "the last reconcile failed: 503 from the server" },
  );
});

Deno.test("readiness: ready after a success, and stays ready through later failures; the target watch does not count", () => {
  const watched = [
    kind("Ingress", {}),
    kind("ConfigMap", { synced: false, condition: "forbidden" }, "target"),
  ];
  assert.deepEqual(
    controllerReadiness(watched, { succeeded: true, last: { kind: "error", message: "timeout" } }, false),
    { ready: true },
  );
  assert.deepEqual(controllerReadiness(watched, { succeeded: true }, true), {
    ready: false,
    reason: "shutting down",
  });
});

Deno.test("readiness: the proxy Service (a prerequisite) must have listed too; no address for it is not ready", () => {
  const watched = [
    kind("Ingress", {}),
    kind("Service", { synced: false, phase: "backoff", condition: "forbidden" }, "prerequisite"),
  ];
  assert.deepEqual(controllerReadiness(watched, { succeeded: false }, false), {
    ready: false,
    reason: "waiting for the first list of: Service (forbidden)",
  });
  assert.deepEqual(
    controllerReadiness([kind("Ingress", {}), kind("Service", {}, "prerequisite")], {
      succeeded: false,
      last: {
        kind: "refused",
        problem: "headless",
        message: "Service ouroboros/proxy is headless",
        scope: "nothing-written",
      },
    }, false),
    {
      ready: false,
      reason: "the last reconcile was refused (headless): Service ouroboros/proxy is headless",
    },
  );
});

Deno.test("health routes: /healthz, /readyz with its reason, /metrics, 404 elsewhere", async () => {
  let ready = false;
  const handler = healthHandler(controllerHealthRoutes({
    readiness: () =>
      ready ? { ready: true } : { ready: false, reason: "waiting for the first list of: Ingress" },
    metrics: () => 'ouroboros_build_info{version="x"} 1\n',
  }));
  const get = async (path: string) => {
    const response = await handler(new Request(`http://health${path}`));
    return {
      status: response.status,
      body: await response.text(),
      type: response.headers.get("content-type"),
    };
  };
  assert.deepEqual(await get("/healthz"), { status: 200, body: "ok\n", type: "text/plain; charset=utf-8" });
  assert.deepEqual((await get("/readyz")).body, "not ready: waiting for the first list of: Ingress\n");
  assert.equal((await get("/readyz")).status, 503);
  ready = true;
  assert.deepEqual(await get("/readyz"), { status: 200, body: "ok\n", type: "text/plain; charset=utf-8" });
  const metrics = await get("/metrics");
  assert.equal(metrics.status, 200);
  assert.equal(metrics.body, 'ouroboros_build_info{version="x"} 1\n');
  assert.match(metrics.type ?? "", /version=0\.0\.4/);
  assert.equal((await get("/nope")).status, 404);
});
