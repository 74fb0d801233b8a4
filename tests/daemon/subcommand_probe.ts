/**
 * A subcommand built on the skeleton, run as a child by `subcommand_test.ts`
 * (`deno run -P=test tests/daemon/subcommand_probe.ts [flags]`): it reports on stdout, one JSON
 * object per line, what its `settings` and `run` saw, and steps through a shutdown driven by the
 * test's signals.
 *
 * @module
 */

import { text } from "../../lib/cli/kinds.ts";
import { LOGGING_OPTIONS } from "../../lib/daemon/logging_options.ts";
import { defineSubcommand, type Subcommand } from "../../lib/daemon/subcommand.ts";
import { printStdout } from "../../lib/util/stdio.ts";

/** One line the probe prints. */
export type ProbeLine =
  | { readonly step: "settings"; readonly env: Deno.PermissionState; readonly run: Deno.PermissionState }
  | {
    readonly step: "run";
    readonly env: Deno.PermissionState;
    readonly run: Deno.PermissionState;
    readonly greeting: string;
  }
  | { readonly step: "shutdown"; readonly received: string | null; readonly force: boolean }
  | { readonly step: "force" };

function say(line: ProbeLine): void {
  printStdout(`${JSON.stringify(line)}\n`);
}

const state = (name: "env" | "run") => Deno.permissions.querySync({ name }).state;

/** The probe subcommand: one flag of its own plus the logging flags. */
export const PROBE: Subcommand = defineSubcommand({
  options: {
    command: "probe",
    summary: "Report what the skeleton did.",
    options: {
      greeting: { flag: "greeting", kind: text("TEXT", "any text"), default: "hello", help: "Printed back." },
      ...LOGGING_OPTIONS,
    },
  } as const,
  usage: "report what the skeleton did",
  settings: ({ values }) => {
    say({ step: "settings", env: state("env"), run: state("run") });
    return { values };
  },
  start: ({ values }) => ({
    revoke: [{ name: "env" }, { name: "run" }],
    async run({ signals }) {
      say({ step: "run", env: state("env"), run: state("run"), greeting: values.greeting });
      if (!signals.shutdown.aborted) {
        await new Promise((resolve) => signals.shutdown.addEventListener("abort", resolve, { once: true }));
      }
      say({ step: "shutdown", received: signals.received() ?? null, force: signals.force.aborted });
      if (!signals.force.aborted) {
        await new Promise((resolve) => signals.force.addEventListener("abort", resolve, { once: true }));
      }
      say({ step: "force" });
      return 3;
    },
  }),
});

if (import.meta.main) Deno.exit(await PROBE.run(Deno.args));
