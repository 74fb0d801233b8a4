/**
 * Backend dialing with a deadline. The dial function is a parameter so tests can stand in a
 * backend that never answers without needing a black-holed network.
 *
 * Effects: opens TCP connections (through the injected dialer) and keeps a timer.
 *
 * @module
 */

import { formatDuration } from "../util/duration.ts";
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

/** The error a dial that ran out of time rejects with (its name is {@linkcode DIAL_TIMEOUT_ERROR}). */
export class DialTimeoutError extends Error {
  /** Says how long the dial was given. */
  constructor(timeoutMs: number) {
    super(`dial timed out after ${formatDuration(timeoutMs)}`);
    this.name = DIAL_TIMEOUT_ERROR;
  }
}

/** Where {@linkcode dialWithTimeout} dials, and how long it waits. */
export interface DialTarget {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
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
