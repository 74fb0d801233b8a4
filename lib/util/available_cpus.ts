/**
 * How many CPUs this process may really use: the cgroup CPU quota (what a pod's `limits.cpu`
 * becomes) caps the count the runtime reports, so a pod limited to 2 CPUs on a 64-core node
 * runs 2 proxy workers, not 64.
 *
 * The runtime's count (`navigator.hardwareConcurrency`, Rust's `available_parallelism`) already
 * honours the affinity mask (`taskset`, a static CPU-manager policy); Deno exposes no other way to
 * read the mask, so it is the second input. The quota is read from the cgroup files: v2's
 * `cpu.max` (`max 100000` or `<quota> <period>`), else v1's `cpu.cfs_quota_us` (`-1`: none) and
 * `cpu.cfs_period_us`. A fractional quota rounds up (1.5 CPUs → 2 workers: the second one still
 * gets half a CPU's worth of time), and the answer is never below 1.
 *
 * Pure: {@linkcode availableCpus} takes the files' texts; reading them is the caller's (the
 * paths are exported so the permission set and the reader agree).
 *
 * @module
 */

/** cgroup v2: `<quota|max> <period>` for the process's own cgroup (seen through its namespace). */
export const CGROUP_V2_CPU_MAX = "/sys/fs/cgroup/cpu.max";
/** cgroup v1: the CFS quota in microseconds, `-1` when unlimited. */
export const CGROUP_V1_CFS_QUOTA = "/sys/fs/cgroup/cpu/cpu.cfs_quota_us";
/** cgroup v1: the CFS period in microseconds. */
export const CGROUP_V1_CFS_PERIOD = "/sys/fs/cgroup/cpu/cpu.cfs_period_us";

/** The inputs of {@linkcode availableCpus}; a file that could not be read is `undefined`. */
export interface CpuInputs {
  /** The runtime's CPU count (affinity honoured), such as `navigator.hardwareConcurrency`. */
  readonly online: number;
  /** Text of {@linkcode CGROUP_V2_CPU_MAX}. */
  readonly cpuMax?: string | undefined;
  /** Text of {@linkcode CGROUP_V1_CFS_QUOTA}. */
  readonly cfsQuotaUs?: string | undefined;
  /** Text of {@linkcode CGROUP_V1_CFS_PERIOD}. */
  readonly cfsPeriodUs?: string | undefined;
}

/** A positive whole number of microseconds, or `undefined` for anything else (`max`, `-1`, junk). */
function micros(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  const value = Number(text);
  return value > 0 && Number.isSafeInteger(value) ? value : undefined;
}

/** The quota in CPUs (possibly fractional), or `undefined` when there is none. */
function quotaCpus(inputs: CpuInputs): number | undefined {
  if (inputs.cpuMax !== undefined) {
    const [quota, period] = inputs.cpuMax.trim().split(/\s+/);
    const q = micros(quota);
    // v2 allows the period to be omitted when writing, but it is always shown when read.
    const p = micros(period ?? "100000");
    return q === undefined || p === undefined ? undefined : q / p;
  }
  const q = micros(inputs.cfsQuotaUs?.trim());
  const p = micros(inputs.cfsPeriodUs?.trim());
  return q === undefined || p === undefined ? undefined : q / p;
}

/**
 * The CPUs available to the process: the runtime's count, capped by the cgroup quota rounded
 * up, at least 1. v2's file wins when both versions are present (a hybrid host mounts v1
 * controllers only for what v2 does not manage).
 *
 * @example
 * ```ts
 * import { availableCpus } from "./available_cpus.ts";
 *
 * availableCpus({ online: 64, cpuMax: "200000 100000\n" }); // 2
 * availableCpus({ online: 64, cpuMax: "150000 100000\n" }); // 2 (1.5 rounded up)
 * availableCpus({ online: 4, cpuMax: "max 100000\n" }); // 4
 * availableCpus({ online: 8, cfsQuotaUs: "-1\n", cfsPeriodUs: "100000\n" }); // 8
 * ```
 */
export function availableCpus(inputs: CpuInputs): number {
  const online = Number.isFinite(inputs.online) && inputs.online >= 1 ? Math.floor(inputs.online) : 1;
  const quota = quotaCpus(inputs);
  return quota === undefined ? online : Math.max(1, Math.min(online, Math.ceil(quota)));
}
