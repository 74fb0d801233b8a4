/**
 * The module each proxy worker runs: a {@linkcode ProxyServer} on `reusePort` listeners, driven
 * by the main thread's messages. An uncaught error ends the worker; the pool restarts it.
 *
 * Logs are posted to the main thread, so the worker's module graph stays within `lib/` (what the
 * `proxy` permission set lets it read). It revokes nothing itself: a worker with inherited
 * permissions shares the main thread's (measured), so the main thread's revocation covers it.
 *
 * Effects: binds sockets, relays, posts messages. Loaded only as a worker's main module.
 *
 * @module
 */

import { systemClock } from "../../util/clock.ts";
import type { Log } from "../../util/logging.ts";
import { systemTrafficDialer } from "../dialer.ts";
import { createProxyMetrics, type ProxyMetrics } from "../proxy_metrics.ts";
import { ProxyServer } from "../server.ts";
import type { FromWorker, ToWorker, WorkerLogLevel } from "./worker_messages.ts";
import type { RouteTable } from "../../routes/route_table.ts";

/** The parts of a worker's global scope this module uses. */
export interface WorkerScope {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
  close(): void;
}

function postingLog(scope: WorkerScope): Log {
  const post = (level: WorkerLogLevel) => (message: string, properties: Record<string, unknown> = {}) => {
    try {
      scope.postMessage({ kind: "log", level, message, properties });
    } catch {
      // A property structured clone cannot copy: send the text of each instead.
      const texts = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, String(v)]));
      scope.postMessage({ kind: "log", level, message, properties: texts });
    }
  };
  return { debug: post("debug"), info: post("info"), warn: post("warn"), error: post("error") };
}

/** Binds with `reusePort`: every worker accepts on the same port. Linux only, `--unstable-net`. */
function listenShared(hostname: string, port: number): Deno.TcpListener {
  return Deno.listen({ hostname, port, reusePort: true });
}

/** Serves as one proxy worker on `scope` until the drain ends, then closes the worker. */
export function runProxyWorker(scope: WorkerScope): void {
  const shutdown = new AbortController();
  const force = new AbortController();
  let metrics: ProxyMetrics | undefined;
  let server: ProxyServer | undefined;
  /** A table that came before the server was bound (messages are handled in order, binding is not). */
  let routes: RouteTable | undefined;
  const log = postingLog(scope);

  const serve = async (message: Extract<ToWorker, { kind: "start" }>): Promise<void> => {
    // Process-wide series (build info, memory, backend readiness) are the main thread's.
    const own = createProxyMetrics({
      rss: () => 0,
      version: "",
      routing: message.config.routing !== undefined,
    });
    metrics = own;
    let started: ProxyServer;
    try {
      started = ProxyServer.start(message.config, {
        dial: systemTrafficDialer(systemClock),
        clock: systemClock,
        log,
        metrics: own,
        debugLogging: message.debug,
        listen: listenShared,
      });
    } catch (error) {
      scope.postMessage({ kind: "failed", error: error instanceof Error ? error.message : String(error) });
      scope.close();
      return;
    }
    server = started;
    if (routes !== undefined) started.setRoutes(routes);
    scope.postMessage({ kind: "listening", addresses: started.addresses });
    await started.run({ shutdown: shutdown.signal, force: force.signal });
    scope.postMessage({ kind: "stopped", text: own.registry.render() });
    scope.close();
  };

  scope.onmessage = (event) => {
    const message = event.data;
    switch (message.kind) {
      case "start":
        // A failed run is an uncaught error: it ends the worker, and the main thread restarts it.
        serve(message).catch((error) =>
          queueMicrotask(() => {
            throw error;
          })
        );
        return;
      case "routes":
        routes = message.table;
        server?.setRoutes(message.table);
        return;
      case "shutdown":
        shutdown.abort();
        return;
      case "force":
        force.abort();
        return;
      case "metrics":
        scope.postMessage({ kind: "metrics", id: message.id, text: metrics?.registry.render() ?? "" });
        return;
      default:
        throw new Error(`proxy worker: unknown message ${JSON.stringify(message)}`);
    }
  };
}

if ("WorkerGlobalScope" in globalThis) runProxyWorker(self as unknown as WorkerScope);
