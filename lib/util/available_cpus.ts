/**
 * How many CPUs this process may really use, for the proxy's `--workers` default: a pod limited
 * to 2 CPUs on a 64-core node runs 2 workers, not 64.
 *
 * The runtime's count already honours affinity and the cgroup v1/v2 quota (rounded down); reading
 * cgroup files ourselves fails anyway, as Deno refuses `/sys` and `/proc` without all permissions.
 *
 * The default is not one worker per CPU (issue 32, measured in `bench:proxy` on 2 cores): up to
 * 2 CPUs it is one worker, since a second one cost idle memory in every run (19 against 23 KiB
 * per connection at 9,900) and won the connection rate in some runs only, the clients and the
 * backends sharing those cores; above 2 it is one worker per 2 CPUs, rounded down, an assumption
 * not measured here (the kernel's network work and the node's other pods need the rest).
 *
 * Pure: {@linkcode availableCpus} takes the runtime's count.
 *
 * @module
 */

/** The CPUs available to the process: the runtime's count as a whole number of at least 1. */
export function availableCpus(online: number): number {
  return Number.isFinite(online) && online >= 1 ? Math.floor(online) : 1;
}

/** The `--workers` default for `cpus` available CPUs: 1 up to 2, then one per 2 CPUs. */
export function defaultWorkers(cpus: number): number {
  return cpus <= 2 ? 1 : Math.floor(cpus / 2);
}
