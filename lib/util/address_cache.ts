/**
 * A short-lived memory of which address a host name last connected to.
 *
 * Why: `Deno.connect` with a host name runs the system resolver (getaddrinfo on a blocking
 * thread: `/etc/hosts`, then DNS with the search list) for every connection. For a proxy that
 * dials the same backend name thousands of times a second, remembering the address of the last
 * successful connection for a few seconds removes that work while still following a change of
 * address within the TTL.
 *
 * Decisions: only the address a connection actually reached is stored (never a resolver answer
 * that was not tried), so the cache holds nothing the system resolver would not have chosen;
 * entries expire by the injected clock, checked on read, with no timer; one entry per name.
 *
 * Pure: no I/O; time comes from the injected clock.
 *
 * @module
 */

import type { Clock } from "./clock.ts";

interface Entry {
  readonly address: string;
  readonly expires: number;
}

/**
 * Host name → address, each entry valid for `ttlMs` after it was stored.
 *
 * @example
 * ```ts
 * import { systemClock } from "./clock.ts";
 * import { AddressCache } from "./address_cache.ts";
 *
 * const cache = new AddressCache(systemClock, 5_000);
 * cache.remember("ingress.example.svc.cluster.local", "10.96.0.20");
 * cache.lookup("ingress.example.svc.cluster.local"); // "10.96.0.20" for the next 5 s
 * cache.forget("ingress.example.svc.cluster.local"); // after a failed dial: resolve again
 * ```
 */
export class AddressCache {
  readonly #clock: Clock;
  readonly #ttlMs: number;
  readonly #entries = new Map<string, Entry>();

  /** A cache whose entries live `ttlMs` (0 keeps nothing). */
  constructor(clock: Clock, ttlMs: number) {
    if (!(ttlMs >= 0)) {
      throw new RangeError(`Cannot create address cache: TTL must be 0 or more, got ${ttlMs}`);
    }
    this.#clock = clock;
    this.#ttlMs = ttlMs;
  }

  /** The address stored for `host` if it has not expired yet. */
  lookup(host: string): string | undefined {
    const entry = this.#entries.get(host);
    if (entry === undefined) return undefined;
    if (this.#clock.now() < entry.expires) return entry.address;
    this.#entries.delete(host);
    return undefined;
  }

  /** Stores the address a connection to `host` just reached, for the TTL from now. */
  remember(host: string, address: string): void {
    if (this.#ttlMs === 0) return;
    this.#entries.set(host, { address, expires: this.#clock.now() + this.#ttlMs });
  }

  /** Drops `host`, so its next lookup misses (the stored address stopped working). */
  forget(host: string): void {
    this.#entries.delete(host);
  }
}
