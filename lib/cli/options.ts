/**
 * Declarative option tables: one table per subcommand describes every flag, its environment
 * variable, default, accepted values and help, and this module turns argv plus the environment
 * into typed values. Help text and the README tables are rendered from the same table
 * (`help.ts`), so they cannot drift from what the parser accepts.
 *
 * Precedence is flags > environment > defaults. An empty environment value counts as unset.
 * Every bad value is collected, so one run reports every problem at once.
 *
 * Pure: the environment is passed in as a lookup function.
 *
 * @module
 */

import { parseArgs } from "node:util";

/** The outcome of parsing one raw value. */
export type Parsed<T> = { readonly ok: true; readonly value: T } | {
  readonly ok: false;
  /** Why this value failed, when more can be said than {@linkcode ValueKind.accepted}. */
  readonly reason?: string;
};

/** A type of option value: how to parse it and how to describe what is accepted. */
export interface ValueKind<T> {
  /** Placeholder used in help, such as `DURATION`. */
  readonly placeholder: string;
  /** What is accepted, in words, shown in errors and help. */
  readonly accepted: string;
  /** True for on/off switches, which may be given as a bare `--flag`. */
  readonly isSwitch?: boolean;
  /** Parses the raw text of a flag or environment value. */
  parse(raw: string): Parsed<T>;
}

/** One row of an option table. */
export interface OptionSpec<T> {
  /** Flag name without dashes, such as `listen-http`. */
  readonly flag: string;
  /** Environment variable, or `null` when the option is flag-only. Derived when omitted. */
  readonly env?: string | null;
  /** Value type and validation. */
  readonly kind: ValueKind<T>;
  /** Default as raw text, parsed by `kind` like any other value. */
  readonly default: string;
  /** How help and the README show the default when the raw text alone would mislead. */
  readonly defaultText?: string;
  /** One or two sentences for help and the README. */
  readonly help: string;
}

/** A whole option table for one subcommand. */
export interface OptionTable<T extends Record<string, OptionSpec<unknown>>> {
  /** Subcommand name, such as `proxy`. */
  readonly command: string;
  /** One-line summary for the usage text. */
  readonly summary: string;
  /** The rows, keyed by the property name the typed values use. */
  readonly options: T;
}

/** Typed values produced from a table. */
export type OptionValues<T extends Record<string, OptionSpec<unknown>>> = {
  readonly [K in keyof T]: T[K] extends OptionSpec<infer V> ? V : never;
};

/** Where a value came from, for start-up logs. */
export type ValueSource = "flag" | "env" | "default";

/** Result of {@linkcode parseOptions}. */
export type ParseOutcome<T extends Record<string, OptionSpec<unknown>>> =
  | { readonly kind: "help" }
  | {
    readonly kind: "ok";
    readonly values: OptionValues<T>;
    readonly sources: { readonly [K in keyof T]: ValueSource };
  }
  | { readonly kind: "invalid"; readonly problems: readonly string[] };

/**
 * Thrown by a subcommand when its configuration cannot be used. `main.ts` prints the problems
 * and exits with status 2, the convention for bad usage.
 */
export class ConfigError extends Error {
  /** Each problem, naming the flag or variable, the value and what is accepted. */
  readonly problems: readonly string[];

