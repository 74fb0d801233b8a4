/**
 * Declarative option tables: one per subcommand describes every flag, its environment variable,
 * default, accepted values and help; this module turns argv plus the environment into typed values.
 *
 * Flags > environment > defaults; an empty environment value counts as unset. Every bad value is
 * collected, so one run reports every problem.
 *
 * Pure: the environment is passed in as a lookup function.
 *
 * @module
 */

import { closestName } from "./suggest.ts";

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
  parse(raw: string): Parsed<T>;
}

/** One row of an option table. */
export interface OptionSpec<T> {
  /** Flag name without dashes, such as `listen-http`; `null` for an environment-only setting. */
  readonly flag: string | null;
  /** Environment variable, or `null` for flag-only; derived when omitted ({@linkcode envName}). */
  readonly env?: string | null;
  readonly kind: ValueKind<T>;
  /** Default as raw text, parsed by `kind` like any other value. */
  readonly default: string;
  /** How help and the docs' flag tables show the default when the raw text alone would mislead. */
  readonly defaultText?: string;
  readonly help: string;
  /** The flag may be given several times; the value is the list. No environment variable. */
  readonly repeatable?: boolean;
}

/**
 * One heading of `--help`: its rows in the order given, or, `collapsed`, that text and only the
 * rows' flag names (for rows a reader looks up elsewhere, such as the controller's in the doctor).
 */
export interface HelpGroup<K extends string> {
  readonly title: string;
  readonly options: readonly K[];
  readonly collapsed?: string;
}

/** A whole option table for one subcommand. */
export interface OptionTable<T extends Record<string, OptionSpec<unknown>>> {
  readonly command: string;
  readonly summary: string;
  /** The rows, keyed by the property name the typed values use. */
  readonly options: T;
  /** `--help`'s headings, every row in exactly one; absent: one flat list. */
  readonly groups?: readonly HelpGroup<Extract<keyof T, string>>[];
}

/** The typed value of one row: a list for repeatable flags. */
export type OptionValue<S> = S extends { readonly repeatable: true; readonly kind: ValueKind<infer V> }
  ? readonly V[]
  : S extends OptionSpec<infer V> ? V
  : never;

/** Typed values produced from a table. */
export type OptionValues<T extends Record<string, OptionSpec<unknown>>> = {
  readonly [K in keyof T]: OptionValue<T[K]>;
};

/** How a row is named in messages: `--flag`, or the environment variable of an env-only row. */
export function optionLabel(command: string, spec: OptionSpec<unknown>): string {
  return spec.flag === null ? envName(command, spec) ?? "(unnamed)" : `--${spec.flag}`;
}

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

/** Thrown when a subcommand's configuration cannot be used; `main.ts` exits with status 2. */
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

/** The environment variable for a row: the explicit `env`, or `OUROBOROS_<COMMAND>_<FLAG>`. */
export function envName(command: string, spec: OptionSpec<unknown>): string | null {
  if (spec.env !== undefined) return spec.env;
  if (spec.flag === null || spec.repeatable) return null;
  return `OUROBOROS_${command}_${spec.flag}`.toUpperCase().replaceAll("-", "_");
}

/** Quotes a value for an error message so empty strings and spaces stay visible. */
function quote(raw: string): string {
  return JSON.stringify(raw);
}

/** The message for a value that failed to parse: where it came from, it, why, and what fits. */
function describeBadValue(origin: string, raw: string, kind: ValueKind<unknown>, reason?: string): string {
  const why = reason === undefined ? "" : `${reason}; `;
  return `${origin}=${quote(raw)}: ${why}expected ${kind.accepted}`;
}

/** What {@linkcode parseOptions} reads besides the table. */
export interface ParseInput {
  readonly argv: readonly string[];
  /** Looks up an environment variable; `undefined` when it is not set. */
  readonly getEnv: (name: string) => string | undefined;
}

/**
 * Parses argv and the environment against a table; `-h`/`--help` wins over everything else.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { duration } from "./kinds.ts";
 * import { parseOptions } from "./options.ts";
 *
 * const TABLE = {
 *   command: "proxy",
 *   summary: "Relay TCP connections with a PROXY protocol header.",
 *   options: {
 *     dialTimeout: { flag: "dial-timeout", kind: duration(), default: "5s", help: "Dial deadline." },
 *   },
 * } as const;
 * const outcome = parseOptions(TABLE, { argv: ["--dial-timeout=2s"], getEnv: (name) => Deno.env.get(name) });
 * assert.ok(outcome.kind === "ok");
 * assert.equal(outcome.values.dialTimeout, 2000);
 * ```
 */
