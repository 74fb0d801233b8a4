/**
 * The DNS server: one port, UDP and TCP, answering from a swappable {@linkcode LocalAnswerer} and
 * forwarding the rest. Shutdown stops answering, answers the queries in flight (forwarded ones wait
 * at most their upstream timeouts), then closes the sockets.
 *
 * UDP is read by {@linkcode UDP_RECEIVERS} loops at once, each into its own buffer (one receive
 * per datagram would otherwise allocate 64 KiB), so the kernel has a read waiting while a query is
 * answered; each query is copied out of the buffer, since a forwarded one outlives the next read.
 *
 * Effects: binds and serves sockets; time and randomness through injected dependencies.
 *
 * @module
 */

import type { DnsMetrics } from "../dns_metrics.ts";
import type { LocalAnswerer } from "../local_answer.ts";
import { AnswerCache } from "../upstream/answer_cache.ts";
import { Forwarder, type ProbeResult } from "../upstream/forwarder.ts";
import { secureRandom } from "../upstream/secure_random.ts";
import type { UpstreamEndpoint } from "../upstream/upstream_socket_pool.ts";
import type { Clock } from "../../util/clock.ts";
import { formatIp, parseIp, unmapIpv4 } from "../../util/ip.ts";
import { formatHostPort, type ListenAddress } from "../../util/listen_address.ts";
import type { Log } from "../../util/logging.ts";
import { Throttle } from "../../util/throttle.ts";
import { UDP_READ_BUFFER_BYTES } from "../upstream/upstream_socket_pool.ts";
import { bindDnsListeners, type DnsListeners } from "./bind_dns_listeners.ts";
import { type DnsQueryEvent, type HandlerResult, QueryHandler } from "./query_handler.ts";
import { serveTcpSession } from "./serve_tcp_session.ts";

/** Settings and dependencies of a {@linkcode DnsServer}. */
export interface DnsServerOptions {
  readonly listen: ListenAddress;
  /** The first answerer; {@linkcode DnsServer.setAnswerer} swaps it. */
  readonly answer: LocalAnswerer;
  readonly upstreams: readonly UpstreamEndpoint[];
  /** The UDP payload size advertised and sent at most (at least 512). */
  readonly maxUdpPayload: number;
  /** Per attempt at an upstream. */
  readonly upstreamTimeoutMs: number;
  /** Forwarded answers cached at most (`--cache-size`); 0 or none: no cache. */
  readonly cacheSize?: number;
  readonly tcpIdleTimeoutMs: number;
  /** Beyond this, new connections are closed at once (default 256). */
  readonly maxTcpConnections?: number;
  /** Default 32. */
  readonly maxTcpQueriesPerConnection?: number;
  readonly clock: Clock;
  /** For upstream query IDs (default: the system's CSPRNG). */
  readonly random?: () => number;
  readonly log: Log;
  readonly metrics: DnsMetrics;
  /** Hears about every query; must be cheap and must not throw. */
  readonly observe?: (event: DnsQueryEvent) => void;
}

/** UDP receive loops at once. */
export const UDP_RECEIVERS = 4;

/** The address a query came from, as the answerer wants it: IPv4-mapped IPv6 as IPv4. */
function clientAddress(address: string): string {
  if (!address.includes(":")) return address;
  if (address.startsWith("::ffff:") && address.includes(".")) return address.slice(7);
  const parsed = parseIp(address);
  return parsed === undefined ? address : formatIp(unmapIpv4(parsed));
}

/** A bound DNS server: {@linkcode DnsServer.start} binds, {@linkcode DnsServer.run} serves. */
export class DnsServer {
  readonly #options: DnsServerOptions;
  readonly #listeners: DnsListeners;
  readonly #forwarder: Forwarder;
  readonly #handler: QueryHandler;
  #running = false;

