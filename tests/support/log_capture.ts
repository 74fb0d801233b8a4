/**
 * Collects the program's log lines in a test: configures the real logging set-up
 * (`lib/util/logging.ts`) with a collecting `write`, parses each JSON line, and resets logging
 * when disposed, so the lines a user would see are what the test asserts on.
 *
 * @module
 */

import { resetSync } from "@logtape/logtape";
import { configureLogging } from "../../lib/util/logging.ts";
import type { LogLevelName } from "../../lib/util/log_format.ts";

/** One parsed log line. */
export interface CapturedLine {
  readonly level: string;
  readonly logger: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** The lines so far, plus filters. Dispose to stop collecting. */
export interface LogCapture extends Disposable {
  readonly lines: readonly CapturedLine[];
  /** Lines at one level (`DEBUG`, `INFO`, `WARN`, `ERROR`). */
  at(level: string): CapturedLine[];
  /** Forgets the lines so far. */
  clear(): void;
}

/**
 * Starts collecting at `level` and above.
 *
 * @example
 * ```ts
 * using logs = captureLogs("debug");
 * doSomething();
 * assertEquals(logs.at("WARN").length, 1);
 * ```
 */
export function captureLogs(level: LogLevelName = "debug"): LogCapture {
  const lines: CapturedLine[] = [];
  configureLogging({
    level,
    format: "json",
    write: (line) => lines.push(JSON.parse(line) as CapturedLine),
  });
  return {
    lines,
    at: (wanted) => lines.filter((line) => line.level === wanted),
    clear: () => void lines.splice(0),
    [Symbol.dispose]: () => resetSync(),
  };
}
