import assert from "node:assert/strict";
import { healthHandler, type ReadyzAnswer } from "../../lib/daemon/health_handler.ts";

async function get(handler: (request: Request) => Promise<Response>, path: string) {
  const response = await handler(new Request(`http://health${path}`));
  return {
    status: response.status,
    body: await response.text(),
    type: response.headers.get("content-type"),
    nosniff: response.headers.get("x-content-type-options"),
  };
}

const TEXT = "text/plain; charset=utf-8";

Deno.test("healthHandler() answers /healthz 200 ok whatever readiness says", async () => {
  const handler = healthHandler({
    readiness: () => ({ ready: false, text: "shutting down" }),
    metrics: () => "",
  });
  assert.deepEqual(await get(handler, "/healthz"), {
    status: 200,
    body: "ok\n",
    type: TEXT,
    nosniff: "nosniff",
  });
});

Deno.test("healthHandler() answers /readyz 200 ok when ready, 503 with the text on one line when not", async () => {
  let answer: ReadyzAnswer = { ready: false, text: "backend unreachable (timeout): dial timed out after 2s" };
  const handler = healthHandler({ readiness: () => Promise.resolve(answer), metrics: () => "" });
  assert.deepEqual(await get(handler, "/readyz"), {
    status: 503,
    body: "backend unreachable (timeout): dial timed out after 2s\n",
    type: TEXT,
    nosniff: "nosniff",
  });
  answer = { ready: true };
  assert.deepEqual(await get(handler, "/readyz"), {
    status: 200,
    body: "ok\n",
    type: TEXT,
    nosniff: "nosniff",
  });
});

Deno.test("healthHandler() renders /metrics when asked, in the Prometheus text format", async () => {
  let renders = 0;
  const handler = healthHandler({
    readiness: () => ({ ready: true }),
    metrics: () => `ouroboros_build_info{version="x"} ${++renders}\n`,
  });
  const first = await get(handler, "/metrics");
  assert.equal(first.status, 200);
  assert.equal(first.body, 'ouroboros_build_info{version="x"} 1\n');
  assert.equal(first.type, "text/plain; version=0.0.4; charset=utf-8");
  assert.equal((await get(handler, "/metrics")).body, 'ouroboros_build_info{version="x"} 2\n');
});

Deno.test("healthHandler() answers other paths 404, naming the three that exist", async () => {
  const handler = healthHandler({ readiness: () => ({ ready: true }), metrics: () => "" });
  for (const path of ["/", "/health", "/readyz/extra"]) {
    assert.deepEqual(await get(handler, path), {
      status: 404,
      body: "not found; try /healthz, /readyz or /metrics\n",
      type: TEXT,
      nosniff: "nosniff",
    });
  }
});
