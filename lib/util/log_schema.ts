/**
 * The log schema every line obeys (docs/operations.md, Logging), as a checker a test can hold
 * every subcommand's output to.
 *
 * Keys are checked only at the top level; inside nested values keys may be data, so only values.
 *
 * Pure: reads one line of text, returns the problems found.
 *
 * @module
 */

/** The fields every JSON line starts with, in order. */
export const FIXED_FIELDS = ["time", "level", "logger", "msg"] as const;

const LEVELS: ReadonlySet<string> = new Set(["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"]);
const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;
/** A millisecond (or other non-second) unit in a key: `elapsedMs`, `delayMillis`, `graceMinutes`. */
const NOT_SECONDS_KEY = /(Ms|Millis|Milliseconds|Minutes|Nanos|Micros)$/;
/** A Go-style duration string: `5.006s`, `10m0s`, `250ms`, `1h30m`. */
const DURATION_TEXT = /^\d+(\.\d+)?(ns|µs|us|ms|s|m|h)(\d+(\.\d+)?(ns|µs|us|ms|s|m|h))*$/;
const ERROR_KEYS: ReadonlySet<string> = new Set(["error", "errorName", "errorCode"]);
/** Placeholder words for "nothing" that a field must not hold (absent means none). */
const EMPTY_WORDS: ReadonlySet<string> = new Set(["(none)", "<none>", "(empty)"]);

/** The problems of one JSON log line against the schema; an empty list when it obeys it. */
export function logLineProblems(line: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return [`not JSON: ${line.slice(0, 120)}`];
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return ["not a JSON object"];
  const fields = parsed as Record<string, unknown>;
  const problems: string[] = [];
  const keys = Object.keys(fields);
  if (FIXED_FIELDS.some((key, index) => keys[index] !== key)) {
    problems.push(`the line does not start with ${FIXED_FIELDS.join(", ")}`);
  }
  for (const key of FIXED_FIELDS) {
    if (typeof fields[key] !== "string") problems.push(`fixed field "${key}" is not a string`);
  }
  if (!LEVELS.has(String(fields.level))) {
    problems.push(`level "${String(fields.level)}" is not a known level`);
  }
  for (const [key, value] of Object.entries(fields)) {
    if ((FIXED_FIELDS as readonly string[]).includes(key)) continue;
    fieldProblems(key, value, problems);
  }
  return problems;
}

function fieldProblems(key: string, value: unknown, problems: string[]): void {
  if (!CAMEL_CASE.test(key)) problems.push(`key "${key}" is not camelCase`);
  if (NOT_SECONDS_KEY.test(key) || /_ms$/i.test(key)) {
    problems.push(`key "${key}" is a duration not in seconds (use durationSeconds or <what>Seconds)`);
  }
  if (key.endsWith("Seconds") && typeof value !== "number") {
    problems.push(`"${key}" is not a number of seconds`);
  }
  if (ERROR_KEYS.has(key) && typeof value !== "string") problems.push(`"${key}" is not a string`);
  if (typeof value === "string" && DURATION_TEXT.test(value)) {
    problems.push(`"${key}" is a duration as text (${value}); use seconds`);
  }
  valueProblems(`"${key}"`, value, problems);
}

/** The rules for values, at any depth: never empty, never a placeholder, never quoted again. */
function valueProblems(where: string, value: unknown, problems: string[]): void {
  if (value === "") problems.push(`${where} is empty (leave the field out)`);
  if (typeof value === "string") {
    if (EMPTY_WORDS.has(value)) problems.push(`${where} says ${value} (leave the field out)`);
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
      problems.push(`${where} is quoted inside the JSON: ${value.slice(0, 60)}`);
    }
  } else if (Array.isArray(value)) {
    for (const item of value) valueProblems(`an item of ${where}`, item, problems);
  } else if (value !== null && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) valueProblems(`${where}.${key}`, item, problems);
  }
}
