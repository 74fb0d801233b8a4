/**
 * A short-lived memory of which address a host name last connected to, so a proxy dialling the
 * same backend thousands of times a second skips the blocking system resolver for a few seconds.
 *
 * Only addresses a connection actually reached are stored; entries expire on read, with no timer.
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

/** Host name → address, each entry valid for `ttlMs` after it was stored. */
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
