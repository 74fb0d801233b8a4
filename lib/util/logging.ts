/**
 * Process-wide logging set-up on top of `@logtape/logtape`. Lines go to stderr with synchronous
 * writes, so a line logged just before `Deno.exit` is never lost and lines never interleave.
 *
 * Effects: {@linkcode configureLogging} sets process-wide state; loggers write to stderr.
 *
 * @module
 */

import { configureSync, getLogger, type Logger, type LogRecord, type Sink } from "@logtape/logtape";
import {
  formatJsonLine,
  formatTextLine,
  type LogFormat,
  type LogLevelName,
  toLogtapeLevel,
} from "./log_format.ts";
import { printStderr } from "./stdio.ts";

/** The root category; subsystems log under `ouroboros.<part>`. */
export const ROOT_CATEGORY = "ouroboros";

/** Options for {@linkcode configureLogging}. */
export interface LoggingOptions {
  readonly level: LogLevelName;
  readonly format: LogFormat;
  /** Where formatted lines go; stderr when omitted. */
  readonly write?: (line: string) => void;
}

/** (Re)configures logging for the whole process: once before flags are parsed, again after. */
export function configureLogging(options: LoggingOptions): void {
  const format = options.format === "json" ? formatJsonLine : formatTextLine;
  const write = options.write ?? printStderr;
  const sink: Sink = (record: LogRecord) => write(format(record));
  configureSync({
    reset: true,
    sinks: { out: sink },
    loggers: [
      { category: [ROOT_CATEGORY], lowestLevel: toLogtapeLevel(options.level), sinks: ["out"] },
      { category: ["logtape", "meta"], lowestLevel: "warning", sinks: ["out"] },
    ],
  });
}

/**
 * The logging calls code makes (a logtape `Logger` fits), so tests can hand in a collector.
 * Categories follow the folder of the code that logs: `logger("kube")` in `lib/kube/`.
 */
export interface Log {
  debug(message: string, properties?: Record<string, unknown>): void;
  info(message: string, properties?: Record<string, unknown>): void;
  warn(message: string, properties?: Record<string, unknown>): void;
  error(message: string, properties?: Record<string, unknown>): void;
}

/** The logger for one part of the program, such as `logger("proxy")`. */
export function logger(...part: string[]): Logger {
  return getLogger([ROOT_CATEGORY, ...part]);
}
