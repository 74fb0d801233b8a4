/**
 * Backend dialing with a deadline. The dial function is a parameter so tests can stand in a
 * backend that never answers without needing a black-holed network.
 *
 * Deadlines: the proxy's dials share one {@linkcode DialDeadlines} (a timing wheel ticking while
 * dials are pending), so a dial arms no timer of its own; without one (the readiness probe, one
 * dial per probe) a dial keeps its own timer.
 *
 * Address cache: {@linkcode cachingDialer} dials the address a name last reached for a few
 * seconds instead of resolving the name per connection (measured: without it every connection
 * to a named backend runs getaddrinfo, reading `/etc/hosts` and, for cluster names, querying DNS
 * through the search list).
 *
 * Effects: opens TCP connections (through the injected dialer) and keeps timers.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import { DeadlineTimer } from "../util/deadline_timer.ts";
import { formatDuration } from "../util/duration.ts";
import { AddressCache } from "../util/address_cache.ts";
import { parseIp } from "../util/ip.ts";
import { DIAL_TIMEOUT_ERROR } from "./dial_cause.ts";

/** One connection to open. */
export interface DialRequest {
  readonly host: string;
  readonly port: number;
  /** Aborted when the caller gives up (the deadline passed): the dial must stop. */
  readonly signal: AbortSignal;
}

/** Opens a TCP connection; must give up when the request's signal aborts. */
export type Dialer = (request: DialRequest) => Promise<Deno.TcpConn>;

/** Dials with the runtime's resolver and TCP stack. */
export function systemDialer(request: DialRequest): Promise<Deno.TcpConn> {
  return Deno.connect({ hostname: request.host, port: request.port, signal: request.signal });
}

/**
 * A dialer that remembers, per host name, the address its last connection reached (in `cache`,
 * for the cache's TTL) and dials that address directly, so the system resolver runs once per
 * TTL instead of once per connection. A dial to a remembered address that fails (the backend
 * moved) forgets it and, unless the deadline ended it, dials the name again at once: the
 * connection still gets the resolver's current answer, and its failure, if any, is classified
 * as before (a name that stopped resolving reports the resolver's error). IP literals pass
 * through untouched. Meant for the traffic path; the readiness probe keeps resolving every time,
 * so `/readyz` reports a name that stopped resolving.
 *
 * @example
 * ```ts
 * import { systemClock } from "../util/clock.ts";
 * import { AddressCache } from "../util/address_cache.ts";
 * import { cachingDialer, systemDialer } from "./dialer.ts";
 *
 * const dial = cachingDialer(systemDialer, new AddressCache(systemClock, 5_000));
 * const conn = await dial({ host: "ingress.example.svc.cluster.local", port: 80, signal: new AbortController().signal });
 * conn.close();
 * ```
 */
export function cachingDialer(dial: Dialer, cache: AddressCache): Dialer {
  return async (request) => {
    if (parseIp(request.host) !== undefined) return await dial(request);
    const address = cache.lookup(request.host);
    if (address !== undefined) {
      try {
        return await dial({ host: address, port: request.port, signal: request.signal });
      } catch (error) {
        cache.forget(request.host);
        if (request.signal.aborted) throw error;
      }
    }
    const conn = await dial(request);
    cache.remember(request.host, conn.remoteAddr.hostname);
    return conn;
  };
}

/**
 * How long the traffic path trusts the address a backend name last reached: as long as the
 * cluster DNS's own TTL for Service records (CoreDNS's `kubernetes` plugin: 5 s), so a change of
 * address is followed no later than a resolver honouring that TTL would follow it.
 */
export const TRAFFIC_ADDRESS_TTL_MS = 5_000;

/**
 * The dialer for proxied connections: {@linkcode systemDialer} behind {@linkcode cachingDialer}
 * with a {@linkcode TRAFFIC_ADDRESS_TTL_MS} cache of its own.
 */
export function systemTrafficDialer(clock: Clock): Dialer {
  return cachingDialer(systemDialer, new AddressCache(clock, TRAFFIC_ADDRESS_TTL_MS));
}

/** The error a dial that ran out of time rejects with (its name is {@linkcode DIAL_TIMEOUT_ERROR}). */
export class DialTimeoutError extends Error {
  /** Says how long the dial was given. */
  constructor(timeoutMs: number) {
    super(`dial timed out after ${formatDuration(timeoutMs)}`);
    this.name = DIAL_TIMEOUT_ERROR;
  }
}

/**
 * Shared dial deadlines for one timeout: each pending dial is an entry in one timing wheel
 * (tick: a twentieth of the timeout, 10–250 ms), so a dial times out between 1× and 1× + one
 * tick. Run it with {@linkcode DeadlineTimer.run} for as long as dials use it.
 */
export class DialDeadlines extends DeadlineTimer<AbortController> {
  /** The timeout every dial through these deadlines gets. */
  readonly timeoutMs: number;

  /** Deadlines of `timeoutMs` on `clock`. */
  constructor(clock: Clock, timeoutMs: number) {
    super(clock, {
      tickMs: Math.min(Math.max(timeoutMs / 20, 10), 250),
      fire: (controller) => controller.abort(new DialTimeoutError(timeoutMs)),
    });
    this.timeoutMs = timeoutMs;
  }
}

/** Where {@linkcode dialWithTimeout} dials, and how long it waits. */
export interface DialTarget {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
  /**
   * Shared deadlines to use instead of a timer of this dial's own (their timeout replaces
   * `timeoutMs`). The dialer must then honour the signal: the dial ends when it rejects.
   */
  readonly deadlines?: DialDeadlines | undefined;
}

/**
 * Dials `host:port`, giving up after `timeoutMs` with a {@linkcode DialTimeoutError}.
 *
 * @example
 * ```ts
 * import { dialWithTimeout, systemDialer } from "./dialer.ts";
 *
 * const conn = await dialWithTimeout(systemDialer, {
 *   host: "ingress-nginx-controller.ingress-nginx.svc.cluster.local",
 *   port: 443,
 *   timeoutMs: 5_000,
 * });
 * conn.close();
 * ```
 */
export function dialWithTimeout(dial: Dialer, target: DialTarget): Promise<Deno.TcpConn> {
  return target.deadlines === undefined
    ? dialWithOwnTimer(dial, target)
    : dialShared(dial, target, target.deadlines);
}

async function dialShared(dial: Dialer, target: DialTarget, deadlines: DialDeadlines): Promise<Deno.TcpConn> {
  const controller = new AbortController();
  const { signal } = controller;
  const entry = deadlines.add(deadlines.timeoutMs, controller);
  let conn: Deno.TcpConn;
  try {
    conn = await dial({ host: target.host, port: target.port, signal });
  } catch (error) {
    // A dial stopped by its deadline reports the timeout, whatever the dialer rejected with.
    throw signal.aborted ? signal.reason : error;
  } finally {
    deadlines.cancel(entry);
  }
  if (signal.aborted) {
    // The deadline passed as the connection completed; a late connection must not leak.
    conn.close();
    throw signal.reason;
  }
  return conn;
}

function dialWithOwnTimer(dial: Dialer, target: DialTarget): Promise<Deno.TcpConn> {
  const { host, port, timeoutMs } = target;
  const controller = new AbortController();
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const error = new DialTimeoutError(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    dial({ host, port, signal: controller.signal }).then((conn) => {
      if (settled) {
        // The deadline already failed this dial; a late connection must not leak.
        conn.close();
        return;
      }
      settled = true;
      clearTimeout(timer);
      resolve(conn);
    }, (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(error);
    });
  });
}