  private constructor(options: DnsServerOptions, listeners: DnsListeners) {
    this.#options = options;
    this.#listeners = listeners;
    this.#forwarder = new Forwarder({
      upstreams: options.upstreams,
      maxUdpPayload: options.maxUdpPayload,
      timeoutMs: options.upstreamTimeoutMs,
      clock: options.clock,
      random: options.random ?? secureRandom,
      onError: (reason) => {
        options.metrics.upstreamErrors.labels({ reason }).value += 1;
      },
      ...((options.cacheSize ?? 0) > 0
        ? {
          cache: new AnswerCache({
            maxEntries: options.cacheSize!,
            clock: options.clock,
            maxUdpPayload: options.maxUdpPayload,
          }),
          onCache: (event: "hit" | "miss" | "stored", cache: AnswerCache) => {
            const { metrics } = options;
            if (event !== "stored") metrics.cacheLookups.labels({ result: event }).value += 1;
            metrics.cacheEntries.labels({}).value = cache.size;
            metrics.cacheBytes.labels({}).value = cache.bytes;
          },
        }
        : {}),
    });
    this.#handler = new QueryHandler({
      answerer: options.answer,
      forwarder: this.#forwarder,
      maxUdpPayload: options.maxUdpPayload,
      clock: options.clock,
      log: options.log,
      metrics: options.metrics,
      ...(options.observe === undefined ? {} : { observe: options.observe }),
    });
  }

  /** Binds UDP and TCP; throws on a bind failure or a bad upstream, leaving nothing open. */
  static start(options: DnsServerOptions): Promise<DnsServer> {
    try {
      const listeners = bindDnsListeners(options.listen);
      try {
        return Promise.resolve(new DnsServer(options, listeners));
      } catch (error) {
        listeners.tcp.close();
        listeners.udp.close();
        throw error;
      }
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The bound `host:port`, per transport (the same for both). */
  get addresses(): { readonly udp: string; readonly tcp: string } {
    const address = formatHostPort(this.#listeners.hostname, this.#listeners.port);
    return { udp: address, tcp: address };
  }

  get port(): number {
    return this.#listeners.port;
  }

  /** Swaps the answerer for every query from now on. */
  setAnswerer(answer: LocalAnswerer): void {
    this.#handler.answerer = answer;
  }

  /** Whether an upstream answers at all (any RCODE): for readiness. */
  probeUpstream(signal: AbortSignal): Promise<ProbeResult> {
    return this.#forwarder.probe(signal);
  }

  /** Releases the sockets of a server that will not run; after `run` they are closed already. */
  close(): void {
    if (this.#running) return;
    try {
      this.#listeners.tcp.close();
    } catch {
      // Closed already.
    }
    try {
      this.#listeners.udp.close();
    } catch {
      // Closed already.
    }
    this.#forwarder.close();
  }

  /** Serves until `signal` aborts, then shuts down. */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#running) throw new Error("DnsServer.run called twice");
    this.#running = true;
    // Counted rather than kept in a set: a forwarded UDP query should cost no extra promise.
    let inFlight = 0;
    let drained: (() => void) | undefined;
    const track = (promise: Promise<unknown>) => {
      inFlight += 1;
      promise.then(() => {
        inFlight -= 1;
        if (inFlight === 0) drained?.();
      });
    };
    const { stop: stopUdp, receiving } = this.#serveUdp(track);
    const accepting = this.#acceptTcp(signal, track);
    if (!signal.aborted) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    try {
      this.#listeners.tcp.close();
    } catch {
      // Closed already.
    }
    stopUdp();
    await accepting;
    if (inFlight > 0) await new Promise<void>((resolve) => drained = resolve);
    // Closing ends the receives still waiting; the port is free once it returns.
    try {
      this.#listeners.udp.close();
    } catch {
      // Closed already.
    }
    await receiving;
    this.#forwarder.close();
  }

  /** Starts the receive loops; `stop` makes them answer nothing more, `receiving` ends with them. */
  #serveUdp(track: (promise: Promise<unknown>) => void): {
    readonly stop: () => void;
    readonly receiving: Promise<void>;
  } {
    const { udp } = this.#listeners;
    const handler = this.#handler;
    const log = this.#options.log;
    const throttle = new Throttle(this.#options.clock, 10_000);
    let stopped = false;
    const failed = (error: unknown) => {
      // A reply still being sent when the socket closes at shutdown is no socket error.
      if (stopped && error instanceof Deno.errors.BadResource) return;
      const decision = throttle.check("socket");
      if (decision.emit) log.warn("UDP socket error", { error, suppressed: decision.suppressed });
    };
    const reply = (response: HandlerResult, to: Deno.Addr) => {
      if (response !== undefined) udp.send(response, to).catch(failed);
    };
    const answer = (message: Uint8Array, from: Deno.NetAddr) => {
      let result: HandlerResult | Promise<HandlerResult>;
      try {
        result = handler.handle(message, { transport: "udp", client: clientAddress(from.hostname) });
      } catch (error) {
        if (throttle.check("handler").emit) log.error("answering a UDP query failed", { error });
        return;
      }
      if (result instanceof Promise) {
        track(result.then((response) => reply(response, from), (error) => {
          if (throttle.check("handler").emit) log.error("answering a UDP query failed", { error });
        }));
      } else reply(result, from);
    };
    const receiver = async () => {
      const buffer = new Uint8Array(UDP_READ_BUFFER_BYTES);
      while (true) {
        let received: [Uint8Array, Deno.Addr];
        try {
          received = await udp.receive(buffer);
        } catch (error) {
          if (stopped || error instanceof Deno.errors.BadResource) return;
          failed(error);
          continue;
        }
        if (!stopped) answer(received[0].slice(), received[1] as Deno.NetAddr);
      }
    };
    const receiving = Promise.all(Array.from({ length: UDP_RECEIVERS }, receiver)).then(() => {});
    return { stop: () => stopped = true, receiving };
  }

  async #acceptTcp(signal: AbortSignal, track: (promise: Promise<unknown>) => void): Promise<void> {
    const { clock, log, metrics, tcpIdleTimeoutMs } = this.#options;
    const maxConnections = this.#options.maxTcpConnections ?? 256;
    const maxInFlight = this.#options.maxTcpQueriesPerConnection ?? 32;
    const active = metrics.tcpActive.labels({});
    const rejected = metrics.tcpRejected.labels({});
    const throttle = new Throttle(clock, 10_000);
    let open = 0;
    let backoffMs = 0;
    while (!signal.aborted) {
      let conn: Deno.TcpConn;
      try {
        conn = await this.#listeners.tcp.accept();
        backoffMs = 0;
      } catch (error) {
        if (signal.aborted) return;
        // Out of descriptors or a connection reset before accept: pause, then go on.
        backoffMs = Math.min(1_000, Math.max(5, backoffMs * 2));
        const decision = throttle.check("accept");
        if (decision.emit) {
          log.warn("accepting a DNS TCP connection failed", { error, suppressed: decision.suppressed });
        }
        await clock.sleep(backoffMs, signal);
        continue;
      }
      if (open >= maxConnections) {
        rejected.value += 1;
        const decision = throttle.check("limit");
        if (decision.emit) {
          log.warn("DNS TCP connection limit reached; closing new connections", {
            limit: maxConnections,
            suppressed: decision.suppressed,
          });
        }
        conn.close();
        continue;
      }
      open += 1;
      active.value += 1;
      const client = clientAddress(conn.remoteAddr.hostname);
      const handler = this.#handler;
      const session = serveTcpSession(conn, {
        handle: (query) => handler.handle(query, { transport: "tcp", client }),
        clock,
        idleTimeoutMs: tcpIdleTimeoutMs,
        maxInFlight,
        stop: signal,
      }).catch((error) => {
        if (throttle.check("session").emit) log.error("a DNS TCP connection failed", { error });
      }).finally(() => {
        open -= 1;
        active.value -= 1;
      });
      track(session);
    }
  }
}
