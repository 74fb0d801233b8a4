/**
 * SIGTERM and SIGINT as two abort signals: the first starts a graceful shutdown, a second one
 * asks to cut it short.
 *
 * Effect: installs process signal handlers (until disposed).
 *
 * @module
 */

/** Signals that drive a graceful shutdown. */
export interface ShutdownSignals {
  /** Aborts on the first SIGTERM/SIGINT: begin the graceful shutdown. */
  readonly shutdown: AbortSignal;
  /** Aborts on a second signal: close everything now. */
  readonly force: AbortSignal;
}

/** The installed handlers. */
export interface ShutdownController extends ShutdownSignals {
  /** Which signal started the shutdown, once one has. */
  readonly received: () => Deno.Signal | undefined;
  /** Removes the signal handlers. */
  dispose(): void;
}

/** Installs SIGTERM and SIGINT handlers: the first aborts `shutdown`, the next one `force`. */
export function installShutdownSignals(): ShutdownController {
  const shutdown = new AbortController();
  const force = new AbortController();
  let received: Deno.Signal | undefined;
  const handlers = (["SIGTERM", "SIGINT"] as const).map((signal) => {
    const handler = () => {
      if (!shutdown.signal.aborted) {
        received = signal;
        shutdown.abort();
      } else {
        force.abort();
      }
    };
    Deno.addSignalListener(signal, handler);
    return [signal, handler] as const;
  });
  return {
    shutdown: shutdown.signal,
    force: force.signal,
    received: () => received,
    dispose() {
      for (const [signal, handler] of handlers) Deno.removeSignalListener(signal, handler);
    },
  };
}
