/**
 * The proxy's `--workers` default inside a real cgroup with a CPU quota: a pod limited to one CPU
 * counts one CPU (and runs one worker) even on a bigger node. The quota is applied by the runtime's CPU count (see
 * lib/util/available_cpus.ts), so this runs the real process in a real cgroup: v1's
 * `cpu.cfs_quota_us` or v2's `cpu.max`, made with `sh` (Deno refuses writes under /sys).
 */
import assert from "node:assert/strict";
import { defaultWorkers } from "../../lib/util/available_cpus.ts";
import { startProxy } from "../support/ouroboros_process.ts";
import { IN_CI } from "../support/tools.ts";

/** A cgroup directory this test may create, with the file and text that set a quota of `cpus`. */
interface CgroupPlan {
  readonly dir: string;
  readonly quotaFile: string;
  readonly quotaText: (cpus: number) => string;
}

/** Which cgroup version this host mounts (asked through `sh`: Deno refuses even a stat under /sys). */
async function cgroupPlan(name: string): Promise<CgroupPlan | string> {
  const exists = async (path: string) => (await sh('test -e "$1"', path)).ok;
  if (await exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")) {
    return {
      dir: `/sys/fs/cgroup/cpu/${name}`,
      quotaFile: "cpu.cfs_quota_us",
      quotaText: (cpus) => `${cpus * 100_000}`,
    };
  }
  if (await exists("/sys/fs/cgroup/cgroup.controllers")) {
    return {
      dir: `/sys/fs/cgroup/${name}`,
      quotaFile: "cpu.max",
      quotaText: (cpus) => `${cpus * 100_000} 100000`,
    };
  }
  return "no cgroup v1 cpu controller or cgroup v2 hierarchy under /sys/fs/cgroup";
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

Deno.test("proxy --workers default: a cgroup CPU quota of one CPU gives one worker on a bigger machine", async (t) => {
  const online = navigator.hardwareConcurrency;
  const plan = await cgroupPlan(`ouroboros-test-${Deno.pid}`);
  const made = typeof plan === "string"
    ? { ok: false, stderr: plan }
    : await sh('mkdir -p "$1" && echo "$2" > "$1/$3"', plan.dir, plan.quotaText(1), plan.quotaFile);
  if (!made.ok || typeof plan === "string" || online < 2) {
    const why = online < 2
      ? `this machine has ${online} CPU, so a one-CPU quota changes nothing`
      : `cannot make a cgroup with a CPU quota here (${made.stderr}); needs root and a writable cgroup fs`;
    if (IN_CI) throw new Error(why);
    // deno-lint-ignore no-console
    console.log(`SKIP the cgroup quota test: ${why}`);
    return;
  }
  try {
    await t.step("without a quota every CPU counts, and the default follows them", async () => {
      await using proxy = await startProxy(["--target-host=127.0.0.1", "--workers=0"]);
      assert.equal(proxy.starting.cpus, online);
      assert.equal(proxy.starting.workers, defaultWorkers(online));
      assert.equal(proxy.starting.workersSource, "detected");
    });
    await t.step("inside the cgroup one CPU counts, and the default is one worker", async () => {
      await using proxy = await startProxy(["--target-host=127.0.0.1", "--workers=0"], {
        wrapper: ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', plan.dir],
      });
      assert.equal(proxy.starting.cpus, 1);
      assert.equal(proxy.starting.workers, 1);
      assert.equal(proxy.starting.workersSource, "detected");
    });
    await t.step("an explicit --workers wins over the quota", async () => {
      await using proxy = await startProxy(["--target-host=127.0.0.1", "--workers=2"], {
        wrapper: ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', plan.dir],
      });
      assert.equal(proxy.starting.workers, 2);
      assert.equal(proxy.starting.workersSource, "flag");
    });
  } finally {
    await sh('rmdir "$1"', plan.dir);
  }
});
