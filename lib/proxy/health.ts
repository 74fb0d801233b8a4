/**
 * The health listener's routes: `/healthz` (liveness), `/readyz` (can the backend be reached,
 * and are we still taking traffic) and `/metrics` (Prometheus).
 *
 * @module
 */

import { formatHostPort } from "../util/listen_address.ts";
import { METRICS_CONTENT_TYPE } from "../util/metrics.ts";
import { classifyDialError } from "./dial_cause.ts";
import { type Dialer, dialWithTimeout } from "./dialer.ts";
import type { ProxyMetrics } from "./proxy_metrics.ts";
import { nextReadiness, type ProbeResult, type ReadinessState, unreachableBody } from "./readiness.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";

/** What the health routes need to know. */
export interface HealthOptions {
  readonly backendHost: string;
  /** Readiness dials this port (the HTTP one, as the original does). */
  readonly backendPort: number;
  readonly readyTimeoutMs: number;
  readonly dial: Dialer;
  readonly metrics: ProxyMetrics;
  readonly log: Log;
  /** True once shutdown has begun: readiness fails so endpoints drop this pod. */
  readonly draining: () => boolean;
}

const TEXT = { "content-type": "text/plain; charset=utf-8", "x-content-type-options": "nosniff" };

/**
 * Builds the request handler for the health listener. Readiness state (for transition logs)
 * lives in the returned closure.
 */
export function healthHandler(options: HealthOptions): (request: Request) => Promise<Response> {
  let state: ReadinessState = { kind: "unprobed" };
  const backend = formatHostPort(options.backendHost, options.backendPort);
  const ready = options.metrics.backendReady.labels({});

  const probe = async (): Promise<ProbeResult> => {
    try {
      const conn = await dialWithTimeout(
        options.dial,
        options.backendHost,
        options.backendPort,
        options.readyTimeoutMs,
      );
      conn.close();
      return { ok: true };
    } catch (error) {
      return {
        ok: false,
        cause: classifyDialError(error),
        error: errorMessage(error),
      };
    }
  };

  return async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname;
    switch (path) {
      case "/healthz":
        return new Response("ok\n", { status: 200, headers: TEXT });
      case "/metrics":
        return new Response(options.metrics.registry.render(), {
          status: 200,
          headers: { "content-type": METRICS_CONTENT_TYPE },
        });
      case "/readyz": {
        if (options.draining()) return new Response("shutting down\n", { status: 503, headers: TEXT });
        const result = await probe();
        const step = nextReadiness(state, result);
        state = step.state;
        ready.value = result.ok ? 1 : 0;
        if (step.log?.level === "warn") {
          options.log.warn("backend readiness check failed", {
            backend,
            cause: step.log.cause,
            error: step.log.error,
          });
        } else if (step.log?.level === "info") {
          options.log.info("backend readiness recovered", { backend });
        }
        return result.ok
          ? new Response("ok\n", { status: 200, headers: TEXT })
          : new Response(unreachableBody(result.cause, result.error), { status: 503, headers: TEXT });
      }
      default:
        return new Response("not found; try /healthz, /readyz or /metrics\n", { status: 404, headers: TEXT });
    }
  };
}
