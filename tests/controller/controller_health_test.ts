/**
 * `ouroboros controller`'s health listener under descriptor exhaustion: the real command as a
 * child process with a low descriptor limit, against the fake API server.
 *
 * @module
 */

import assert from "node:assert/strict";
import { startCluster } from "./cluster_fixture.ts";
import { type HostPort, startController } from "../support/ouroboros_process.ts";
import { requireTool, skipWithout } from "../support/tools.ts";
import { waitFor } from "../support/wait.ts";

/** The controller's descriptor limit: enough to start and watch, few enough to run out. */
const FD_LIMIT = 64;

/**
 * GET `path` on a new connection (never a pooled one, so the listener must accept it): the
 * status code, or `undefined` when the request failed.
 */
async function freshGet(health: HostPort, path: string): Promise<number | undefined> {
  try {
    const response = await fetch(`http://${health.hostname}:${health.port}${path}`, {
      headers: { connection: "close" },
      signal: AbortSignal.timeout(5_000),
    });
    await response.body?.cancel();
    return response.status;
  } catch {
    return undefined;
  }
}

Deno.test({
  name:
    "controller: a health listener that fails (out of file descriptors) is bound again, and the probes recover",
  ignore: skipWithout("the EMFILE test", ["prlimit"]),
  fn: async () => {
    await using cluster = await startCluster();
    await using controller = await startController(cluster.flags, {
      wrapper: [requireTool("prlimit"), `--nofile=${FD_LIMIT}:${FD_LIMIT}`],
    });
    const health = controller.health;
    assert.ok(health);
    assert.equal(await freshGet(health, "/healthz"), 200);

    const clients: Deno.TcpConn[] = [];
    try {
      // Up to twice as many idle connections as the controller has descriptors: accepting one
      // fails with EMFILE, the listener stops, and the connections after that are refused (or
      // reset or left unconnected, when the listener closed while they waited in its queue).
      for (let i = 0; i < FD_LIMIT * 2; i++) {
        try {
          clients.push(await Deno.connect({ hostname: health.hostname, port: health.port }));
        } catch (error) {
          if (
            error instanceof Deno.errors.ConnectionRefused || error instanceof Deno.errors.ConnectionReset ||
            error instanceof Deno.errors.NotConnected
          ) break;
          throw error;
        }
      }
      const warn = await controller.waitForLog(
        "the health-listener-failed WARN",
        (line) => line.msg === "health listener failed; binding it again",
      );
      assert.equal(warn.level, "WARN");
      assert.equal(warn.address, `${health.hostname}:${health.port}`);
      assert.match(JSON.stringify(warn.error), /EMFILE|Too many open files/);

      // Descriptors come back.
      for (const conn of clients) conn.close();
      clients.length = 0;

      const again = await controller.waitForLog(
        "the serving-again INFO",
        (line) => line.msg === "health listener serving again",
      );
      assert.equal(again.level, "INFO");
      assert.equal(again.address, `${health.hostname}:${health.port}`);
      await waitFor(
        "/healthz to answer 200 again on the same address",
        async () => (await freshGet(health, "/healthz")) === 200,
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      await waitFor("/readyz to answer 200", async () => (await freshGet(health, "/readyz")) === 200);
      assert.deepEqual(
        controller.logs.filter((line) => line.msg.includes("health listener") && line.level === "ERROR"),
        [],
      );

      controller.kill("SIGTERM");
      assert.equal((await controller.status).code, 0);
    } finally {
      for (const conn of clients) conn.close();
    }
  },
});
