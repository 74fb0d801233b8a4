/**
 * TCP listeners: the bound address, and an accept loop that survives running out of descriptors.
 *
 * Effects: accepts on a listener, logs, sleeps through the injected clock.
 *
 * @module
 */

import type { Clock } from "../util/clock.ts";
import { formatHostPort } from "../util/listen_address.ts";
import type { NumberSeries } from "../util/metrics.ts";
import { Throttle } from "../util/throttle.ts";
import type { Log } from "../util/logging.ts";

/** The actual `host:port` a listener is bound to (useful when port 0 was asked for). */
export function boundAddress(listener: Deno.Listener): string {
  const addr = listener.addr;
  return addr.transport === "tcp" ? formatHostPort(addr.hostname, addr.port) : String(addr.transport);
}

/** Options for {@linkcode acceptLoop}. */
export interface AcceptLoopOptions {
  readonly name: string;
  readonly log: Log;
  readonly clock: Clock;
  readonly errors: NumberSeries;
  /** Aborted when the listener is being closed on purpose; accept errors then end the loop. */
  readonly signal: AbortSignal;
  /** Called for each accepted connection; must not throw and should not be awaited on. */
  readonly onConnection: (conn: Deno.TcpConn) => void;
}

const FIRST_BACKOFF_MS = 5;
const MAX_BACKOFF_MS = 1_000;
/** At most one "accept failed" WARN per listener this often, whatever the errors in between. */
const WARN_INTERVAL_MS = 10_000;

type AcceptState =
  | { readonly kind: "healthy" }
  | { readonly kind: "failing"; readonly backoffMs: number; readonly warned: boolean };

/**
 * Accepts until the signal aborts. Other accept errors (EMFILE, a reset before accept) are retried
 * after a doubling pause, so the process neither dies nor spins; INFO follows only a reported run.
 */
export async function acceptLoop(listener: Deno.TcpListener, options: AcceptLoopOptions): Promise<void> {
  const throttle = new Throttle(options.clock, WARN_INTERVAL_MS);
  let state: AcceptState = { kind: "healthy" };
  while (!options.signal.aborted) {
    let conn: Deno.TcpConn;
    try {
      conn = await listener.accept();
    } catch (error) {
      if (options.signal.aborted) return;
      options.errors.value += 1;
      const backoffMs: number = state.kind === "failing"
        ? Math.min(state.backoffMs * 2, MAX_BACKOFF_MS)
        : FIRST_BACKOFF_MS;
      let warned: boolean = state.kind === "failing" && state.warned;
      if (!warned) {
        const decision = throttle.check("accept");
        if (decision.emit) {
          options.log.warn("accept failed; backing off and retrying", {
            listener: options.name,
            error,
            suppressed: decision.suppressed,
          });
          warned = true;
        }
      }
      state = { kind: "failing", backoffMs, warned };
      await options.clock.sleep(backoffMs, options.signal);
      continue;
    }
    if (state.kind === "failing" && state.warned) {
      options.log.info("accepting connections again", { listener: options.name });
    }
    state = { kind: "healthy" };
    options.onConnection(conn);
  }
}
