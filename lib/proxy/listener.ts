/**
 * TCP listeners: binding with Go's "empty host means every interface" rule, and an accept loop
 * that survives transient errors such as running out of file descriptors.
 *
 * @module
 */

import type { Logger } from "@logtape/logtape";
import type { Clock } from "../util/clock.ts";
import { formatHostPort, type ListenAddress } from "../util/listen_address.ts";
import type { NumberSeries } from "../util/metrics.ts";

/**
 * Binds a TCP listener. An empty host binds `[::]` (dual-stack, IPv4 peers appear as
 * `::ffff:a.b.c.d`) and falls back to `0.0.0.0` where the node has IPv6 turned off.
 */
export function bindTcp(address: ListenAddress): Deno.TcpListener {
  if (address.host !== undefined) return Deno.listen({ hostname: address.host, port: address.port });
  try {
    return Deno.listen({ hostname: "::", port: address.port });
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse || error instanceof Deno.errors.PermissionDenied) throw error;
    return Deno.listen({ hostname: "0.0.0.0", port: address.port });
  }
}

/** The actual `host:port` a listener is bound to (useful when port 0 was asked for). */
export function boundAddress(listener: Deno.Listener): string {
  const addr = listener.addr;
  return addr.transport === "tcp" ? formatHostPort(addr.hostname, addr.port) : String(addr.transport);
}

/** Options for {@linkcode acceptLoop}. */
export interface AcceptLoopOptions {
  readonly name: string;
  readonly log: Logger;
  readonly clock: Clock;
  readonly errors: NumberSeries;
  /** Aborted when the listener is being closed on purpose; accept errors then end the loop. */
  readonly signal: AbortSignal;
  /** Called for each accepted connection; must not throw and should not be awaited on. */
  readonly onConnection: (conn: Deno.TcpConn) => void;
}

const FIRST_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 1_000;

/**
 * Accepts until the listener is closed on purpose. Any other accept error (EMFILE, ENFILE,
 * ENOBUFS, a connection reset before accept) is logged once per run of errors and retried after
 * a doubling pause from 5 ms to 1 s, so the process neither dies nor spins, and picks up again
 * as soon as descriptors free up.
 */
export async function acceptLoop(listener: Deno.TcpListener, options: AcceptLoopOptions): Promise<void> {
  let backoff = 0;
  while (!options.signal.aborted) {
    let conn: Deno.TcpConn;
    try {
      conn = await listener.accept();
    } catch (error) {
      if (options.signal.aborted) return;
      options.errors.value += 1;
      if (backoff === 0) {
        options.log.warn("accept failed; backing off and retrying", { listener: options.name, error });
      }
      backoff = backoff === 0 ? FIRST_BACKOFF_MS : Math.min(backoff * 2, MAX_BACKOFF_MS);
      await options.clock.sleep(backoff, options.signal);
      continue;
    }
    if (backoff !== 0) {
      options.log.info("accepting connections again", { listener: options.name });
      backoff = 0;
    }
    options.onConnection(conn);
  }
}
