/**
 * The default randomness behind upstream query IDs (predictable IDs ease forgery, RFC 5452): the
 * OS CSPRNG, read in batches so a query costs no system call.
 *
 * Effects: reads `crypto.getRandomValues`.
 *
 * @module
 */

const BATCH = 1024;
const batch = new Uint32Array(BATCH);
let next = BATCH;

/** A cryptographically random number in [0, 1) (32 bits): `Math.random` that cannot be guessed. */
export function secureRandom(): number {
  if (next === BATCH) {
    crypto.getRandomValues(batch);
    next = 0;
  }
  return batch[next++]! / 0x1_0000_0000;
}
