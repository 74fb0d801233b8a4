/**
 * Runs a probe script as a child process under one of `deno.json`'s permission sets and returns
 * the JSON report it prints: how the permission tests see what a subcommand may do, first with
 * the set it starts with and then after it narrows them.
 *
 * Effects: spawns `deno run` from the repository root with a cleared environment.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ROOT } from "./ouroboros_process.ts";

/** What to run for {@linkcode runProbeChild}. */
export interface ProbeChildOptions {
  /** The probe, relative to the repository root (`tests/controller/permission_probe.ts`). */
  readonly script: string;
  /** The permission set in `deno.json` to run it with (`-P=<set>`). */
  readonly permissionSet: string;
  /** Arguments after the script. */
  readonly args?: readonly string[];
  /** Environment besides `NO_COLOR=1`; nothing else is inherited. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs the probe, asserts it exited 0 (showing its stderr if not) and parses its stdout as `T`. */
export async function runProbeChild<T>(options: ProbeChildOptions): Promise<T> {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `-P=${options.permissionSet}`,
      options.script,
      ...options.args ?? [],
    ],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1", ...options.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, `the probe failed:\n${stderr}`);
  return JSON.parse(new TextDecoder().decode(output.stdout)) as T;
}
