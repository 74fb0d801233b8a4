/**
 * `ouroboros controller`: configuration parsing is in place; the reconcilers arrive with the
 * Kubernetes client (issues #3 and #4). Until then the subcommand validates its flags and then
 * says plainly that it cannot run, instead of pretending to.
 *
 * @module
 */

import { renderHelp } from "../cli/help.ts";
import { ConfigError, parseOptions } from "../cli/options.ts";
import { declaredEnv, printStdout } from "./process.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";

/** Runs the controller subcommand and returns the exit status. */
export function runController(argv: readonly string[]): Promise<number> {
  const outcome = parseOptions(CONTROLLER_OPTIONS, argv, declaredEnv(CONTROLLER_OPTIONS));
  if (outcome.kind === "help") {
    printStdout(renderHelp(CONTROLLER_OPTIONS));
    return Promise.resolve(0);
  }
  if (outcome.kind === "invalid") throw new ConfigError("controller", outcome.problems);
  throw new Error(
    `the controller (mode ${outcome.values.mode}) is not available in this build yet; only 'ouroboros proxy' runs`,
  );
}
