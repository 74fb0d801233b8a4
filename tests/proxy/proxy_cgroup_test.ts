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
import { makeCpuCgroup } from "../support/cpu_cgroup.ts";

Deno.test("proxy --workers default: a cgroup CPU quota of one CPU gives one worker on a bigger machine", async (t) => {
  const online = navigator.hardwareConcurrency;
  const cgroup = await makeCpuCgroup(`ouroboros-test-${Deno.pid}`, 1);
  if (typeof cgroup === "string" || online < 2) {
    const why = online < 2
      ? `this machine has ${online} CPU, so a one-CPU quota changes nothing`
      : String(cgroup);
    if (typeof cgroup !== "string") await cgroup.remove();
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
        wrapper: cgroup.wrapper,
      });
      assert.equal(proxy.starting.cpus, 1);
      assert.equal(proxy.starting.workers, 1);
      assert.equal(proxy.starting.workersSource, "detected");
    });
    await t.step("an explicit --workers wins over the quota", async () => {
      await using proxy = await startProxy(["--target-host=127.0.0.1", "--workers=2"], {
        wrapper: cgroup.wrapper,
      });
      assert.equal(proxy.starting.workers, 2);
      assert.equal(proxy.starting.workersSource, "flag");
    });
  } finally {
    await cgroup.remove();
  }
});
