/**
 * TCP listeners: the bound address, and an accept loop that survives transient errors such as
 * running out of file descriptors. Binding follows the shared rule of `daemon/bind_dual_stack.ts`.
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
/** At most one "accept failed" WARN per listener in this long, however errors and successes alternate. */
const WARN_INTERVAL_MS = 10_000;

/** Where the accept loop stands. */
type AcceptState =
  | { readonly kind: "healthy" }
  | { readonly kind: "failing"; readonly backoffMs: number; readonly warned: boolean };

/**
 * Accepts until the listener is closed on purpose. Any other accept error (EMFILE, ENFILE,
 * ENOBUFS, a connection reset before accept) is retried after a doubling pause from 5 ms to 1 s,
 * so the process neither dies nor spins, and picks up again as soon as descriptors free up.
 * The WARN is limited to one per 10 s per listener (with the number held back), and the INFO
 * "accepting connections again" follows only a run of errors that was reported.
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
