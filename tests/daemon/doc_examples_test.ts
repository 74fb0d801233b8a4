/**
 * The `@example` blocks of the subcommand skeleton and of the two subcommands built on it are
 * type-checked, so the module docs a newcomer copies from cannot drift from the API.
 *
 * @module
 */

import assert from "node:assert/strict";
import { ROOT } from "../support/ouroboros_process.ts";

const DOCUMENTED = ["lib/daemon/", "lib/commands/", "lib/proxy/", "main.ts"];

Deno.test("the @example blocks of lib/daemon, lib/commands, lib/proxy and main.ts type-check", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["check", "--quiet", "--doc", ...DOCUMENTED],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 0, new TextDecoder().decode(output.stderr));
});
