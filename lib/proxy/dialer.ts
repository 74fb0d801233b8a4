/**
 * Backend dialing with a deadline. The dial function is a parameter so tests can stand in a
 * backend that never answers without needing a black-holed network.
 *
 * @module
 */

import { formatDuration } from "../util/duration.ts";
import { DIAL_TIMEOUT_ERROR } from "./dial_cause.ts";

/** Opens a TCP connection; must give up when the signal aborts. */
export type Dialer = (host: string, port: number, signal: AbortSignal) => Promise<Deno.TcpConn>;

/** Dials with the runtime's resolver and TCP stack. */
export function systemDialer(host: string, port: number, signal: AbortSignal): Promise<Deno.TcpConn> {
  return Deno.connect({ hostname: host, port, signal });
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
 * Dials `host:port`, giving up after `timeoutMs` with a {@linkcode DialTimeoutError}.
 *
 * @example
 * ```ts
 * const conn = await dialWithTimeout(systemDialer, "ingress-nginx-controller.ingress-nginx.svc.cluster.local", 443, 5000);
 * ```
 */
export function dialWithTimeout(
  dial: Dialer,
  host: string,
  port: number,
  timeoutMs: number,
): Promise<Deno.TcpConn> {
  const controller = new AbortController();
  return new Promise((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      const error = new DialTimeoutError(timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
    dial(host, port, controller.signal).then((conn) => {
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
