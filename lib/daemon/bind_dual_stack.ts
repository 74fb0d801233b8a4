/**
 * The one rule for binding a listener: an address without a host (`:8080`) binds `::`, dual-stack
 * on Linux, and falls back to `0.0.0.0` where IPv6 is off. A port taken or forbidden is not an
 * IPv6 problem, so those errors are not retried.
 *
 * Pure apart from the caller's `bind` function, which does the I/O.
 *
 * @module
 */

import { errorMessage } from "../util/error_message.ts";
import { formatHostPort, type ListenAddress } from "../util/listen_address.ts";

/** What to bind. */
export interface BindTarget {
  /** Names the listener in errors: `listen <name> <address>: …`. */
  readonly name: string;
  readonly address: ListenAddress;
}

/**
 * Binds `target.address` with `bind`, trying `::` then `0.0.0.0` when it has no host. Errors name
 * the listener and address as asked (`listen http :8080: …`), the bind error as `cause`.
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
