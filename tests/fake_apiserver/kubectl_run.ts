/**
 * Running the real kubectl against a fake API server, shared by the kubectl proof tests: a
 * private HOME and discovery cache per run (so no test sees another's cached discovery), no
 * kubeconfig, and the server's URL (and token and CA when given) on the command line.
 *
 * @module
 */

import assert from "node:assert/strict";
import type { FakeApiServer } from "../support/fake_apiserver/mod.ts";
import { installKubeTools, requireKubeTools, skipWithoutKubectl } from "../support/kubectl.ts";
import { tempDir } from "../support/temp_dir.ts";

const tools = await installKubeTools();

/** `ignore` for every kubectl test: true (with the reason printed) when kubectl is unavailable. */
export const ignoreWithoutKubectl: boolean = skipWithoutKubectl("kubectl against the fake API server", tools);

/** What one kubectl run printed and how it ended. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `body` with `kubectl(args)` (run to completion) and `spawn(args)` (stdout piped) bound to `server`. */
export async function withKubectl(
  server: FakeApiServer,
  body: (
    kubectl: (args: string[]) => Promise<Run>,
    spawn: (args: string[]) => Deno.ChildProcess,
    dir: string,
  ) => Promise<void>,
  options: { token?: string; caFile?: string } = {},
): Promise<void> {
  const { kubectl: binary } = requireKubeTools(tools);
  await using temp = await tempDir("kubectl-test-");
  const dir = temp.path;
  const command = (args: string[], piped: boolean) =>
    new Deno.Command(binary, {
      args: [
        "--kubeconfig=/dev/null",
        `--server=${server.url}`,
        `--cache-dir=${dir}/cache`,
        ...(options.token === undefined ? [] : [`--token=${options.token}`]),
        ...(options.caFile === undefined ? [] : [`--certificate-authority=${options.caFile}`]),
        ...args,
      ],
      cwd: dir,
      clearEnv: true,
      env: { HOME: dir, PATH: "/usr/bin:/bin" },
      stdin: "null",
      stdout: "piped",
      stderr: piped ? "piped" : "null",
    });
  const run = async (args: string[]): Promise<Run> => {
    const output = await command(args, true).output();
    const decoder = new TextDecoder();
    return {
      code: output.code,
      stdout: decoder.decode(output.stdout),
      stderr: decoder.decode(output.stderr),
    };
  };
  await body(run, (args) => command(args, false).spawn(), dir);
}

/** The run's stdout, after asserting it succeeded (its stderr is the failure message). */
export function ok(run: Run): string {
  assert.equal(run.code, 0, `kubectl failed: ${run.stderr}`);
  return run.stdout;
}
