/**
 * A process started the documented way (`deno task -q <subcommand> …`, i.e. deno.json's task
 * command line) writes only JSON lines to stderr, from the first line to the last: Deno's own
 * "Permissions in the config file is an experimental feature" warning, which `deno run -P=<set>`
 * prints before the program starts, is silenced by the task's `--quiet` (issue 18). Checked on a
 * controller run against the fake API server and a proxy run, each from start to SIGTERM.
 */

import assert from "node:assert/strict";
import { startCluster } from "./controller/cluster_fixture.ts";
import { taskCommand } from "./support/deno_json.ts";
import { ROOT } from "./support/ouroboros_process.ts";
import { waitFor } from "./support/wait.ts";

/** Runs deno.json's `name` task with `args` until `doneWhen` appears on stderr, then SIGTERM; returns stderr. */
async function runTask(name: string, args: readonly string[], doneWhen: string): Promise<string> {
  const [deno, ...taskArgs] = taskCommand(name).split(" ");
  assert.equal(deno, "deno");
  const child = new Deno.Command(Deno.execPath(), {
    args: [...taskArgs, ...args],
    cwd: ROOT,
    clearEnv: true,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let stderr = "";
  const pump = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) stderr += chunk;
  })();
  try {
    await waitFor(`${name}: ${doneWhen}`, () => stderr.includes(doneWhen), { timeoutMs: 30_000 });
  } finally {
    child.kill("SIGTERM");
    await Promise.all([child.status, pump]);
  }
  return stderr;
}

function assertJsonLines(stderr: string): void {
  const lines = stderr.split("\n").filter((line) => line !== "");
  assert.ok(lines.length > 1, stderr);
  for (const line of lines) {
    let parsed: unknown;
    assert.doesNotThrow(() => parsed = JSON.parse(line), `a stderr line that is not JSON: ${line}`);
    assert.equal(typeof parsed, "object", line);
  }
}

Deno.test("stderr is only JSON: a proxy run from start to SIGTERM (deno task proxy)", async () => {
  const stderr = await runTask("proxy", [
    "--target-host=127.0.0.1",
    "--listen-http=127.0.0.1:0",
    "--listen-https=127.0.0.1:0",
    "--listen-health=127.0.0.1:0",
    "--drain-delay=0s",
    "--workers=1",
  ], '"msg":"proxy starting"');
  assertJsonLines(stderr);
});

Deno.test("stderr is only JSON: a controller run from start to SIGTERM (deno task controller)", async () => {
  await using cluster = await startCluster();
  cluster.ingress("shop/web", { tls: ["shop.example.com"] });
  const stderr = await runTask(
    "controller",
    [...cluster.flags, "--listen-health=127.0.0.1:0"],
    '"msg":"hostnames updated"',
  );
  assertJsonLines(stderr);
});
