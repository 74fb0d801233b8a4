/**
 * The skeleton every long-running subcommand runs on: {@linkcode defineSubcommand} turns an
 * option table, a `settings` and a `start` function into the entry `main.ts` dispatches.
 *
 * Steps: parse argv and the table's env vars (`--help`: stdout, exit 0); `settings` (cross-field
 * checks, start-up reads); logging; `start` (connect, bind own listeners); signal handlers; health
 * listeners; revoke what `start` listed; `run`; tear down. A {@linkcode ConfigError} at any step
 * prints every problem and exits 2; other errors go to `main.ts` (exit 1).
 *
 * Signal handlers and health listeners come after `start`: a signal during a slow start-up still
 * ends the process at once, and the routes read what `start` built. Shutdown is the subcommand's
 * own: `run` gets both signals, as "graceful" differs (the proxy drains, the controller finishes
 * a write).
 *
 * Effects: everything above; the pure parts live in `cli/` and in the subcommands' settings.
 *
 * @module
 */

import { renderHelp } from "../cli/help.ts";
import {
  ConfigError,
  type OptionSpec,
  type OptionTable,
  type OptionValues,
  parseOptions,
  type ValueSource,
} from "../cli/options.ts";
import type { ListenAddress } from "../util/listen_address.ts";
import type { LogFormat, LogLevelName } from "../util/log_format.ts";
import { configureLogging, logger } from "../util/logging.ts";
import { printStderr, printStdout } from "../util/stdio.ts";
import { declaredEnv } from "./declared_env.ts";
import type { HealthRoutes } from "./health_handler.ts";
import { HealthListener } from "./health_listener.ts";
import { type RevocableDescriptor, revokePermissions } from "./revoke_permissions.ts";
import { installShutdownSignals, type ShutdownSignals } from "./shutdown_signals.ts";

/** What `main.ts` dispatches: one row of its subcommand table. */
export interface Subcommand {
  /** The word after `ouroboros`, such as `proxy`. */
  readonly name: string;
  /** One line for the usage text, after the name. */
  readonly usage: string;
  /** Runs the subcommand with the arguments after its name; resolves to the exit status. */
  run(argv: readonly string[]): Promise<number>;
}

/** The rows of an option table. */
type Rows = Record<string, OptionSpec<unknown>>;

/** A table's parsed values, and where each came from (for the start-up line). */
export interface ParsedOptions<T extends Rows> {
  readonly values: OptionValues<T>;
  readonly sources: { readonly [K in keyof T]: ValueSource };
}

/** What the skeleton reads from any subcommand's settings: the logging flags' values. */
export interface DaemonSettings {
  readonly values: { readonly logLevel: LogLevelName; readonly logFormat: LogFormat };
}

/** The health listener a service asks for. */
export interface HealthConfig {
  /** `--listen-health`; `null` disables the listener. */
  readonly address: ListenAddress | null;
  /** What `/readyz` and `/metrics` answer. */
  readonly routes: HealthRoutes;
}

/** What the skeleton hands to {@linkcode Service.run}. */
export interface RunContext {
  /** SIGTERM/SIGINT: `shutdown` on the first, `force` on a second; `received()` names the first. */
  readonly signals: ShutdownSignals & { readonly received: () => Deno.Signal | undefined };
  /** The health listener's bound address (`host:port`), `undefined` when it is disabled. */
  readonly healthAddress: string | undefined;
  /** The bound address of each of `Service.moreListeners`, in order (`undefined`: disabled). */
  readonly moreAddresses: readonly (string | undefined)[];
}

/** A started subcommand, as `start` returns it. */
export interface Service {
  /** The health listener to serve; omitted for a run that serves none (a one-shot cleanup). */
  readonly health?: HealthConfig;
  /** Further listeners with the same routes (kuberture's separate metrics and probe ports). */
  readonly moreListeners?: readonly HealthConfig[];
  /** Given up before `run`: an explicit list, so the permission tests revoke exactly the same. */
  readonly revoke?: readonly RevocableDescriptor[];
  /** Serves until done (normally: until `signals.shutdown` and the graceful stop after it). */
  run(context: RunContext): Promise<number>;
  /** Releases what `start` took; called after `run`, or when the skeleton could not run it. */
  close?(): void;
}

/** The parts of a subcommand, for {@linkcode defineSubcommand}. */
export interface SubcommandDefinition<T extends Rows, S extends DaemonSettings> {
  /** The option table; its `command` is the subcommand's name. Spread `LOGGING_OPTIONS` in it. */
  readonly options: OptionTable<T>;
  /** One line for `ouroboros help`. */
  readonly usage: string;
  /** Cross-field checks and start-up reads, before permissions go; every problem at once. */
  readonly settings: (parsed: ParsedOptions<T>) => S | ConfigError;
  /** Connects and binds what the subcommand serves; throws when it cannot. */
  readonly start: (settings: S) => Service | Promise<Service>;
}

/** Defines a long-running subcommand (the steps are in the module doc), for `main.ts`'s table. */
export function defineSubcommand<T extends Rows, S extends DaemonSettings>(
  definition: SubcommandDefinition<T, S>,
): Subcommand {
  const table = definition.options;
  return {
    name: table.command,
    usage: definition.usage,
    async run(argv: readonly string[]): Promise<number> {
      const parsed = parseOptions(table, { argv, getEnv: declaredEnv(table) });
      if (parsed.kind === "help") {
        printStdout(renderHelp(table));
        return 0;
      }
      try {
        if (parsed.kind === "invalid") throw new ConfigError(table.command, parsed.problems);
        const settings = definition.settings(parsed);
        if (settings instanceof ConfigError) throw settings;
        configureLogging({ level: settings.values.logLevel, format: settings.values.logFormat });
        return await serve(table.command, await definition.start(settings));
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error;
        printStderr(
          `ouroboros ${error.message}\nRun 'ouroboros ${table.command} --help' for the accepted flags.\n`,
        );
        return 2;
      }
    },
  };
}

/** Steps 5 to 9: signals, the health listeners, narrowing, `run`, and the tidy-up after it. */
async function serve(command: string, service: Service): Promise<number> {
  const signals = installShutdownSignals();
  const listeners: (HealthListener | undefined)[] = [];
  try {
    for (const config of [service.health, ...(service.moreListeners ?? [])]) {
      const address = config?.address ?? null;
      listeners.push(
        config === undefined || address === null
          ? undefined
          : HealthListener.start({ address, routes: config.routes, log: logger(command) }),
      );
    }
    revokePermissions(service.revoke ?? []);
    return await service.run({
      signals,
      healthAddress: listeners[0]?.address,
      moreAddresses: listeners.slice(1).map((listener) => listener?.address),
    });
  } finally {
    for (const listener of listeners) await listener?.stop();
    signals.dispose();
    service.close?.();
  }
}
