import assert from "node:assert/strict";
import { MetricsRegistry } from "../../lib/util/metrics.ts";
import {
  LIMITS_FILE,
  OPEN_FDS_DIR,
  parseMaxOpenFiles,
  PROCESS_METRIC_NAMES,
  type ProcessSources,
  registerBuildInfo,
  registerProcessMetrics,
  systemProcessSources,
} from "../../lib/util/process_metrics.ts";

const LIMITS = [
  "Limit                     Soft Limit           Hard Limit           Units     ",
  "Max cpu time              unlimited            unlimited            seconds   ",
  "Max open files            1048576              1048576              files     ",
  "",
].join("\n");

/** Fake sources: fds readable or refused the way Deno refuses /proc under a permission set. */
function sources(options: { readable: boolean; fds?: () => number }): ProcessSources {
  const refuse = (path: string): never => {
    throw new Deno.errors.NotCapable(`Requires all access to "${path}", run again with the --allow-all flag`);
  };
  return {
    cpuUsage: () => ({ user: 2_250_000, system: 750_000 }),
    heap: () => ({ heapTotal: 9_000_000, heapUsed: 6_000_000, external: 1_500_000 }),
    startTimeSeconds: 1_765_000_000,
    countEntries: (path) =>
      options.readable && path === OPEN_FDS_DIR ? (options.fds ?? (() => 17))() : refuse(path),
    readText: (path) => options.readable && path === LIMITS_FILE ? LIMITS : refuse(path),
  };
}

function value(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

Deno.test("the conventional process series carry CPU seconds, start time and V8 heap", () => {
  const registry = new MetricsRegistry();
  registerProcessMetrics(registry, sources({ readable: true }));
  const text = registry.render();
  assert.equal(value(text, "process_cpu_seconds_total"), 3);
  assert.match(text, /# TYPE process_cpu_seconds_total counter/);
  assert.equal(value(text, "process_start_time_seconds"), 1_765_000_000);
  assert.equal(value(text, "deno_heap_size_total_bytes"), 9_000_000);
  assert.equal(value(text, "deno_heap_size_used_bytes"), 6_000_000);
  assert.equal(value(text, "deno_external_memory_bytes"), 1_500_000);
});

Deno.test("open and max fds are exported when /proc/self is readable, sampled at each scrape", () => {
  let fds = 17;
  const registry = new MetricsRegistry();
  const report = registerProcessMetrics(registry, sources({ readable: true, fds: () => fds }));
  assert.deepEqual(report, { openFds: true, maxFds: true });
  assert.equal(value(registry.render(), "process_open_fds"), 17);
  fds = 4_000;
  assert.equal(value(registry.render(), "process_open_fds"), 4_000);
  assert.equal(value(registry.render(), "process_max_fds"), 1_048_576);
});

Deno.test("the fd series are absent, not zero, when the runtime refuses /proc reads", () => {
  const registry = new MetricsRegistry();
  const report = registerProcessMetrics(registry, sources({ readable: false }));
  assert.deepEqual(report, { openFds: false, maxFds: false });
  const text = registry.render();
  assert.doesNotMatch(text, /process_open_fds|process_max_fds/);
  assert.equal(value(text, "process_cpu_seconds_total"), 3);
});

Deno.test("the soft limit of Max open files is the max; unlimited or missing gives none", () => {
  assert.equal(parseMaxOpenFiles(LIMITS), 1_048_576);
  assert.equal(
    parseMaxOpenFiles("Max open files            unlimited            unlimited            files\n"),
    undefined,
  );
  assert.equal(parseMaxOpenFiles("Max cpu time unlimited unlimited seconds\n"), undefined);
});

Deno.test("build info carries the version and the revision", () => {
  const registry = new MetricsRegistry();
  registerBuildInfo(registry, { version: "1.2.3", revision: "0123abc" });
  assert.equal(value(registry.render(), 'ouroboros_build_info{version="1.2.3",revision="0123abc"}'), 1);
});

Deno.test("the real sources report this process: CPU grows, the start is in the past", () => {
  const real = systemProcessSources();
  const before = real.cpuUsage();
  let spin = 0;
  for (let i = 0; i < 2_000_000; i++) spin += i;
  assert.ok(spin > 0);
  const after = real.cpuUsage();
  assert.ok(after.user + after.system > before.user + before.system, "CPU time went up while spinning");
  assert.ok(real.startTimeSeconds <= Date.now() / 1000 && real.startTimeSeconds > Date.now() / 1000 - 3_600);
  assert.ok(real.heap().heapUsed > 0);
  assert.equal(PROCESS_METRIC_NAMES.includes("process_open_fds"), true);
});
