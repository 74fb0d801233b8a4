/**
 * The proxy's memory request covers what a fresh proxy holds idle with the worker count the chart's
 * CPU limit gives it (one core: one worker), measured here from the process's own VmRSS, so a
 * request below the idle figure (the scheduler then places a pod that is already over it) fails.
 */

import assert from "node:assert/strict";
import { parse } from "yaml";
import { startProxy } from "../support/ouroboros_process.ts";

const VALUES = parse(await Deno.readTextFile(new URL("../../chart/values.yaml", import.meta.url))) as {
  proxy: { resources: { requests: { memory: string }; limits: { cpu: string } } };
};

/** `96Mi` in bytes; only the binary suffixes the chart uses. */
function quantityBytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi)$/.exec(quantity);
  assert.ok(match, `a memory quantity in Ki, Mi or Gi: ${quantity}`);
  return Number(match[1]) * { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3 }[match[2] as "Ki" | "Mi" | "Gi"];
}

Deno.test("chart: the proxy's memory request covers a fresh proxy's idle RSS with its default worker count", async () => {
  const { requests, limits } = VALUES.proxy.resources;
  assert.equal(limits.cpu, "1000m", "one core: the proxy's --workers default is then one");
  await using proxy = await startProxy(["--target-host=127.0.0.1", "--workers=1"]);
  // Deno lets only --allow-all read /proc; ps reads the same VmRSS.
  const ps = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(proxy.child.pid)],
    stdout: "piped",
  })
    .output();
  const rssKib = Number(new TextDecoder().decode(ps.stdout).trim());
  assert.ok(rssKib > 0, `ps gave no RSS for the proxy (exit ${ps.code})`);
  const request = quantityBytes(requests.memory);
  assert.ok(
    rssKib * 1024 <= request,
    `idle RSS ${(rssKib / 1024).toFixed(1)} MiB is above the request ${requests.memory}`,
  );
});
