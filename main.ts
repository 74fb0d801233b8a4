/**
 * ouroboros: fixes hairpin NAT for ingress controllers behind a PROXY-protocol load balancer.
 *
 * One binary, five subcommands: `controller` points in-cluster DNS for public hostnames at the
 * proxy; `proxy` adds the PROXY header and relays to the ingress controller; `dns` answers each
 * workload per par's Records; `kuberture` publishes the API server's addresses for external-dns;
 * `doctor` diagnoses the whole hairpin path once and exits. Each is one row of
 * {@linkcode SUBCOMMANDS}, built on the shared skeleton (`lib/daemon/subcommand.ts`); the usage
 * text lists them from that table.
 *
 * A subcommand's modules load only when it runs (`import()` in its row): a process runs one
 * subcommand, and loading all five cost the controller 4.5 MiB of resident memory and about
 * 0.1 s of start-up (issue 32). So each row repeats the subcommand's name and usage line, which
 * `tests/main_test.ts` checks against the loaded subcommand.
 *
 * Exit status: 0 success (and `--help`), 1 runtime failure, 2 bad usage or configuration.
 *
 * Effects: the process entry point; it prints and exits.
 *
 * @module
 */

import { HELP_WIDTH, wrapText } from "./lib/cli/help.ts";
import { closestName } from "./lib/cli/suggest.ts";
import type { Subcommand } from "./lib/daemon/subcommand.ts";
import { configureLogging, logger } from "./lib/util/logging.ts";
import { errorFields, errorMessage } from "./lib/util/error_message.ts";
import { printStderr, printStdout } from "./lib/util/stdio.ts";
import { versionLine } from "./lib/util/version.ts";

/** A row of {@linkcode SUBCOMMANDS}: the subcommand as the usage text lists it, and its loader. */
export interface SubcommandRow extends Subcommand {
  /** Loads the subcommand's modules and gives the subcommand itself. */
  load(): Promise<Subcommand>;
}

function lazy(name: string, usage: string, load: () => Promise<Subcommand>): SubcommandRow {
  return { name, usage, load, run: async (argv) => await (await load()).run(argv) };
}

/** The subcommands, in the order the usage text lists them. */
export const SUBCOMMANDS: readonly SubcommandRow[] = [
  lazy(
    "controller",
    "watch Ingress/Gateway and point in-cluster DNS for their hosts at the proxy",
    async () => (await import("./lib/controller/controller_command.ts")).CONTROLLER,
  ),
  lazy(
    "dns",
    "answer DNS for chosen workloads: hairpinned hostnames and par Records, the rest forwarded",
    async () => (await import("./lib/dns/dns_command.ts")).DNS,
  ),
  lazy(
    "doctor",
    "check once, read-only, whether hairpinning works and why not",
    async () => (await import("./lib/doctor/doctor_command.ts")).DOCTOR,
  ),
  lazy(
    "kuberture",
    "publish the API server's addresses through external-dns (a drop-in for kuberture)",
    async () => (await import("./lib/kuberture/kuberture_command.ts")).KUBERTURE,
  ),
  lazy(
    "proxy",
    "run the TCP relay that adds PROXY-protocol headers (v1 or v2)",
    async () => (await import("./lib/proxy/proxy_command.ts")).PROXY,
  ),
];

/** A command that takes no flags, with the other spellings it answers to. */
interface Builtin {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly usage: string;
  readonly run: () => number;
}

const BUILTINS: readonly Builtin[] = [
  {
    name: "version",
    aliases: ["-v", "--version"],
    usage: "print the version",
    run: () => {
      printStdout(`${versionLine()}\n`);
      return 0;
    },
  },
  {
    name: "help",
    aliases: ["-h", "--help"],
    usage: "print this text",
    run: () => {
      printStdout(USAGE);
      return 0;
    },
  },
];

/**
 * One usage entry per command: the names padded to one column, `[flags]` for the subcommands,
 * the description wrapped so no line passes {@linkcode HELP_WIDTH}.
 */
function usageLines(): string {
  const width = Math.max(...[...SUBCOMMANDS, ...BUILTINS].map((command) => command.name.length));
  const line = (name: string, flags: string, usage: string) => {
    const lead = `  ouroboros ${name.padEnd(width)} ${flags.padEnd(7)}   `;
    const [first, ...more] = wrapText(usage, HELP_WIDTH - lead.length);
    return [`${lead}${first}`, ...more.map((text) => `${" ".repeat(lead.length)}${text}`)].join("\n") + "\n";
  };
  return [
    ...SUBCOMMANDS.map((command) => line(command.name, "[flags]", command.usage)),
    ...BUILTINS.map((command) => line(command.name, "", command.usage)),
  ].join("");
}

/** The top-level usage text. */
export const USAGE =
  `ouroboros: DNS rewriting and PROXY-protocol injection for hairpinned in-cluster ingress traffic

Usage:
${usageLines()}
Run 'ouroboros <subcommand> --help' for its flags.
`;

/**
 * The complaint about a name that is no command, with the command it is likely a typo of
 * (`--version` and `--help` count too, so `--verison` is caught).
 */
export function unknownCommand(name: string): string {
  const names = [
    ...SUBCOMMANDS.map((command) => command.name),
    ...BUILTINS.flatMap((command) => [command.name, ...command.aliases.filter((a) => a.startsWith("--"))]),
  ];
  const meant = closestName(name, names);
  return `unknown subcommand ${JSON.stringify(name)}${meant === undefined ? "" : `; did you mean ${meant}?`}`;
}

/** Runs the program for `args` and returns the exit status. */
export async function main(args: readonly string[]): Promise<number> {
  // Until a subcommand has read --log-level and --log-format, log at info as JSON.
  configureLogging({ level: "info", format: "json" });
  const [name, ...rest] = args;
  if (name === undefined) {
    printStderr(USAGE);
    return 2;
  }
  const builtin = BUILTINS.find((command) => command.name === name || command.aliases.includes(name));
  if (builtin !== undefined) return builtin.run();
  const subcommand = SUBCOMMANDS.find((command) => command.name === name);
  if (subcommand === undefined) {
    printStderr(`${unknownCommand(name)}\n\n${USAGE}`);
    return 2;
  }
  try {
    return await subcommand.run(rest);
  } catch (error) {
    // The message says what failed; `error` is the message as a string, with the error's name (and
    // an OS error's code) beside it for filtering.
    const message = errorMessage(error);
    logger().fatal(`${name} failed: ${message}`, { subcommand: name, ...errorFields(error) });
    return 1;
  }
}

if (import.meta.main) {
  Deno.exit(await main(Deno.args));
}
