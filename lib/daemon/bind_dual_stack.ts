/**
 * The one rule for binding a listener, whatever it serves (a TCP relay, an HTTP health
 * listener): an address without a host (`:8080`, Go's "every interface") binds `::`, which is
 * dual-stack on Linux (IPv4 peers appear as `::ffff:a.b.c.d`), and falls back to `0.0.0.0`
 * where the node has IPv6 turned off. A port already taken or a port the process may not bind
 * is not an IPv6 problem, so those errors are not retried on `0.0.0.0`.
 *
 * Pure apart from the caller's `bind` function, which does the I/O (`Deno.listen`, `Deno.serve`).
 *
 * @module
 */

import { errorMessage } from "../util/error_message.ts";
import { formatHostPort, type ListenAddress } from "../util/listen_address.ts";

/** What to bind: the listener's name (for the error message) and its address. */
export interface BindTarget {
  /** Names the listener in errors: `listen <name> <address>: …`. */
  readonly name: string;
  readonly address: ListenAddress;
}

/**
 * Binds `target.address` with `bind`, trying `::` then `0.0.0.0` when the address has no host.
 * Throws an error naming the listener and the address as asked (`listen http :8080: Address
 * already in use`), with the bind error as its `cause`.
 *
 * @example
 * ```ts
 * import { bindDualStack } from "./bind_dual_stack.ts";
 *
 * const listener = bindDualStack(
 *   { name: "http", address: { host: undefined, port: 0 } },
 *   (hostname, port) => Deno.listen({ hostname, port }),
 * );
 * listener.close();
 * ```
 */
export function bindDualStack<T>(target: BindTarget, bind: (hostname: string, port: number) => T): T {
  const { host, port } = target.address;
  try {
    if (host !== undefined) return bind(host, port);
    try {
      return bind("::", port);
    } catch (error) {
      if (error instanceof Deno.errors.AddrInUse || error instanceof Deno.errors.PermissionDenied) {
        throw error;
      }
      return bind("0.0.0.0", port);
    }
  } catch (error) {
    throw new Error(`listen ${target.name} ${formatHostPort(host, port)}: ${errorMessage(error)}`, {
      cause: error,
    });
  }
}
