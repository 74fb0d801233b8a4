/**
 * One proxied connection: dial, write the PROXY header (with any early client bytes), relay.
 *
 * Effects: dials the backend, writes the header, relays; logs and counts what happened.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import { formatHostPort } from "../util/listen_address.ts";
import type { HistogramSeries, NumberSeries } from "../util/metrics.ts";
import type { Throttle } from "../util/throttle.ts";
import { classifyDialError, DIAL_CAUSES, type DialCause } from "./dial_cause.ts";
import { type DialDeadlines, type Dialer, dialWithTimeout } from "./dialer.ts";
import { encodeProxyHeader, type ProxyProtocolVersion, type SocketAddress } from "./proxy_protocol.ts";
import type { ListenerName, ProxyMetrics } from "./proxy_metrics.ts";
import type { IdleReaper } from "./idle_reaper.ts";
import { type Activity, DEFAULT_RELAY_BUFFERS, type FirstRead, relay, type RelayBuffers } from "./relay.ts";
import type { BufferPool } from "./buffer_pool.ts";
import type { Log } from "../util/logging.ts";
import { type FirstBytes, type ReadDeadlines, readFirstBytes } from "./routing/first_bytes.ts";
import type { RouteHolder } from "./routing/route_holder.ts";
import { NAME_OUTCOMES, type NameOutcome } from "./routing/requested_name.ts";

/** A listener's metric series, resolved once so each connection only bumps numbers. */
export interface ListenerSeries {
  readonly accepted: NumberSeries;
  readonly active: NumberSeries;
  readonly upstream: NumberSeries;
  readonly downstream: NumberSeries;
  readonly dialFailures: Readonly<Record<DialCause, NumberSeries>>;
  readonly headerFailures: NumberSeries;
  readonly acceptErrors: NumberSeries;
  readonly idleTimeouts: NumberSeries;
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
    idleTimeouts: metrics.idleTimeouts.labels({ listener }),
    duration: metrics.duration.labels({ listener }),
  };
}

/** What a connection reads ahead with when `--routes-file` is set. */
export interface RoutingContext {
  readonly holder: RouteHolder;
  readonly deadlines: ReadDeadlines;
  readonly maxBytes: number;
  /** This listener's `ouroboros_proxy_route_reads_total` series by outcome. */
  readonly reads: Readonly<Record<NameOutcome, NumberSeries>>;
}

/** Resolves the route-read series of one listener. */
export function routeReadSeries(
  metrics: ProxyMetrics,
  listener: ListenerName,
): Record<NameOutcome, NumberSeries> {
  return Object.fromEntries(
    NAME_OUTCOMES.map((outcome) => [outcome, metrics.routeReads.labels({ listener, outcome })]),
  ) as Record<NameOutcome, NumberSeries>;
}

/** Where one connection is sent: the default target or a route's backend. */
interface Destination {
  readonly host: string;
  readonly port: number;
  readonly proxyProtocol: ProxyProtocolVersion;
  /** The route-table entry, for the debug line; `undefined` without routing. */
  readonly route?: string;
}

/** Everything a connection needs from its listener. */
export interface ConnectionContext {
  readonly listener: ListenerName;
  readonly backendHost: string;
  readonly backendPort: number;
  readonly proxyProtocol: ProxyProtocolVersion;
  readonly dialTimeoutMs: number;
  readonly dial: Dialer;
  /** Shared dial deadlines (one timing wheel, not a timer per dial), when the server runs one. */
  readonly deadlines?: DialDeadlines;
  readonly series: ListenerSeries;
  readonly log: Log;
  /** Limits the per-connection WARN lines when the backend keeps failing. */
  readonly throttle: Throttle;
  readonly clock: Clock;
  readonly idle: Pick<IdleReaper, "track">;
  /** Whether debug lines are wanted; checked once so the hot path builds no log objects. */
  readonly debug: boolean;
  readonly buffers?: RelayBuffers;
  /** Set with `--routes-file`: the backend is chosen by the hostname the first bytes name. */
  readonly routing?: RoutingContext;
}

const NO_ADDRESS: SocketAddress = { hostname: "", port: 0 };

