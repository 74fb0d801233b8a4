/**
 * `deno task test:real`: builds the real components (saying what it built and how long it took),
 * runs every scenario under `tests/real/scenarios/` with the test permission set and the
 * sanitizers, and ends with the plain line `N passed, M failed`. A component that fails to build
 * is reported here and again by every scenario that needs it, each a failed test showing the
 * compiler's last lines: never a skip. Extra arguments go to `deno test` (such as `--filter`).
 *
 * Effects: runs `go` and `deno test`, prints.
 *
 * @module
 */

import { buildComponent, describeOutcome } from "./build.ts";
import { GO_COMPONENTS } from "./versions.ts";

/** The counts of `deno test`'s closing line (`ok | 3 passed | 0 failed (12s)`), if it printed one. */
export function testSummary(output: string): { passed: number; failed: number } | undefined {
  const lines = output.split("\n").filter((line) => /^(ok|FAILED) \| \d+ passed/.test(line));
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  const passed = Number(/(\d+) passed/.exec(last)?.[1] ?? "0");
  const failed = Number(/(\d+) failed/.exec(last)?.[1] ?? "0");
  return { passed, failed };
}

if (import.meta.main) {
  const started = performance.now();
  for (const component of GO_COMPONENTS) {
    const outcome = await buildComponent(component);
    // deno-lint-ignore no-console
    console.log(describeOutcome(outcome));
  }
  const built = Math.round((performance.now() - started) / 1000);
  // deno-lint-ignore no-console
  console.log(`real components ready after ${built} s`);
  const scenarios = new URL("./scenarios/", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "test",
      "--no-prompt",
      "-P=test",
      "--sanitize-ops",
      "--sanitize-resources",
      ...Deno.args,
      scenarios,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  let output = "";
  const encoder = new TextEncoder();
  for await (const chunk of child.stdout.pipeThrough(new TextDecoderStream())) {
    output += chunk;
    await Deno.stdout.write(encoder.encode(chunk));
  }
  const status = await child.status;
  const summary = testSummary(output) ?? { passed: 0, failed: 1 };
  const failed = summary.failed === 0 && !status.success ? 1 : summary.failed;
  const ran = Math.round((performance.now() - started) / 1000) - built;
  // deno-lint-ignore no-console
  console.log(`real-component suite: built in ${built} s, ran in ${ran} s`);
  // deno-lint-ignore no-console
  console.log(`${summary.passed} passed, ${failed} failed`);
  Deno.exit(status.success && failed === 0 ? 0 : 1);
}
