import assert from "node:assert/strict";
import { availableCpus, type CpuInputs } from "../../lib/util/available_cpus.ts";

Deno.test("available CPUs: the cgroup quota caps the runtime's count, rounded up, never below 1", () => {
  const cases: [string, CpuInputs, number][] = [
    ["no cgroup files: the runtime's count", { online: 8 }, 8],
    ["v2 quota of 2 CPUs on 64", { online: 64, cpuMax: "200000 100000\n" }, 2],
    ["v2 quota of 1.5 CPUs rounds up", { online: 64, cpuMax: "150000 100000\n" }, 2],
    ["v2 quota of 0.1 CPU is still 1", { online: 64, cpuMax: "10000 100000\n" }, 1],
    ["v2 without a quota", { online: 4, cpuMax: "max 100000\n" }, 4],
    ["v2 quota above the CPUs the process may use", { online: 2, cpuMax: "800000 100000\n" }, 2],
    ["v2 with another period", { online: 16, cpuMax: "150000 50000" }, 3],
    ["v2 unreadable junk is no quota", { online: 4, cpuMax: "garbage" }, 4],
    ["v1 quota of 3 CPUs", { online: 8, cfsQuotaUs: "300000\n", cfsPeriodUs: "100000\n" }, 3],
    ["v1 unlimited (-1)", { online: 8, cfsQuotaUs: "-1\n", cfsPeriodUs: "100000\n" }, 8],
    ["v1 quota without its period is no quota", { online: 8, cfsQuotaUs: "300000\n" }, 8],
    ["v1 zero period is no quota", { online: 8, cfsQuotaUs: "300000", cfsPeriodUs: "0" }, 8],
    ["v2 wins over v1", { online: 8, cpuMax: "max 100000", cfsQuotaUs: "100000", cfsPeriodUs: "100000" }, 8],
    ["a runtime count of 0 is 1", { online: 0 }, 1],
    ["a NaN runtime count is 1", { online: NaN, cpuMax: "400000 100000" }, 1],
  ];
  for (const [name, inputs, expected] of cases) assert.equal(availableCpus(inputs), expected, name);
});

Deno.test("available CPUs (property): between 1 and the runtime's count, and never below the quota's ceiling when that fits", () => {
  for (let i = 0; i < 2_000; i++) {
    const online = 1 + Math.floor(Math.random() * 128);
    const quota = 1 + Math.floor(Math.random() * 10_000_000);
    const period = 1_000 + Math.floor(Math.random() * 1_000_000);
    const got = availableCpus({ online, cpuMax: `${quota} ${period}` });
    assert.ok(got >= 1 && got <= online, `${got} of ${online}`);
    assert.equal(got, Math.min(online, Math.max(1, Math.ceil(quota / period))));
  }
});
