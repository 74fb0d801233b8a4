/**
 * Backend dialing with a deadline, through an injected dialer (tests stand in a silent backend).
 *
 * Traffic dials share one timing wheel ({@linkcode DialDeadlines}) instead of a timer each, and
 * cache the address a name reached (measured: otherwise each connection runs getaddrinfo).
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
 * Dials the address a host name last reached, for the cache's TTL. When that fails (the backend
 * moved) it forgets it and dials the name at once, so errors are classified as without a cache.
 * Traffic only: the readiness probe resolves every time, so `/readyz` sees a name that broke.
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

/** How long a cached backend address is trusted: CoreDNS's own TTL for Service records. */
export const TRAFFIC_ADDRESS_TTL_MS = 5_000;

/** The dialer for proxied connections: {@linkcode systemDialer} behind a caching dialer. */
export function systemTrafficDialer(clock: Clock): Dialer {
  return cachingDialer(systemDialer, new AddressCache(clock, TRAFFIC_ADDRESS_TTL_MS));
}

/** What a dial out of time rejects with (named {@linkcode DIAL_TIMEOUT_ERROR}). */
export class DialTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`dial timed out after ${formatDuration(timeoutMs)}`);
    this.name = DIAL_TIMEOUT_ERROR;
  }
}

/**
 * One timing wheel for every dial of one timeout (tick: 1/20 of it, 10–250 ms); run it with
 * {@linkcode DeadlineTimer.run} for as long as dials use it.
 */
export class DialDeadlines extends DeadlineTimer<AbortController> {
  readonly timeoutMs: number;

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
  /** Shared deadlines instead of a timer (their timeout wins); the dialer must honour `signal`. */
  readonly deadlines?: DialDeadlines | undefined;
}

/** Dials `host:port`, giving up after `timeoutMs` with a {@linkcode DialTimeoutError}. */
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
