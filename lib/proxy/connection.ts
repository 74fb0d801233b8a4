/**
 * One proxied connection: dial the backend, write the PROXY header, relay, record metrics.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { Clock } from "../util/clock.ts";
import { formatHostPort } from "../util/listen_address.ts";
import type { HistogramSeries, NumberSeries } from "../util/metrics.ts";
import type { Throttle } from "../util/throttle.ts";
import { classifyDialError, DIAL_CAUSES, type DialCause } from "./dial_cause.ts";
import { type Dialer, dialWithTimeout } from "./dialer.ts";
import { encodeProxyHeader, type ProxyProtocolVersion, type SocketAddress } from "./proxy_protocol.ts";
import type { ListenerName, ProxyMetrics } from "./proxy_metrics.ts";
import { relay, type RelayBuffers } from "./relay.ts";

/** A listener's metric series, resolved once so each connection only bumps numbers. */
export interface ListenerSeries {
  readonly accepted: NumberSeries;
  readonly active: NumberSeries;
  readonly upstream: NumberSeries;
  readonly downstream: NumberSeries;
  readonly dialFailures: Readonly<Record<DialCause, NumberSeries>>;
  readonly headerFailures: NumberSeries;
  readonly acceptErrors: NumberSeries;
  readonly duration: HistogramSeries;
}

/** Resolves the series for one listener. */
export function listenerSeries(metrics: ProxyMetrics, listener: ListenerName): ListenerSeries {
  const dialFailures = Object.fromEntries(
    DIAL_CAUSES.map((cause) => [cause, metrics.dialFailures.labels({ listener, cause })]),
  ) as Record<DialCause, NumberSeries>;
  return {
    accepted: metrics.accepted.labels({ listener }),
    active: metrics.active.labels({ listener }),
    upstream: metrics.bytes.labels({ listener, direction: "upstream" }),
    downstream: metrics.bytes.labels({ listener, direction: "downstream" }),
    dialFailures,
    headerFailures: metrics.headerFailures.labels({ listener }),
    acceptErrors: metrics.acceptErrors.labels({ listener }),
    duration: metrics.duration.labels({ listener }),
  };
}

/** Everything a connection needs from its listener. */
export interface ConnectionContext {
  readonly listener: ListenerName;
  readonly backendHost: string;
  readonly backendPort: number;
  readonly proxyProtocol: ProxyProtocolVersion;
  readonly dialTimeoutMs: number;
  readonly dial: Dialer;
  readonly series: ListenerSeries;
  readonly log: Logger;
  /** Limits the per-connection WARN lines when the backend keeps failing. */
  readonly throttle: Throttle;
  readonly clock: Clock;
  readonly buffers?: RelayBuffers;
}

function peer(address: Deno.Addr): SocketAddress {
  return address.transport === "tcp" || address.transport === "udp"
    ? { hostname: address.hostname, port: address.port }
    : { hostname: "", port: 0 };
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Closed already: nothing to release.
  }
}

/** Writes all of `bytes`, closing both sides if that takes longer than `timeoutMs`. */
async function writeHeader(
  backend: Deno.Conn,
  client: Deno.Conn,
  bytes: Uint8Array,
  timeoutMs: number,
): Promise<void> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    closeQuietly(backend);
    closeQuietly(client);
  }, timeoutMs);
  try {
    let offset = 0;
    while (offset < bytes.length) offset += await backend.write(bytes.subarray(offset));
  } catch (error) {
    throw timedOut ? new Error(`backend did not take the PROXY header within ${timeoutMs} ms`) : error;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Serves one accepted client connection to completion. Never rejects: failures are logged,
 * counted and end with both sockets closed. Aborting `signal` closes everything at once.
 */
export async function handleConnection(
  client: Deno.TcpConn,
  context: ConnectionContext,
  signal: AbortSignal,
): Promise<void> {
  const { series, log } = context;
  const started = context.clock.now();
  series.accepted.value += 1;
  series.active.value += 1;
  const clientAddress = peer(client.remoteAddr);
  const backendAddress = formatHostPort(context.backendHost, context.backendPort);
  try {
    try {
      client.setNoDelay(true);
      client.setKeepAlive(true);
    } catch {
      // The client already went away; the dial below will fail to matter.
    }
    const onAbort = () => closeQuietly(client);
    signal.addEventListener("abort", onAbort, { once: true });
    let backend: Deno.TcpConn;
    try {
      backend = await dialWithTimeout(
        context.dial,
        context.backendHost,
        context.backendPort,
        context.dialTimeoutMs,
      );
    } catch (error) {
      const cause = classifyDialError(error);
      series.dialFailures[cause].value += 1;
      const decision = context.throttle.check(`dial:${context.listener}:${cause}`);
      if (decision.emit) {
        log.warn("backend dial failed; closing the client connection", {
          listener: context.listener,
          backend: backendAddress,
          cause,
          error,
          suppressed: decision.suppressed,
        });
      }
      closeQuietly(client);
      return;
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
    if (signal.aborted) {
      closeQuietly(backend);
      closeQuietly(client);
      return;
    }
    try {
      backend.setNoDelay(true);
      backend.setKeepAlive(true);
      const header = encodeProxyHeader(context.proxyProtocol, clientAddress, peer(client.localAddr));
      await writeHeader(backend, client, header, context.dialTimeoutMs);
    } catch (error) {
      series.headerFailures.value += 1;
      const decision = context.throttle.check(`header:${context.listener}`);
      if (decision.emit) {
        log.warn("could not write the PROXY header to the backend; closing the connection", {
          listener: context.listener,
          backend: backendAddress,
          error,
          suppressed: decision.suppressed,
        });
      }
      closeQuietly(backend);
      closeQuietly(client);
      return;
    }
    const result = await relay(client, backend, {
      upstream: series.upstream,
      downstream: series.downstream,
      signal,
      ...(context.buffers === undefined ? {} : { buffers: context.buffers }),
    });
    log.debug("connection closed", {
      listener: context.listener,
      client: formatHostPort(clientAddress.hostname, clientAddress.port),
      end: result.end.kind,
      upstreamBytes: result.upstreamBytes,
      downstreamBytes: result.downstreamBytes,
      ...(result.end.kind === "failed" ? { direction: result.end.direction, error: result.end.error } : {}),
    });
  } finally {
    series.active.value -= 1;
    series.duration.observe((context.clock.now() - started) / 1000);
  }
}
