/**
 * The proxy's traffic listeners, live connections and shutdown sequence.
 *
 * On the first SIGTERM/SIGINT `/readyz` fails at once, yet connections are accepted for the drain
 * delay (kube-proxy elsewhere sends them until the endpoint removal reaches it); then listeners
 * close and connections run until the shutdown grace, counted from the signal. A second signal
 * closes everything.
 *
 * Effects: binds sockets and serves connections; time goes through the injected clock.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import { toSeconds } from "../util/duration.ts";
import type { ListenAddress } from "../util/listen_address.ts";
import { Throttle } from "../util/throttle.ts";
import { type ConnectionContext, handleConnection, listenerSeries, routeReadSeries } from "./connection.ts";
import { DialDeadlines, type Dialer } from "./dialer.ts";
import { IdleReaper } from "./idle_reaper.ts";
import { acceptLoop, boundAddress } from "./listener.ts";
import { bindDualStack } from "../daemon/bind_dual_stack.ts";
import type { ProxyProtocolVersion } from "./proxy_protocol.ts";
import type { ListenerName, ProxyMetrics } from "./proxy_metrics.ts";
import type { RelayBuffers } from "./relay.ts";
import type { Log } from "../util/logging.ts";
import type { ShutdownSignals } from "../daemon/shutdown_signals.ts";
import type { RouteTable } from "../routes/route_table.ts";
import { ReadDeadlines } from "./routing/first_bytes.ts";
import { RouteHolder } from "./routing/route_holder.ts";

/** One traffic listener and the backend port it forwards to. */
export interface TrafficListenerConfig {
  readonly name: ListenerName;
  readonly address: ListenAddress;
  readonly backendPort: number;
}

/** Validated proxy settings. */
export interface ProxyServerConfig {
  readonly listeners: readonly TrafficListenerConfig[];
  readonly backendHost: string;
  /** The port `/readyz` dials. */
  readonly readinessPort: number;
  readonly proxyProtocol: ProxyProtocolVersion;
  readonly dialTimeoutMs: number;
  readonly readyTimeoutMs: number;
  readonly shutdownGraceMs: number;
  readonly drainDelayMs: number;
  /** Close connections silent this long in both directions; 0 disables. */
  readonly idleTimeoutMs: number;
  /** Set with `--routes-file`: read each connection's first bytes to choose its backend. */
  readonly routing?: RoutingConfig;
}

/** How connections read their first bytes when routing. */
export interface RoutingConfig {
  /** `--route-read-timeout`: a client that has not named its host by then is closed. */
  readonly readTimeoutMs: number;
  /** The most bytes read ahead (16 KiB): a longer hello or head goes to the default target. */
  readonly maxBytes: number;
}

/** What the server uses from the outside world. */
export interface ProxyServerDeps {
  readonly dial: Dialer;
  readonly clock: Clock;
  readonly log: Log;
  /** Per-connection debug lines (checked once, off the hot path). @default false */
  readonly debugLogging?: boolean;
  readonly metrics: ProxyMetrics;
  readonly buffers?: RelayBuffers;
  /** Binds a listener; workers set `reusePort`. @default `Deno.listen({ hostname, port })` */
  readonly listen?: (hostname: string, port: number) => Deno.TcpListener;
}

/** Where the server's phase stands. */
export type ProxyPhase =
  | { readonly kind: "serving" }
  | { readonly kind: "draining"; readonly deadline: number }
  | { readonly kind: "closing" }
  | { readonly kind: "stopped" };

interface BoundListener {
  readonly config: TrafficListenerConfig;
  readonly listener: Deno.TcpListener;
  readonly address: string;
}

/** A running proxy: {@linkcode ProxyServer.start} binds, {@linkcode ProxyServer.run} serves. */
export class ProxyServer {
  readonly #config: ProxyServerConfig;
  readonly #deps: ProxyServerDeps;
  readonly #listeners: readonly BoundListener[];
  readonly #acceptStop = new AbortController();
  /** Live connections: their completion and the controller that closes them. */
  readonly #connections = new Map<Promise<void>, AbortController>();
  /** The route table served, with `config.routing`. */
  readonly #routes: RouteHolder | undefined;
  #phase: ProxyPhase = { kind: "serving" };

  private constructor(config: ProxyServerConfig, deps: ProxyServerDeps, listeners: readonly BoundListener[]) {
    this.#config = config;
    this.#deps = deps;
    this.#listeners = listeners;
    this.#routes = config.routing === undefined ? undefined : new RouteHolder(deps.metrics.routeConnections);
  }

  /** Binds every traffic listener, or none: on a failure, closes those bound and throws. */
  static start(config: ProxyServerConfig, deps: ProxyServerDeps): ProxyServer {
    const bound: BoundListener[] = [];
    const listen = deps.listen ?? ((hostname: string, port: number) => Deno.listen({ hostname, port }));
    try {
      for (const listenerConfig of config.listeners) {
        const listener = bindDualStack(
          { name: listenerConfig.name, address: listenerConfig.address },
          listen,
        );
        bound.push({ config: listenerConfig, listener, address: boundAddress(listener) });
      }
      return new ProxyServer(config, deps, bound);
    } catch (error) {
      for (const { listener } of bound) listener.close();
      throw error;
    }
  }

