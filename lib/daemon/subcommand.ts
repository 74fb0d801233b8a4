/**
 * The skeleton every long-running subcommand runs on. A subcommand supplies an option table, a
 * `settings` function and a `start` function; {@linkcode defineSubcommand} turns them into the
 * {@linkcode Subcommand} entry that `main.ts` dispatches, and runs every subcommand through the
 * same steps in the same order:
 *
 * | step | what happens                                                         | whose code          |
 * |------|----------------------------------------------------------------------|---------------------|
 * | 1    | parse argv and the table's own env vars; `--help` on stdout, exit 0   | skeleton            |
 * | 2    | `settings`: cross-field checks, start-up reads (`/etc/resolv.conf`)   | subcommand          |
 * | 3    | logging from `--log-level` and `--log-format`                         | skeleton            |
 * | 4    | `start`: connect, bind the subcommand's own listeners                 | subcommand          |
 * | 5    | SIGTERM/SIGINT handlers: the first starts a graceful shutdown, a      | skeleton            |
 * |      | second one asks to cut it short                                       |                     |
 * | 6    | the health listener on the address and routes `start` returned,       | skeleton            |
 * |      | bound again whenever it fails                                         |                     |
 * | 7    | permission narrowing: the explicit list `start` returned is revoked   | skeleton            |
 * | 8    | `run`: the start-up line, serving until shutdown; the exit status     | subcommand          |
 * | 9    | the health listener stops, the handlers go, the service is closed     | skeleton            |
 *
 * Bad configuration found at any step (a {@linkcode ConfigError}) prints every problem on
 * stderr and exits 2; any other error propagates to `main.ts`, which logs it and exits 1.
 *
 * Decisions:
 * - Signal handlers go in after `start`, so a signal during a slow start-up (loading a
 *   kubeconfig) still ends the process at once, as it always did.
 * - The health listener is bound after `start`: its routes read what `start` built, and the
 *   proxy's traffic listeners are bound first, so a taken port is reported for them first. If it
 *   cannot bind, the service is closed (its listeners released) and the error propagates.
 * - The shutdown sequence and its grace are the subcommand's: `run` gets both signals, because
 *   what "graceful" means differs (the proxy drains connections within `--shutdown-grace`; the
 *   controller lets a write in flight finish).
 * - What the skeleton logs (the health listener's WARN and INFO) goes under the subcommand's
 *   logger (`ouroboros.proxy`, `ouroboros.controller`), as it acts for that subcommand.
 *
 * A new subcommand is then a folder `lib/<name>/` with `<name>_options.ts` (its table, spreading
 * `LOGGING_OPTIONS`) and `<name>_command.ts` (one `defineSubcommand` call), one line in
 * `main.ts`'s table and a permission set named after it in `deno.json` (which the `binary` set
 * must cover; `tests/permissions_test.ts` checks).
 *
 * Effects: everything above; the pure parts live in `cli/` and in the subcommands' settings.
 *
 * @example A subcommand that answers probes until SIGTERM
 * ```ts
 * import { listenAddress } from "../cli/kinds.ts";
 * import { logger } from "../util/logging.ts";
 * import { LOGGING_OPTIONS } from "./logging_options.ts";
 * import { defineSubcommand, type Subcommand } from "./subcommand.ts";
 *
 * const ECHO_OPTIONS = {
 *   command: "echo",
 *   summary: "Answer health probes until stopped.",
 *   options: {
 *     listenHealth: {
 *       flag: "listen-health",
 *       kind: listenAddress({ allowEmpty: true }),
 *       default: ":8083",
 *       help: "Address serving /healthz, /readyz and /metrics. Empty disables it.",
 *     },
 *     ...LOGGING_OPTIONS,
 *   },
 * } as const;
 *
 * const ECHO: Subcommand = defineSubcommand({
 *   options: ECHO_OPTIONS,
 *   usage: "answer health probes until stopped",
 *   settings: ({ values }) => ({ values }),
 *   start: ({ values }) => ({
 *     health: {
 *       address: values.listenHealth,
 *       routes: { readiness: () => ({ ready: true }), metrics: () => "" },
 *     },
 *     revoke: [{ name: "read" }, { name: "write" }, { name: "env" }, { name: "run" }],
 *     async run({ signals, healthAddress }) {
 *       const log = logger("echo");
 *       log.info("echo starting", { health: healthAddress ?? "off" });
 *       await new Promise((resolve) => signals.shutdown.addEventListener("abort", resolve));
 *       log.info("echo stopped", { signal: signals.received() });
 *       return 0;
 *     },
 *   }),
 * });
 * // main.ts: const SUBCOMMANDS = [CONTROLLER, PROXY, ECHO];
 * ```
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
  /**
   * Further listeners with the same routes, for a subcommand whose operators expect metrics and
   * probes on separate ports (kuberture's `metricsBindAddress` and `healthProbeBindAddress`).
   */
  readonly moreListeners?: readonly HealthConfig[];
  /**
   * The permissions given up before `run`, in order: everything `run` no longer needs. An
   * explicit list, so the permission tests can revoke exactly what the subcommand does.
   */
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
  /**
   * Checks the parsed options together and does the start-up reads, before any permission is
   * given up. Returns every problem at once as a {@linkcode ConfigError}.
   */
  readonly settings: (parsed: ParsedOptions<T>) => S | ConfigError;
  /** Connects and binds what the subcommand serves; throws when it cannot. */
  readonly start: (settings: S) => Service | Promise<Service>;
}

/**
 * Defines a long-running subcommand: see the module documentation for the steps and an example.
 * The result goes into `main.ts`'s table.
 */
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
