/**
 * The proxy's `/readyz`: can the backend be reached (one dial per probe), and are we still
 * taking traffic.
 *
 * Effects: dials the backend, logs transitions, sets the gauge.
 *
 * @module
 */

import type { ReadyzAnswer } from "../daemon/health_handler.ts";
import { errorMessage } from "../util/error_message.ts";
import { formatHostPort } from "../util/listen_address.ts";
import type { Log } from "../util/logging.ts";
import { classifyDialError } from "./dial_cause.ts";
import { type Dialer, dialWithTimeout } from "./dialer.ts";
import type { ProxyMetrics } from "./proxy_metrics.ts";
import { nextReadiness, type ProbeResult, type ReadinessState, unreachableText } from "./readiness.ts";

/** What the readiness probe needs to know. */
export interface BackendReadinessOptions {
  readonly backendHost: string;
  /** Readiness dials this port (the HTTP one, as the original does). */
  readonly backendPort: number;
  readonly readyTimeoutMs: number;
  readonly dial: Dialer;
  readonly metrics: ProxyMetrics;
  readonly log: Log;
  /** True once shutdown has begun: readiness fails so endpoints drop this pod. */
  readonly draining: () => boolean;
  /** Why traffic is not being taken though not draining (a proxy worker restarting), if so. */
  readonly notAccepting?: () => string | undefined;
}

/** Builds the `/readyz` answer; its closure holds the state for the transition logs. */
export function backendReadiness(options: BackendReadinessOptions): () => Promise<ReadyzAnswer> {
  let state: ReadinessState = { kind: "unprobed" };
  const backend = formatHostPort(options.backendHost, options.backendPort);
  const ready = options.metrics.backendReady.labels({});

  const probe = async (): Promise<ProbeResult> => {
    try {
      const conn = await dialWithTimeout(options.dial, {
        host: options.backendHost,
        port: options.backendPort,
        timeoutMs: options.readyTimeoutMs,
      });
      conn.close();
      return { ok: true };
    } catch (error) {
      return { ok: false, cause: classifyDialError(error), error: errorMessage(error) };
    }
  };

  return async (): Promise<ReadyzAnswer> => {
    if (options.draining()) return { ready: false, text: "shutting down" };
    const notAccepting = options.notAccepting?.();
    if (notAccepting !== undefined) return { ready: false, text: notAccepting };
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
    return result.ok ? { ready: true } : { ready: false, text: unreachableText(result.cause, result.error) };
  };
}
