/**
 * A {@linkcode Log} for tests: keeps every call so a test can assert on what was said, at which
 * level, with which properties.
 *
 * @module
 */

import type { Log } from "../../lib/util/logging.ts";

/** One recorded log call. */
export interface LogEntry {
  readonly level: "debug" | "info" | "warn" | "error";
  readonly message: string;
  readonly properties: Record<string, unknown>;
}

/** A {@linkcode Log} that keeps every call. */
export class LogRecorder implements Log {
  readonly entries: LogEntry[] = [];
  debug(message: string, properties: Record<string, unknown> = {}): void {
    this.entries.push({ level: "debug", message, properties });
  }
  info(message: string, properties: Record<string, unknown> = {}): void {
    this.entries.push({ level: "info", message, properties });
  }
  warn(message: string, properties: Record<string, unknown> = {}): void {
    this.entries.push({ level: "warn", message, properties });
  }
  error(message: string, properties: Record<string, unknown> = {}): void {
    this.entries.push({ level: "error", message, properties });
  }
  /** Entries at `level` whose message starts with `prefix`. */
  find(level: LogEntry["level"], prefix: string): LogEntry[] {
    return this.entries.filter((entry) => entry.level === level && entry.message.startsWith(prefix));
  }
}
