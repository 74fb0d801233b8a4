/**
 * `ouroboros controller`: configuration parsing and validation are in place; the reconcilers
 * arrive with the Kubernetes client and reflector (issues #3 and #4). Until then the subcommand
 * validates its configuration and then says plainly that it cannot run, instead of pretending.
 *
 * @module
 */

import { renderHelp } from "../cli/help.ts";
import { ConfigError, parseOptions } from "../cli/options.ts";
import { CONTROLLER_OPTIONS } from "./controller_options.ts";
import { controllerSettings } from "./controller_settings.ts";
import { declaredEnv, printStdout, readTextOrUndefined } from "./process.ts";
import { RESOLV_CONF } from "./proxy.ts";

/** The service account's namespace file, mounted into every pod. */
export const POD_NAMESPACE_FILE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/** Runs the controller subcommand and returns the exit status. */
export function runController(argv: readonly string[]): Promise<number> {
  const outcome = parseOptions(CONTROLLER_OPTIONS, argv, declaredEnv(CONTROLLER_OPTIONS));
  if (outcome.kind === "help") {
    printStdout(renderHelp(CONTROLLER_OPTIONS));
    return Promise.resolve(0);
  }
  if (outcome.kind === "invalid") throw new ConfigError("controller", outcome.problems);
  const podNamespace = readTextOrUndefined(POD_NAMESPACE_FILE)?.trim() || undefined;
  const settings = controllerSettings(
    outcome.values,
    outcome.sources.clusterDomain,
    () => readTextOrUndefined(RESOLV_CONF),
    podNamespace,
  );
  if (settings instanceof ConfigError) throw settings;
  throw new Error(
    `the controller (mode ${settings.values.mode}) is not available in this build yet; only 'ouroboros proxy' runs`,
  );
}
