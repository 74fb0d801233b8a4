import assert from "node:assert/strict";
import { controllerHealthRoutes } from "../../lib/controller/health.ts";
import { healthHandler } from "../../lib/daemon/health_handler.ts";

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
