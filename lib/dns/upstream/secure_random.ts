/**
 * The default randomness behind upstream query IDs: the operating system's CSPRNG (an ID an
 * attacker can predict makes forged answers easy, RFC 5452), read in batches so a query costs a
 * few array reads rather than a system call.
 *
 * Effects: reads `crypto.getRandomValues`.
 *
 * @module
 */

const BATCH = 1024;
const batch = new Uint32Array(BATCH);
let next = BATCH;

/**
 * A cryptographically random number in [0, 1), with 32 bits of randomness; a drop-in for
 * `Math.random` where the value must not be guessable.
 *
 * @example
 * ```ts
 * import { secureRandom } from "./secure_random.ts";
 *
 * const id = Math.floor(secureRandom() * 0x10000); // 0 … 65535
 * ```
 */
export function secureRandom(): number {
  if (next === BATCH) {
    crypto.getRandomValues(batch);
    next = 0;
  }
  return batch[next++]! / 0x1_0000_0000;
}
