/**
 * ouroboros: fixes hairpin NAT for ingress controllers behind a PROXY-protocol load balancer.
 *
 * One binary, two long-running subcommands: `controller` points in-cluster DNS for public
 * hostnames at the proxy; `proxy` adds the PROXY header and relays to the ingress controller.
 *
 * Exit status: 0 success (and `--help`), 1 runtime failure, 2 bad usage or configuration.
 *
 * @module
 */

import { ConfigError } from "./lib/cli/options.ts";
import { runController } from "./lib/commands/controller.ts";
import { printStderr, printStdout } from "./lib/util/stdio.ts";
import { runProxy } from "./lib/commands/proxy.ts";
import { configureLogging, logger } from "./lib/util/logging.ts";
import { versionLine } from "./lib/util/version.ts";

/** The top-level usage text. */
export const USAGE =
  `ouroboros: DNS rewriting and PROXY-protocol injection for hairpinned in-cluster ingress traffic

Usage:
  ouroboros controller [flags]   watch Ingress/Gateway and point in-cluster DNS for their hosts at the proxy
  ouroboros proxy      [flags]   run the TCP relay that adds PROXY-protocol headers (v1 or v2)
  ouroboros version              print the version
  ouroboros help                 print this text

Run 'ouroboros <subcommand> --help' for its flags.
`;

/** Runs the program for `args` and returns the exit status. */
export async function main(args: readonly string[]): Promise<number> {
  // Until a subcommand has read --log-level and --log-format, log at info as JSON.
  configureLogging({ level: "info", format: "json" });
  const [subcommand, ...rest] = args;
  try {
    switch (subcommand) {
      case "proxy":
        return await runProxy(rest);
      case "controller":
        return await runController(rest);
      case "version":
      case "-v":
      case "--version":
        printStdout(`${versionLine()}\n`);
        return 0;
      case "help":
      case "-h":
      case "--help":
        printStdout(USAGE);
        return 0;
      case undefined:
        printStderr(USAGE);
        return 2;
      default:
        printStderr(`unknown subcommand: ${JSON.stringify(subcommand)}\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      printStderr(
        `ouroboros ${error.message}\nRun 'ouroboros ${subcommand} --help' for the accepted flags.\n`,
      );
      return 2;
    }
    logger().fatal("fatal", { subcommand, error });
    return 1;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