/** A TCP socket's address is already a {@linkcode SocketAddress}: no copy is made. */
function peer(address: Deno.Addr): SocketAddress {
  return address.transport === "tcp" || address.transport === "udp" ? address : NO_ADDRESS;
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // Closed already: nothing to release.
  }
}

/**
 * Writes the header (and early client bytes). No deadline: a fresh socket's empty send buffer
 * takes these few bytes at once whether or not the backend reads.
 */
async function writeAll(backend: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) offset += await backend.write(bytes.subarray(offset));
}

/**
 * The client's first read, overlapping the dial. A failed read counts as settled with no bytes
 * (the relay awaits the same promise and sees the error).
 */
class EarlyRead {
  readonly buffer: Uint8Array;
  readonly promise: Promise<number | null>;
  settled = false;
  n: number | null = null;

  constructor(client: Deno.Conn, buffer: Uint8Array, activity: Activity) {
    this.buffer = buffer;
    this.promise = client.read(buffer);
    // One callback for both outcomes: it stays alive as long as the read is pending.
    const settle = (n: unknown) => {
      this.settled = true;
      if (typeof n === "number" || n === null) {
        this.n = n;
        activity.count += 1;
      }
    };
    this.promise.then(settle, settle);
  }

  /** Waits for the read to end (after the client was closed) and gives its buffer back. */
  async release(pool: BufferPool | undefined): Promise<void> {
    try {
      await this.promise;
    } catch {
      // Closed under it: the buffer is free either way.
    }
    pool?.give(this.buffer);
  }
}

/** One accepted connection and what it is served with. */
export interface ConnectionJob {
  readonly context: ConnectionContext;
  /** Aborted by server shutdown, or by the idle reaper with the reason `"idle"`. */
  readonly stop: AbortController;
}

/**
 * Serves one client connection to completion; never rejects. Without routing, client bytes read
 * during the dial leave with the header, which never waits for them (a backend may speak first).
 * With routing, the first bytes are read before the dial, as they choose the backend.
 */