export function parseOptions<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
  input: ParseInput,
): ParseOutcome<T> {
  const { argv, getEnv } = input;
  const problems: string[] = [];
  const byFlag = new Map<string, [keyof T & string, OptionSpec<unknown>]>();
  for (const [key, spec] of Object.entries(table.options)) {
    if (spec.flag !== null) byFlag.set(spec.flag, [key, spec]);
  }

  const fromFlags = readFlags(table, argv, byFlag, problems);
  if (fromFlags === "help") return { kind: "help" };

  const values: Record<string, unknown> = {};
  const sources: Record<string, ValueSource> = {};
  for (const [key, spec] of Object.entries(table.options)) {
    const label = optionLabel(table.command, spec);
    const given = spec.flag === null ? undefined : fromFlags.get(spec.flag);
    if (spec.repeatable) {
      const items: unknown[] = [];
      for (const raw of given ?? []) {
        const parsed = spec.kind.parse(raw);
        if (parsed.ok) items.push(parsed.value);
        else problems.push(describeBadValue(label, raw, spec.kind, parsed.reason));
      }
      values[key] = items;
      sources[key] = given === undefined ? "default" : "flag";
      continue;
    }
    const variable = envName(table.command, spec);
    const flagValue = given?.at(-1);
    const envValue = variable === null ? undefined : getEnv(variable);
    let raw: string;
    let origin: string;
    if (flagValue !== undefined) {
      raw = flagValue;
      origin = label;
      sources[key] = "flag";
    } else if (envValue !== undefined && envValue !== "") {
      raw = envValue;
      origin = variable ?? "";
      sources[key] = "env";
    } else {
      raw = spec.default;
      origin = `default of ${label}`;
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

/** One argv element that looks like a flag, split into its parts. */
interface FlagToken {
  /** As written, without any `=value`: `--listen-http`, `-h`. */
  readonly written: string;
  /** Without dashes. */
  readonly name: string;
  /** The text after the first `=`, when there is one. */
  readonly inline?: string;
}

/**
 * Splits `-name`, `--name`, `-name=value` or `--name=value`; `undefined` if not flag-shaped, an
 * empty name for bad syntax (`---name`, `--=x`).
 */
function splitFlag(arg: string): FlagToken | undefined {
  if (!arg.startsWith("-") || arg === "-") return undefined;
  const body = arg.slice(arg.startsWith("--") ? 2 : 1);
  const equals = body.indexOf("=");
  const name = equals < 0 ? body : body.slice(0, equals);
  const written = arg.slice(0, arg.length - body.length) + name;
  const valid = name !== "" && !name.startsWith("-");
  return {
    written,
    name: valid ? name : "",
    ...(equals < 0 ? {} : { inline: body.slice(equals + 1) }),
  };
}

/**
 * Reads flags from argv into raw strings by flag name, or `"help"`. Follows Go's `flag` package
 * (the original's) but reports every mistake, not just the first. The word after a flag is its
 * value unless it is a known flag: `--dial-timeout -5s` is a negative duration.
 */
function readFlags<T extends Record<string, OptionSpec<unknown>>>(
  table: OptionTable<T>,
  argv: readonly string[],
  byFlag: Map<string, [string, OptionSpec<unknown>]>,
  problems: string[],
): Map<string, string[]> | "help" {
  const isHelp = (name: string) => name === "h" || name === "help";
  const isKnownFlag = (arg: string) => {
    const token = splitFlag(arg);
    return token !== undefined && (isHelp(token.name) || byFlag.has(token.name));
  };
  const unexpected = (value: string) =>
    `unexpected argument ${quote(value)}: ouroboros ${table.command} takes only flags`;
  const names = [...byFlag.keys(), "help"];

  const out = new Map<string, string[]>();
  const set = (flag: string, value: string) => out.set(flag, [...(out.get(flag) ?? []), value]);
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      // Go stops reading flags here; whatever follows is a positional argument.
      for (const rest of argv.slice(i + 1)) problems.push(unexpected(rest));
      break;
    }
    const token = splitFlag(arg);
    if (token === undefined) {
      problems.push(unexpected(arg));
      continue;
    }
    if (token.name === "") {
      problems.push(`bad flag syntax ${quote(arg)}: write --name=value or --name value`);
      continue;
    }
    if (isHelp(token.name)) {
      help = true;
      continue;
    }
    const spec = byFlag.get(token.name)?.[1];
    if (spec === undefined) {
      const meant = closestName(token.name, names);
      problems.push(
        `unknown flag ${token.written}${meant === undefined ? "" : `; did you mean --${meant}?`}`,
      );
      continue;
    }
    const flag = token.name;
    if (token.inline !== undefined) {
      set(flag, token.inline);
    } else if (spec.kind.isSwitch) {
      set(flag, "true");
    } else {
      const next = argv[i + 1];
      if (next === undefined || next === "--" || isKnownFlag(next)) {
        problems.push(`flag --${flag} needs a value, written --${flag}=VALUE or --${flag} VALUE`);
      } else {
        set(flag, next);
        i++;
      }
    }
  }
  return help ? "help" : out;
}
