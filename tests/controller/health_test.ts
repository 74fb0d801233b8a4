import assert from "node:assert/strict";
import { healthHandler, serveHealth } from "../../lib/controller/health.ts";

Deno.test("health routes: /healthz, /readyz with its reason, /metrics, 404 elsewhere", async () => {
  let ready = false;
  const handler = healthHandler({
    readiness: () =>
      ready ? { ready: true } : { ready: false, reason: "waiting for the first list of: Ingress" },
    metrics: () => 'ouroboros_build_info{version="x"} 1\n',
  });
  const get = async (path: string) => {
    const response = handler(new Request(`http://health${path}`));
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
  assert.equal((await get("/readyz")).status, 200);
  const metrics = await get("/metrics");
  assert.equal(metrics.status, 200);
  assert.match(metrics.type ?? "", /version=0\.0\.4/);
  assert.equal((await get("/nope")).status, 404);
});

Deno.test("serveHealth: binds port 0 and reports the real port; a taken port fails naming the address", async () => {
  const stop = new AbortController();
  const failures: unknown[] = [];
  const server = serveHealth(
    { host: "127.0.0.1", port: 0 },
    healthHandler({ readiness: () => ({ ready: true }), metrics: () => "" }),
    stop.signal,
    (error) => failures.push(error),
  );
  try {
    const port = Number(server.address.split(":")[1]);
    assert.ok(port > 0);
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(await response.text(), "ok\n");
    assert.throws(
      () => serveHealth({ host: "127.0.0.1", port }, () => new Response(), stop.signal, () => {}),
      new RegExp(`listen health 127\\.0\\.0\\.1:${port}: `),
    );
  } finally {
    stop.abort();
    await server.finished;
  }
  assert.deepEqual(failures, []);
});