  /** Bound addresses by listener name (`http`, `https`). */
  get addresses(): Readonly<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const { config, address } of this.#listeners) out[config.name] = address;
    return out;
  }

  /** Releases the listeners of a server that will not run, or whose run failed. */
  close(): void {
    for (const { listener } of this.#listeners) {
      try {
        listener.close();
      } catch {
        // Closed already.
      }
    }
  }

  /**
   * Serves `table` from the next connection on (connections in flight keep their backend).
   * Ignored without `config.routing`.
   */
  setRoutes(table: RouteTable): void {
    this.#routes?.set(table);
  }

  /** The current phase. */
  get phase(): ProxyPhase {
    return this.#phase;
  }

  /** Connections open right now. */
  get activeConnections(): number {
    return this.#connections.size;
  }

  /** Serves until shutdown completes and every socket and listener is closed. */
  async run(signals: ShutdownSignals): Promise<void> {
    const { clock, log } = this.#deps;
    const throttle = new Throttle(clock, 10_000);
    const idle = new IdleReaper(clock, this.#config.idleTimeoutMs);
    const reaperStop = new AbortController();
    const reaper = idle.run(reaperStop.signal);
    const deadlines = new DialDeadlines(clock, this.#config.dialTimeoutMs);
    const ticking = deadlines.run(reaperStop.signal);
    const debug = this.#deps.debugLogging ?? false;
    const routing = this.#config.routing;
    const readDeadlines = routing === undefined ? undefined : new ReadDeadlines(clock, routing.readTimeoutMs);
    const reading = readDeadlines?.run(reaperStop.signal);
    const loops = this.#listeners.map(({ config, listener }) => {
      const series = listenerSeries(this.#deps.metrics, config.name);
      const context: ConnectionContext = {
        listener: config.name,
        backendHost: this.#config.backendHost,
        backendPort: config.backendPort,
        proxyProtocol: this.#config.proxyProtocol,
        dialTimeoutMs: this.#config.dialTimeoutMs,
        dial: this.#deps.dial,
        deadlines,
        series,
        log,
        throttle,
        clock,
        idle,
        debug,
        ...(this.#deps.buffers === undefined ? {} : { buffers: this.#deps.buffers }),
        ...(routing === undefined || readDeadlines === undefined || this.#routes === undefined ? {} : {
          routing: {
            holder: this.#routes,
            deadlines: readDeadlines,
            maxBytes: routing.maxBytes,
            reads: routeReadSeries(this.#deps.metrics, config.name),
          },
        }),
      };
      return acceptLoop(listener, {
        name: config.name,
        log,
        clock,
        errors: series.acceptErrors,
        signal: this.#acceptStop.signal,
        onConnection: (conn) => {
          const stop = new AbortController();
          const done = handleConnection(conn, { context, stop });
          this.#connections.set(done, stop);
          done.finally(() => this.#connections.delete(done));
        },
      });
    });

    if (!signals.shutdown.aborted) {
      await new Promise<void>((resolve) =>
        signals.shutdown.addEventListener("abort", () => resolve(), { once: true })
      );
    }
    const start = clock.now();
    const deadline = start + this.#config.shutdownGraceMs;
    this.#phase = { kind: "draining", deadline };
    const drainFor = Math.min(this.#config.drainDelayMs, this.#config.shutdownGraceMs);
    log.info("shutdown requested; readiness now fails, still accepting during the drain delay", {
      drainDelaySeconds: toSeconds(drainFor),
      shutdownGraceSeconds: toSeconds(this.#config.shutdownGraceMs),
      activeConnections: this.#connections.size,
    });
    await clock.sleep(drainFor, signals.force);

    this.#phase = { kind: "closing" };
    this.#acceptStop.abort();
    for (const { listener } of this.#listeners) {
      try {
        listener.close();
      } catch {
        // Closed already.
      }
    }
    await Promise.all(loops);
    if (this.#connections.size > 0) {
      log.info("listeners closed; waiting for connections in flight", {
        activeConnections: this.#connections.size,
        remainingSeconds: toSeconds(Math.max(0, deadline - clock.now())),
      });
      const waitStop = new AbortController();
      const stopWaiting = () => waitStop.abort();
      // A second signal that came during the drain delay has already fired its abort event,
      // so a listener added now would never run: check the flag as well.
      if (signals.force.aborted) waitStop.abort();
      else signals.force.addEventListener("abort", stopWaiting, { once: true });
      const allDone = Promise.all([...this.#connections.keys()]).then(() => true);
      const inTime = await Promise.race([
        allDone,
        clock.sleep(deadline - clock.now(), waitStop.signal).then(() => false),
      ]);
      waitStop.abort();
      signals.force.removeEventListener("abort", stopWaiting);
      if (!inTime && this.#connections.size > 0) {
        if (signals.force.aborted) {
          log.warn("second shutdown signal; closing active connections now", {
            activeConnections: this.#connections.size,
          });
        } else {
          log.warn("shutdown grace expired with active connections; closing them", {
            activeConnections: this.#connections.size,
          });
        }
      }
    }
    for (const stop of this.#connections.values()) stop.abort("shutdown");
    await Promise.all([...this.#connections.keys()]);
    reaperStop.abort();
    await Promise.all([reaper, ticking, reading]);
    this.#phase = { kind: "stopped" };
    log.info("proxy stopped", { durationSeconds: toSeconds(clock.now() - start) });
  }
}