  /** Creates an error listing every problem found. */
  constructor(command: string, problems: readonly string[]) {
    super(`invalid ${command} configuration:\n  ${problems.join("\n  ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/**
 * The environment variable for a row: the explicit `env`, or `OUROBOROS_<COMMAND>_<FLAG>` with
 * dashes turned into underscores.
 *
 * @example
 * ```ts
 * envName("proxy", { flag: "listen-http", ... }); // "OUROBOROS_PROXY_LISTEN_HTTP"
 * ```
 */
export function envName(command: string, spec: OptionSpec<unknown>): string | null {
  if (spec.env !== undefined) return spec.env;
  return `OUROBOROS_${command}_${spec.flag}`.toUpperCase().replaceAll("-", "_");
}

/** Quotes a value for an error message so empty strings and spaces stay visible. */
function quote(raw: string): string {
  return JSON.stringify(raw);
}

/** Builds the message for a value that failed to parse. */
export function describeBadValue(
  origin: string,
  raw: string,
  kind: ValueKind<unknown>,
  reason?: string,
): string {
  const why = reason === undefined ? "" : `${reason}; `;
  return `${origin}=${quote(raw)}: ${why}expected ${kind.accepted}`;
}

/**
 * Parses argv and the environment against a table.
 *
 * Flags may be written `--name=value`, `--name value`, or with one dash as Go allows; switches
 * also accept a bare `--name`. A repeated flag keeps its last value. `-h`/`--help` wins over
 * everything else.
 *
 * @example
 * ```ts
 * const outcome = parseOptions(PROXY_OPTIONS, ["--dial-timeout=2s"], (name) => env[name]);
 * if (outcome.kind === "ok") outcome.values.dialTimeout; // 2000
 * ```
 */
export function parseOptions<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
  argv: readonly string[],
  getEnv: (name: string) => string | undefined,
): ParseOutcome<T> {
  const problems: string[] = [];
  const byFlag = new Map<string, [keyof T & string, OptionSpec<unknown>]>();
  for (const [key, spec] of Object.entries(table.options)) byFlag.set(spec.flag, [key, spec]);

  const fromFlags = readFlags(table, argv, byFlag, problems);
  if (fromFlags === "help") return { kind: "help" };

  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  for (const [key, spec] of Object.entries(table.options)) {
    const variable = envName(table.command, spec);
    const flagValue = fromFlags.get(spec.flag);
    const envValue = variable === null ? undefined : getEnv(variable);
    let raw: string;
    let origin: string;
    if (flagValue !== undefined) {
      raw = flagValue;
      origin = `--${spec.flag}`;
      sources[key] = "flag";
    } else if (envValue !== undefined && envValue !== "") {
      raw = envValue;
      origin = variable ?? "";
      sources[key] = "env";
    } else {
      raw = spec.default;
      origin = `default of --${spec.flag}`;
      sources[key] = "default";
    }
    const parsed = spec.kind.parse(raw);
    if (parsed.ok) {
      values[key] = parsed.value;
    } else {
      problems.push(describeBadValue(origin, raw, spec.kind, parsed.reason));
    }
  }
  if (problems.length > 0) return { kind: "invalid", problems };
  return {
    kind: "ok",
    values: values as OptionValues<T>,
    sources: sources as { [K in keyof T]: ValueSource },
  };
}

/** Reads flags from argv into raw strings keyed by flag name, or `"help"`. */
function readFlags<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
  argv: readonly string[],
  byFlag: Map<string, [string, OptionSpec<unknown>]>,
  problems: string[],
): Map<string, string> | "help" {
  // Go's flag package accepts one dash for long names and `--switch=false`; node's parseArgs
  // accepts neither, so both are rewritten before it sees them.
  const explicitSwitches = new Map<string, string>();
  const rest: string[] = [];
  for (const arg of argv) {
    if (arg === "--") {
      rest.push(arg);
      continue;
    }
    let normalised = arg;
    if (/^-[^-]/.test(arg) && arg.length > 2 && !arg.startsWith("-h=")) normalised = `-${arg}`;
    const match = /^--([^=]+)=(.*)$/s.exec(normalised);
    const spec = match ? byFlag.get(match[1] ?? "")?.[1] : undefined;
    if (match && spec?.kind.isSwitch) {
      explicitSwitches.set(match[1] ?? "", match[2] ?? "");
      continue;
    }
    rest.push(normalised);
  }

  const parserOptions: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
  };
  for (const spec of Object.values(table.options)) {
    parserOptions[spec.flag] = { type: spec.kind.isSwitch ? "boolean" : "string" };
  }

  let parsedValues: Record<string, string | boolean | undefined> = {};
  try {
    const result = parseArgs({
      args: [...rest],
      options: parserOptions,
      strict: true,
      allowPositionals: false,
    });
    parsedValues = result.values as Record<string, string | boolean | undefined>;
  } catch (error) {
    problems.push(describeArgvError(table, error));
    return new Map();
  }
  if (parsedValues.help === true) return "help";

  const out = new Map<string, string>();
  for (const [name, value] of Object.entries(parsedValues)) {
    if (name === "help" || value === undefined) continue;
    out.set(name, typeof value === "boolean" ? String(value) : value);
  }
  for (const [name, value] of explicitSwitches) out.set(name, value);
  return out;
}

/** Turns a parseArgs failure into one problem line that says what is accepted. */
function describeArgvError<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
  error: unknown,
): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  const hint = `run 'ouroboros ${table.command} --help' for the accepted flags`;
  switch (code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION": {
      const name = /'([^']+)'/.exec(message)?.[1] ?? message;
      return `unknown flag ${name}; ${hint}`;
    }
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL": {
      const value = /'([^']*)'/.exec(message)?.[1] ?? message;
      return `unexpected argument ${quote(value)}: ouroboros ${table.command} takes only flags; ${hint}`;
    }
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const name = /--([a-z0-9-]+)/.exec(message)?.[1];
      return name === undefined
        ? `${message}; ${hint}`
        : `flag --${name} needs a value, written --${name}=VALUE or --${name} VALUE`;
    }
    default:
      return `${message}; ${hint}`;
  }
}
