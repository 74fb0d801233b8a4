/**
 * The kubectl installer (`tests/support/kubectl.ts`): two processes installing into the same
 * empty folder at once both end up with the same working kubectl and helm, and nothing
 * half-unpacked is left behind.
 */

import assert from "node:assert/strict";
import { installKubeTools, installKubeToolsInto, KUBECTL_MINOR } from "../support/kubectl.ts";
import { skipWithoutKubectl } from "../support/kubectl.ts";
import { ROOT } from "../support/ouroboros_process.ts";
import { tempDir } from "../support/temp_dir.ts";

const ignore = skipWithoutKubectl("the concurrent kubectl install test", await installKubeTools());
const INSTALLER = new URL("../support/kubectl.ts", import.meta.url).href;

async function installInChild(target: string): Promise<unknown> {
  const code = `import { installKubeToolsInto } from "${INSTALLER}";\n` +
    `console.log(JSON.stringify(await installKubeToolsInto(Deno.args[0])));`;
  const output = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code, target],
    cwd: ROOT,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(output.success, new TextDecoder().decode(output.stderr));
  return JSON.parse(new TextDecoder().decode(output.stdout));
}

Deno.test(
  { name: "two processes installing kubectl at once both succeed with one complete copy", ignore },
  async () => {
    await using temp = await tempDir("kubectl-install-");
    const parent = temp.path;
    const target = `${parent}/kubectl-v35`;
    const [first, second] = await Promise.all([installInChild(target), installInChild(target)]);
    const expected = {
      ok: true,
      tools: { kubectl: `${target}/kubectl/kubectl`, helm: `${target}/helm/helm` },
    };
    assert.deepEqual(first, expected);
    assert.deepEqual(second, expected);
    const entries = [];
    for await (const entry of Deno.readDir(parent)) entries.push(entry.name);
    assert.deepEqual(entries, ["kubectl-v35"], "no partial folders are left");
    const version = await new Deno.Command(`${target}/kubectl/kubectl`, {
      args: ["version", "--client", "-o", "json"],
    })
      .output();
    assert.equal(JSON.parse(new TextDecoder().decode(version.stdout)).clientVersion.minor, KUBECTL_MINOR);
    const helm = await new Deno.Command(`${target}/helm/helm`, { args: ["version", "--short"] }).output();
    assert.match(new TextDecoder().decode(helm.stdout), /^v4\.1\./);
    // A second call finds the finished install and does nothing.
    assert.deepEqual(await installKubeToolsInto(target), expected);
  },
);
