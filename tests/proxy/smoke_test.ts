import assert from "node:assert/strict";
import { startProxy } from "../support/ouroboros_process.ts";

Deno.test("proxy child process starts, reports its addresses and answers /healthz", async () => {
  await using proxy = await startProxy(["--target-host=127.0.0.1"]);
  assert.ok(proxy.http && proxy.https && proxy.health);
  const health = await proxy.healthGet("/healthz");
  assert.equal(health.status, 200);
  proxy.kill("SIGTERM");
  const status = await proxy.status;
  assert.equal(status.code, 0);
});
