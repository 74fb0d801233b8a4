import assert from "node:assert/strict";
import { type HostPort, type ProxyProcess, startProxy } from "../support/ouroboros_process.ts";
import { requireTool, skipWithout } from "../support/tools.ts";
import { metric } from "../support/scrape.ts";
import { waitFor } from "../support/wait.ts";
import { echo, type ProxyBackend, startProxyBackend } from "../support/proxy_backend.ts";

/**
 * The proxy's descriptor limit. Deno 2.9.6 needs about 30 descriptors to start (it panics
 * below 32 here); 64 leaves room for a dozen or so proxied connections, two descriptors each.
 */
const FD_LIMIT = 64;

/**
 * A backend that holds every connection open without reading, so each proxied connection keeps
 * two of the proxy's descriptors busy, until `release()`: then it closes them all and from then
 * on echoes.
 */
function startHoldingBackend(): ProxyBackend & { held: () => number; release: () => void } {
  const released = Promise.withResolvers<void>();
  let holding = true;
  let held = 0;
  const backend = startProxyBackend(async (connection) => {
    if (!holding) return await echo(connection);
    held += 1;
    connection.signal.addEventListener("abort", () => released.resolve(), { once: true });
    await released.promise;
    held -= 1;
  });
  return Object.assign(backend, {
    held: () => held,
    release() {
      holding = false;
      released.resolve();
    },
  });
}

/**
 * Sends `GET path` on a new connection (never a pooled one, so the health listener must accept
 * it) and returns the status code, or the error when the request failed. A timer closes the
 * connection if no answer comes: a hang guard only.
 */
async function tryHealth(health: HostPort, path: string): Promise<number | Error> {
  let conn: Deno.TcpConn | undefined;
  const timer = setTimeout(() => {
    try {
      conn?.close();
    } catch { /* closed already */ }
  }, 5_000);
  try {
    conn = await Deno.connect({ hostname: health.hostname, port: health.port });
    const request = `GET ${path} HTTP/1.1\r\nHost: ouroboros\r\nConnection: close\r\n\r\n`;
    await conn.write(new TextEncoder().encode(request));
    let response = "";
    const buffer = new Uint8Array(4096);
    while (true) {
      const n = await conn.read(buffer);
      if (n === null) break;
      response += new TextDecoder().decode(buffer.subarray(0, n));
    }
    const status = /^HTTP\/1\.[01] (\d{3}) /.exec(response)?.[1];
    return status === undefined ? new Error(`no HTTP response: ${JSON.stringify(response)}`) : Number(status);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  } finally {
    clearTimeout(timer);
    try {
      conn?.close();
    } catch { /* closed already */ }
  }
}

function acceptErrors(proxy: ProxyProcess): Promise<number> {
  return metric(proxy, ["ouroboros_proxy_accept_errors_total", { listener: "http" }]);
}

Deno.test({
  name: "out of file descriptors: accept errors back off, the proxy survives, and serving resumes",
  ignore: skipWithout("the EMFILE test", ["prlimit"]),
  fn: async () => {
    await using backend = startHoldingBackend();
    await using proxy = await startProxy(
      ["--target-host=127.0.0.1", `--target-http-port=${backend.port}`, "--shutdown-grace=10s"],
      { wrapper: [requireTool("prlimit"), `--nofile=${FD_LIMIT}:${FD_LIMIT}`] },
    );
    let exited = false;
    proxy.status.then(() => exited = true);
    const http = proxy.http;
    const health = proxy.health;
    assert.ok(http && health);
    assert.equal(await acceptErrors(proxy), 0);

    const clients: Deno.TcpConn[] = [];
    try {
      // Twice as many connections as the proxy has descriptors; the kernel queues the rest.
      const attempts = Array.from(
        { length: FD_LIMIT * 2 },
        () =>
          Deno.connect({ hostname: http.hostname, port: http.port }).then((conn) => {
            clients.push(conn);
          }),
      );
      await Promise.all(attempts);

      const warn = await proxy.waitForLog(
        "the accept-failed WARN",
        (line) => line.msg === "accept failed; backing off and retrying",
      );
      assert.equal(warn.level, "WARN");
      assert.equal(warn.listener, "http");
      assert.match(JSON.stringify(warn.error), /EMFILE|Too many open files/);
      await waitFor(
        "some connections to reach the backend before descriptors ran out",
        () => backend.held() > 0,
      );

      // Probe /healthz as a kubelet would until a probe fails for want of a descriptor to
      // accept it with (a proxy that kept one in reserve would never fail: then the poll just
      // ends). Either way the probes must not bring the process down, which the steps below
      // would notice: waitForLog fails when the proxy exits, and the exit status is checked.
      await waitFor("a /healthz probe to fail while out of descriptors", async () => {
        return (await tryHealth(health, "/healthz")) instanceof Error;
      }, { timeoutMs: 5_000, intervalMs: 50 }).catch(() => undefined);

      // Descriptors come back: clients and backend let go of every connection.
      for (const conn of clients) conn.close();
      clients.length = 0;
      backend.release();

      const again = await proxy.waitForLog(
        "the accepting-again INFO",
        (line) => line.msg === "accepting connections again",
      );
      assert.equal(again.level, "INFO");
      assert.equal(again.listener, "http");
      await waitFor(
        "/healthz to answer 200 again",
        async () => (await tryHealth(health, "/healthz")) === 200,
        {
          timeoutMs: 20_000,
          intervalMs: 50,
        },
      );
      assert.ok(await acceptErrors(proxy) > 0, "accept errors are counted");

      // A new connection is served end to end.
      const conn = await Deno.connect({ hostname: http.hostname, port: http.port });
      try {
        const payload = new TextEncoder().encode("served again\n");
        await conn.write(payload);
        const echoed = new Uint8Array(payload.length);
        let filled = 0;
        while (filled < echoed.length) {
          const n = await conn.read(echoed.subarray(filled));
          if (n === null) break;
          filled += n;
        }
        assert.deepEqual(echoed, payload);
      } finally {
        conn.close();
      }
      assert.equal(exited, false);

      proxy.kill("SIGTERM");
      assert.equal((await proxy.status).code, 0);
    } finally {
      for (const conn of clients) conn.close();
    }
  },
});