export async function handleConnection(client: Deno.TcpConn, job: ConnectionJob): Promise<void> {
  const { context, stop } = job;
  const { series, log } = context;
  const started = context.clock.now();
  series.accepted.value += 1;
  series.active.value += 1;
  const clientAddress = peer(client.remoteAddr);
  const activity: Activity = { count: 0 };
  const untrack = context.idle.track(activity, () => {
    series.idleTimeouts.value += 1;
    stop.abort("idle");
  });
  const buffers = context.buffers ?? DEFAULT_RELAY_BUFFERS;
  const closeClient = () => closeQuietly(client);
  let early: EarlyRead | undefined;
  let ahead: Uint8Array | undefined;
  /** The pooled buffer `ahead` lives in, given back once its bytes are written. */
  let aheadBuffer: Uint8Array | undefined;
  try {
    try {
      client.setNoDelay(true);
    } catch {
      // The client already went away; the dial below will fail to matter.
    }
    stop.signal.addEventListener("abort", closeClient, { once: true });
    let destination: Destination = {
      host: context.backendHost,
      port: context.backendPort,
      proxyProtocol: context.proxyProtocol,
    };
    const routing = context.routing;
    if (routing !== undefined && routing.holder.active) {
      const first = await readFirstBytes(client, {
        listener: context.listener,
        ...routing,
        pool: buffers.smallPool,
      });
      routing.reads[first.kind === "found" ? "found" : first.outcome].value += 1;
      if (first.kind === "ended") {
        closeQuietly(client);
        return;
      }
      activity.count += 1;
      ahead = first.bytes;
      aheadBuffer = first.pooled;
      destination = routedDestination(context, routing.holder, first);
    } else {
      early = new EarlyRead(client, buffers.smallPool?.take() ?? new Uint8Array(buffers.small), activity);
      if (routing !== undefined) destination = routedDestination(context, routing.holder, undefined);
    }
    let backend: Deno.TcpConn;
    try {
      backend = await dialWithTimeout(context.dial, {
        host: destination.host,
        port: destination.port,
        timeoutMs: context.dialTimeoutMs,
        deadlines: context.deadlines,
      });
    } catch (error) {
      const cause = classifyDialError(error);
      series.dialFailures[cause].value += 1;
      const decision = context.throttle.check(`dial:${context.listener}:${cause}`);
      if (decision.emit) {
        log.warn("backend dial failed; closing the client connection", {
          listener: context.listener,
          backend: formatHostPort(destination.host, destination.port),
          ...(destination.route === undefined ? {} : { route: destination.route }),
          cause,
          error,
          suppressed: decision.suppressed,
        });
      }
      closeQuietly(client);
      return;
    } finally {
      stop.signal.removeEventListener("abort", closeClient);
    }
    if (stop.signal.aborted) {
      closeQuietly(backend);
      closeQuietly(client);
      return;
    }
    const payload = ahead ??
      (early !== undefined && early.settled && early.n !== null
        ? early.buffer.subarray(0, early.n)
        : undefined);
    const sent = payload?.length ?? 0;
    try {
      backend.setNoDelay(true);
      const ends = { client: clientAddress, local: peer(client.localAddr) };
      await writeAll(
        backend,
        payload !== undefined && sent > 0
          ? encodeProxyHeader(destination.proxyProtocol, ends, { payload })
          : encodeProxyHeader(destination.proxyProtocol, ends),
      );
    } catch (error) {
      series.headerFailures.value += 1;
      const decision = context.throttle.check(`header:${context.listener}`);
      if (decision.emit) {
        log.warn("could not write the PROXY header to the backend; closing the connection", {
          listener: context.listener,
          backend: formatHostPort(destination.host, destination.port),
          error,
          suppressed: decision.suppressed,
        });
      }
      closeQuietly(backend);
      closeQuietly(client);
      return;
    }
    if (aheadBuffer !== undefined) {
      // Copied into the header's buffer and written.
      buffers.smallPool?.give(aheadBuffer);
      aheadBuffer = undefined;
    }
    let firstRead: FirstRead;
    if (early === undefined) {
      firstRead = { buffer: undefined, pending: undefined, sent };
    } else if (sent > 0) {
      // Copied into the header's buffer and written: the read's buffer is free again.
      activity.count += 1;
      buffers.smallPool?.give(early.buffer);
      firstRead = { buffer: undefined, pending: undefined, sent };
    } else {
      firstRead = { buffer: early.buffer, pending: early.promise, sent: 0 };
    }
    // The relay owns the first read and its buffer from here on.
    early = undefined;
    const result = await relay(client, backend, {
      upstream: series.upstream,
      downstream: series.downstream,
      signal: stop.signal,
      activity,
      buffers,
      firstRead,
    });
    if (context.debug) {
      log.debug("connection closed", {
        listener: context.listener,
        client: formatHostPort(clientAddress.hostname, clientAddress.port),
        ...(destination.route === undefined ? {} : { route: destination.route }),
        end: result.end.kind === "aborted" && result.end.reason === "idle" ? "idle-timeout" : result.end.kind,
        upstreamBytes: result.upstreamBytes,
        downstreamBytes: result.downstreamBytes,
        ...(result.end.kind === "failed" ? { direction: result.end.direction, error: result.end.error } : {}),
      });
    }
  } finally {
    stop.signal.removeEventListener("abort", closeClient);
    if (aheadBuffer !== undefined) buffers.smallPool?.give(aheadBuffer);
    if (early !== undefined) {
      // Ended before the relay: close the client so its read ends, then reuse the buffer.
      closeQuietly(client);
      await early.release(buffers.smallPool);
    }
    untrack();
    series.active.value -= 1;
    series.duration.observe((context.clock.now() - started) / 1000);
  }
}

/** The backend `first` chooses (the default target unless a route names it), counted. */
function routedDestination(
  context: ConnectionContext,
  holder: RouteHolder,
  first: FirstBytes | undefined,
): Destination {
  const choice = holder.choose(first?.kind === "found" ? first.name : undefined);
  choice.connections.value += 1;
  const target = choice.target;
  if (target === undefined) {
    return {
      host: context.backendHost,
      port: context.backendPort,
      proxyProtocol: context.proxyProtocol,
      route: "default",
    };
  }
  const { backend } = target;
  return {
    host: backend.address,
    port: context.listener === "http" ? backend.httpPort : backend.httpsPort,
    proxyProtocol: backend.proxyProtocol,
    route: target.name,
  };
}
