/**
 * A real cgroup with a CPU quota, for the tests and benchmarks that run a process as a pod with
 * `limits.cpu: N` would: cgroup v1's `cpu.cfs_quota_us` or v2's `cpu.max`. Every file under
 * /sys is read and written through `sh`, because Deno refuses even a stat there without every
 * permission. Needs root and a writable cgroup file system; otherwise the caller gets the reason.
 *
 * @module
 */

/** A cgroup this process made, limited to `cpus` CPUs of time per period. */
export interface CpuCgroup {
  readonly dir: string;
  readonly cpus: number;
  /** "v1" (`cpu.cfs_quota_us`) or "v2" (`cpu.max`). */
  readonly version: "v1" | "v2";
  /** A command prefix that moves the command into the cgroup before it starts (`exec`). */
  readonly wrapper: readonly string[];
  /** Moves a running process, all its threads, into the cgroup. */
  adopt(pid: number): Promise<void>;
  /** Removes the cgroup; a process still in it keeps it, and the reason is returned. */
  remove(): Promise<string | undefined>;
}

/** Runs a shell script with positional arguments; whether it succeeded and its stderr. */
async function sh(script: string, ...args: string[]): Promise<{ ok: boolean; stderr: string }> {
  const out = await new Deno.Command("sh", {
    args: ["-c", script, "sh", ...args],
    stderr: "piped",
    stdout: "null",
  })
    .output();
  return { ok: out.success, stderr: new TextDecoder().decode(out.stderr).trim() };
}

/**
 * Makes the cgroup `name` with a quota of `cpus` CPUs (a period of 100 ms), or returns why it
 * cannot be made here.
 */
export async function makeCpuCgroup(name: string, cpus: number): Promise<CpuCgroup | string> {
  if (!Number.isInteger(cpus) || cpus < 1) return `a CPU quota must be a whole number of CPUs, got ${cpus}`;
  const exists = async (path: string) => (await sh('test -e "$1"', path)).ok;
  let dir: string;
  let quotaFile: string;
  let quotaText: string;
  let version: "v1" | "v2";
  if (await exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) {
    [dir, quotaFile, quotaText, version] = [
      `/sys/fs/cgroup/cpu/${name}`,
      "cpu.cfs_quota_us",
      `${cpus * 100_000}`,
      "v1",
    ];
  } else if (await exists("/sys/fs/cgroup/cgroup.controllers")) {
    [dir, quotaFile, quotaText, version] = [
      `/sys/fs/cgroup/${name}`,
      "cpu.max",
      `${cpus * 100_000} 100000`,
      "v2",
    ];
  } else {
    return "no cgroup v1 cpu controller or cgroup v2 hierarchy under /sys/fs/cgroup";
  }
  const made = await sh('mkdir -p "$1" && echo "$2" > "$1/$3"', dir, quotaText, quotaFile);
  if (!made.ok) {
    await sh('rmdir "$1" 2>/dev/null', dir);
    return `cannot make a cgroup with a CPU quota here (${made.stderr}); needs root and a writable cgroup fs`;
  }
  return {
    dir,
    cpus,
    version,
    wrapper: ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir],
    async adopt(pid) {
      const moved = await sh('echo "$2" > "$1/cgroup.procs"', dir, String(pid));
      if (!moved.ok) throw new Error(`cannot move process ${pid} into ${dir}: ${moved.stderr}`);
    },
    async remove() {
      const removed = await sh('rmdir "$1"', dir);
      return removed.ok ? undefined : `cannot remove ${dir}: ${removed.stderr}`;
    },
  };
}
