/**
 * The health listener every long-running subcommand serves (`--listen-health`), kept alive.
 *
 * `Deno.serve` stops for good when one accept fails (EMFILE), leaving the probes down and the
 * kubelet restarting a healthy pod; so a failed listener is bound again on its address, with a
 * doubling pause, and the probes recover with the process.
 *
 * Effects: binds sockets and serves HTTP; the clock and the bind function can be injected.
 *
 * @module
 */

import { type Clock, systemClock } from "../util/clock.ts";
import { formatHostPort, type ListenAddress } from "../util/listen_address.ts";
import type { Log } from "../util/logging.ts";
import { bindDualStack } from "./bind_dual_stack.ts";
import { healthHandler, type HealthRoutes } from "./health_handler.ts";

/** What {@linkcode HealthListener} needs of a running HTTP server. */
export interface ServedHttp {
  readonly addr: Deno.NetAddr;
  /** Settles when the server stops: resolves after `signal` aborted, rejects when it failed. */
  readonly finished: Promise<void>;
}

/** Starts an HTTP server on one host and port, stopping it when `signal` aborts. */
export type ServeHttp = (
  where: { readonly hostname: string; readonly port: number; readonly signal: AbortSignal },
  handler: (request: Request) => Promise<Response>,
) => ServedHttp;

/** `Deno.serve`, quiet (no "Listening on" line). */
const denoServe: ServeHttp = ({ hostname, port, signal }, handler) =>
  Deno.serve({ hostname, port, signal, onListen: () => {} }, handler);

/** Options for {@linkcode HealthListener.start}. */
export interface HealthListenerOptions {
  /** Where to listen; no host means every interface (`::`, or `0.0.0.0` without IPv6). */
  readonly address: ListenAddress;
  readonly routes: HealthRoutes;
  /** Gets the WARN when the listener fails and the INFO when it serves again. */
  readonly log: Log;
  /** Times the pauses between attempts to bind again. @default systemClock */
  readonly clock?: Clock;
  /** Starts the HTTP server. @default Deno.serve */
  readonly serve?: ServeHttp;
}

/** First and longest pause between attempts to bring a failed listener back. */
const REBIND_FIRST_MS = 5;
const REBIND_MAX_MS = 1_000;

/** A running health listener: {@linkcode HealthListener.start} it (throws naming the address). */
export class HealthListener {
  readonly #log: Log;
  readonly #clock: Clock;
  readonly #stop = new AbortController();
  readonly #bind: (address: ListenAddress) => ServedHttp;
  #server: ServedHttp;
  /** Settles once the listener is down for good. */
  readonly #done: Promise<void>;

  private constructor(options: HealthListenerOptions) {
    this.#log = options.log;
    this.#clock = options.clock ?? systemClock;
    const handler = healthHandler(options.routes);
    const serve = options.serve ?? denoServe;
    this.#bind = (address) =>
      bindDualStack(
        { name: "health", address },
        (hostname, port) => serve({ hostname, port, signal: this.#stop.signal }, handler),
      );
    this.#server = this.#bind(options.address);
    this.#done = this.#supervise();
  }

  /** Binds the listener and keeps it serving until {@linkcode HealthListener.stop}. */
  static start(options: HealthListenerOptions): HealthListener {
    return new HealthListener(options);
  }

  /** Waits for the server to stop; when it failed, binds it again on the same address. */
  async #supervise(): Promise<void> {
    const stop = this.#stop.signal;
    const where = { host: this.#server.addr.hostname, port: this.#server.addr.port };
    const address = formatHostPort(where.host, where.port);
    while (true) {
      try {
        await this.#server.finished;
        return;
      } catch (error) {
        if (stop.aborted) return;
        this.#log.warn("health listener failed; binding it again", { address, error });
      }
      let pause = REBIND_FIRST_MS;
      while (true) {
        if (!(await this.#clock.sleep(pause, stop))) return;
        try {
          this.#server = this.#bind(where);
          break;
        } catch {
          pause = Math.min(pause * 2, REBIND_MAX_MS);
        }
      }
      this.#log.info("health listener serving again", { address });
    }
  }

  /** The bound address, `host:port` (the real port when 0 was asked for). */
  get address(): string {
    return formatHostPort(this.#server.addr.hostname, this.#server.addr.port);
  }

  /** Stops serving (requests in flight are answered first) and resolves once it has. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#done;
  }
}
