/**
 * Log line formats: JSON lines (the default) and `key=value` text like Go's slog text handler.
 *
 * For every line, whatever the call site passed (docs/operations.md, Logging, promises it): an
 * `Error` field `k` becomes strings `k`, `kName`, `kCode`; an empty field is left out; control and
 * invisible characters are escaped, so a hostile value can neither forge a line nor recolour a tty.
 *
 * Pure: turns a log record into one line of text.
 *
 * @module
 */

import type { LogLevel, LogRecord } from "@logtape/logtape";
import { errorFields } from "./error_message.ts";

/** The `--log-format` values. */
export const LOG_FORMATS = ["json", "text"] as const;
/** A `--log-format` value. */
export type LogFormat = (typeof LOG_FORMATS)[number];

/** The `--log-level` values, in increasing severity. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const;
/** A `--log-level` value. */
export type LogLevelName = (typeof LOG_LEVELS)[number];

/** Maps our level names to logtape's (which spells warn as `warning`). */
export function toLogtapeLevel(level: LogLevelName): LogLevel {
  return level === "warn" ? "warning" : level;
}

const LEVEL_LABEL: Readonly<Record<LogLevel, string>> = {
  trace: "TRACE",
  debug: "DEBUG",
  info: "INFO",
  warning: "WARN",
  error: "ERROR",
  fatal: "FATAL",
};

/**
 * Makes a value safe for `JSON.stringify` at any depth: errors become `{name, message[, code]}`,
 * bigints strings (one would throw and lose the line), a cycle `"[Circular]"`.
 */
export function plainValue(value: unknown): unknown {
  return plain(value, new Set());
}

function plain(value: unknown, parents: Set<object>): unknown {
  if (value instanceof Error) {
    const out: Record<string, unknown> = { name: value.name, message: value.message };
    const code = (value as { code?: unknown }).code;
    if (typeof code === "string") out.code = code;
    return out;
  }
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") return value;
  const proto: unknown = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return value;
  if (parents.has(value)) return "[Circular]";
  parents.add(value);
  const out = Array.isArray(value)
    ? value.map((item) => plain(item, parents))
    : Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item, parents)]));
  parents.delete(value);
  return out;
}

/** Joins logtape's rendered message parts (text interleaved with values) into one string. */
export function renderMessage(record: LogRecord): string {
  return record.message.map((part, index) => {
    if (index % 2 === 0) return String(part);
    return typeof part === "string" ? part : JSON.stringify(plainValue(part));
  }).join("");
}

/** Formats a record as one JSON object per line, fixed fields first. */
export function formatJsonLine(record: LogRecord): string {
  const line: Record<string, unknown> = {
    time: new Date(record.timestamp).toISOString(),
    level: LEVEL_LABEL[record.level],
    logger: record.category.join("."),
    msg: renderMessage(record),
  };
  for (const [key, value] of logFields(record.properties)) {
    if (!(key in line)) line[key] = value;
  }
  return `${JSON.stringify(line).replace(/[\p{C}\u2028\u2029]/gu, escapeCodeUnits)}\n`;
}

/** The fields of a record as printed: empties left out, errors split, the rest made plain. */
export function logFields(properties: Readonly<Record<string, unknown>>): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const [key, value] of Object.entries(properties)) {
    if (value === undefined || value === "") continue;
    if (value instanceof Error) out.push(...Object.entries(errorFields(value, key)));
    else out.push([key, plainValue(value)]);
  }
  return out;
}

/** Formats a record as `time=… level=INFO logger=… msg="…" key=value`. */
export function formatTextLine(record: LogRecord): string {
  const parts = [
    `time=${new Date(record.timestamp).toISOString()}`,
    `level=${LEVEL_LABEL[record.level]}`,
    `logger=${record.category.join(".")}`,
    `msg=${textValue(renderMessage(record))}`,
  ];
  for (const [key, plain] of logFields(record.properties)) {
    parts.push(`${key}=${textValue(typeof plain === "string" ? plain : JSON.stringify(plain) ?? "null")}`);
  }
  return `${parts.join(" ")}\n`;
}

/** Quotes a value that is empty or could fake a key, a line or a terminal escape. */
function textValue(value: string): string {
  if (value !== "" && !/[\s"=\\\p{C}]/u.test(value)) return value;
  return JSON.stringify(value).replace(
    /[\p{C}\u2028\u2029]/gu,
    escapeCodeUnits,
  );
}

/** `\uXXXX` for every UTF-16 code unit, so characters beyond U+FFFF become a valid pair. */
function escapeCodeUnits(char: string): string {
  let out = "";
  for (let i = 0; i < char.length; i++) out += `\\u${char.charCodeAt(i).toString(16).padStart(4, "0")}`;
  return out;
}
