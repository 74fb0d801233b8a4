/**
 * Memory and CPU of a child process from `/proc`, read through `cat` because Deno opens
 * `/proc` only with `--allow-all`, which the `bench` permission set does not grant.
 *
 * @module
 */

import { parseCpuTicks, parseVmRssKib } from "./bench_report.ts";

async function cat(path: string): Promise<string> {
  const output = await new Deno.Command("cat", { args: [path], stdout: "piped", stderr: "piped" }).output();
  if (!output.success) throw new Error(`cat ${path}: ${new TextDecoder().decode(output.stderr).trim()}`);
  return new TextDecoder().decode(output.stdout);
}

/**
 * Resident memory now and at its peak (VmHWM), in KiB; now split into anonymous pages (heaps,
 * V8's and malloc's) and file-backed ones (mostly the `deno` binary's own code).
 */
export interface Memory {
  readonly rssKib: number;
  readonly peakKib: number;
  readonly anonKib: number;
  readonly fileKib: number;
}

/** Reads `VmRSS`, `VmHWM`, `RssAnon` and `RssFile` of `pid`. */
export async function memoryOf(pid: number): Promise<Memory> {
  const status = await cat(`/proc/${pid}/status`);
  const field = (name: string) => {
    const value = new RegExp(`^${name}:\\s+(\\d+)\\s+kB$`, "m").exec(status)?.[1];
    return value === undefined ? Number.NaN : Number(value);
  };
  return {
    rssKib: parseVmRssKib(status),
    peakKib: field("VmHWM"),
    anonKib: field("RssAnon"),
    fileKib: field("RssFile"),
  };
}

/** Clock ticks per second for `/proc/<pid>/stat` (`getconf CLK_TCK`; 100 on Linux when unknown). */
export async function clockTicksPerSecond(): Promise<number> {
  try {
    const output = await new Deno.Command("getconf", { args: ["CLK_TCK"], stdout: "piped" }).output();
    const ticks = Number(new TextDecoder().decode(output.stdout).trim());
    return Number.isFinite(ticks) && ticks > 0 ? ticks : 100;
  } catch {
    return 100;
  }
}

/** CPU time (user + system, all threads) `pid` has used so far, in clock ticks. */
export async function cpuTicksOf(pid: number): Promise<number> {
  return parseCpuTicks(await cat(`/proc/${pid}/stat`));
}
