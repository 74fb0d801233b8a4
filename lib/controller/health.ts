/**
 * The controller's health listener (`--listen-health`, default `:8082`): `/healthz` (liveness:
 * 200 while the process serves), `/readyz` (200 once every source cache has synced and a
 * reconcile has succeeded; 503 with a one-line reason otherwise) and `/metrics` (Prometheus).
 *
 * @module
 */

import { bindDualStack } from "../daemon/bind_dual_stack.ts";
import { formatHostPort, type ListenAddress } from "../util/listen_address.ts";
import { METRICS_CONTENT_TYPE } from "../util/metrics.ts";
import type { Readiness } from "./readiness.ts";

/** What the routes read. */
export interface HealthView {
  readiness(): Readiness;
  /** The Prometheus exposition, rendered now. */
  metrics(): string;
}

const TEXT = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

/**
 * The request handler for the health listener.
 *
 * @example
 * ```ts
 * Deno.serve({ port: 8082 }, healthHandler({ readiness: () => ({ ready: true }), metrics: () => "" }));
 * ```
 */
export function healthHandler(view: HealthView): (request: Request) => Response {
  return (request: Request): Response => {
    const path = new URL(request.url).pathname;
    switch (path) {
      case "/healthz":
        return new Response("ok\n", { status: 200, headers: TEXT });
      case "/readyz": {
        const readiness = view.readiness();
        return readiness.ready
          ? new Response("ok\n", { status: 200, headers: TEXT })
          : new Response(`not ready: ${readiness.reason}\n`, { status: 503, headers: TEXT });
      }
      case "/metrics":
        return new Response(view.metrics(), {
          status: 200,
          headers: { "content-type": METRICS_CONTENT_TYPE },
        });
      default:
        return new Response("not found; try /healthz, /readyz or /metrics\n", { status: 404, headers: TEXT });
    }
  };
}

/** A bound health listener. */
export interface HealthServer {
  /** The bound address, `host:port` (the real port when 0 was asked for). */
  readonly address: string;
  /** Settles when the listener has stopped (after `signal` aborted). */
  readonly finished: Promise<void>;
}

/**
 * Binds the health listener and serves until `signal` aborts. An address without a host listens
 * on every interface: `::` (dual-stack), or `0.0.0.0` where IPv6 is unavailable. Throws, naming
 * the address, when it cannot bind. If the listener fails later, `onFailure` hears about it
 * (the process keeps reconciling; the kubelet's probes then restart the pod).
 */
export function serveHealth(
  address: ListenAddress,
  handler: (request: Request) => Response,
  signal: AbortSignal,
  onFailure: (error: unknown) => void,
): HealthServer {
  const server = bindDualStack(
    { name: "health", address },
    (hostname, port) => Deno.serve({ hostname, port, signal, onListen: () => {} }, handler),
  );
  return {
    address: formatHostPort(server.addr.hostname, server.addr.port),
    finished: server.finished.catch((error: unknown) => {
      if (!signal.aborted) onFailure(error);
    }),
  };
}
