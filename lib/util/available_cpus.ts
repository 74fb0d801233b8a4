/**
 * How many CPUs this process may really use, for the proxy's `--workers` default: a pod limited
 * to 2 CPUs on a 64-core node runs 2 workers, not 64.
 *
 * The runtime's count already honours affinity and the cgroup v1/v2 quota (rounded down); reading
 * cgroup files ourselves fails anyway, as Deno refuses `/sys` and `/proc` without all permissions.
 *
 * Pure: {@linkcode availableCpus} takes the runtime's count.
 *
 * @module
 */

/** The CPUs available to the process: the runtime's count as a whole number of at least 1. */
export function availableCpus(online: number): number {
  return Number.isFinite(online) && online >= 1 ? Math.floor(online) : 1;
}
