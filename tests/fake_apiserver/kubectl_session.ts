/**
 * Runs the real kubectl against a fake API server for the fake's own tests: each session gets a
 * temporary HOME and discovery cache, so no test sees another's cached discovery, and kubectl
 * talks to the given server only (`--kubeconfig=/dev/null`).
 *
 * @module
 */

import assert from "node:assert/strict";
import type { FakeApiServer } from "../support/fake_apiserver/mod.ts";
import { type KubeToolsResult, requireKubeTools } from "../support/kubectl.ts";
import { tempDir } from "../support/temp_dir.ts";

/** One finished kubectl run. */
export interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a session body gets: run kubectl to completion, spawn it (stdout piped), and its working folder. */
export type SessionBody = (
  kubectl: (args: string[]) => Promise<Run>,
  spawn: (args: string[]) => Deno.ChildProcess,
  dir: string,
) => Promise<void>;

/** How kubectl authenticates, when the server asks. */
export interface SessionOptions {
  readonly token?: string;
  readonly caFile?: string;
}

/** The session runner for the installed tools (fails the test when they are missing). */
export function kubectlSession(
  tools: KubeToolsResult,
): (server: FakeApiServer, body: SessionBody, options?: SessionOptions) => Promise<void> {
  return async (server, body, options = {}) => {
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
  };
}

/** The stdout of a run that must have succeeded. */
export function ok(run: Run): string {
  assert.equal(run.code, 0, `kubectl failed: ${run.stderr}`);
  return run.stdout;
}
