/**
 * How many CPUs this process may really use, for the proxy's `--workers` default: a pod limited
 * to 2 CPUs on a 64-core node runs 2 workers, not 64.
 *
 * Decision: the runtime's count is the whole answer. `navigator.hardwareConcurrency` is Rust's
 * `available_parallelism`, which already honours the affinity mask (`taskset`, a static
 * CPU-manager policy) and the cgroup CPU quota, v1 (`cpu.cfs_quota_us` / `cpu.cfs_period_us`) and
 * v2 (`cpu.max`), found through the process's own cgroup, rounding a fractional quota down (1.5
 * CPUs → 1) and never below 1. An earlier version read the cgroup files itself, but Deno refuses
 * every read under `/sys` and `/proc` unless the process holds all permissions (`NotCapable:
 * Requires all access`), so under the proxy's permission set those reads always failed and only
 * the runtime's count ever counted; measured with a 1- and a 1.5-CPU quota on cgroup v1, the
 * runtime reported 1 both times with no permission at all. `tests/proxy/proxy_cgroup_test.ts`
 * runs the proxy inside such a cgroup.
 *
 * Pure: {@linkcode availableCpus} takes the runtime's count.
 *
 * @module
 */

/**
 * The CPUs available to the process: the runtime's count (affinity and cgroup quota applied),
 * as a whole number of at least 1 (a missing or nonsensical count is 1).
 *
 * @example
 * ```ts
 * import { availableCpus } from "./available_cpus.ts";
 *
 * availableCpus(navigator.hardwareConcurrency); // e.g. 2 in a pod with limits.cpu: 2
 * availableCpus(Number.NaN); // 1
 * ```
 */
export function availableCpus(online: number): number {
  return Number.isFinite(online) && online >= 1 ? Math.floor(online) : 1;
}
