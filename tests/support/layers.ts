/**
 * The layer order of `lib/`, written once: `tests/layering_test.ts` enforces it on every import,
 * and `tests/readme_test.ts` checks that the Layout table of docs/architecture.md lists the same floors.
 *
 * @module
 */

/** Highest first; folders in one entry are siblings of one floor. */
export const LAYERS: readonly (readonly string[])[] = [
  ["controller", "dns", "doctor", "kuberture", "proxy"],
  ["routes"],
  ["election", "hostnames", "publisher", "reflector"],
  ["kube"],
  ["resources"],
  ["daemon"],
  ["cli"],
  ["util"],
];
