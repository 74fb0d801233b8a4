/**
 * Which refused hostnames to WARN about, and how to print them.
 *
 * The desired set is recomputed on every reconcile (every event burst and every resync), so
 * logging each refusal each time would repeat the same WARN forever. {@linkcode RejectionLog}
 * warns once per (kind, object, resourceVersion, value): a change to the object (a new
 * resourceVersion) warns again, an unchanged object stays quiet across reconciles, and what it
 * remembers is exactly the current refusals, so deleted or fixed objects are forgotten and memory
 * stays bounded by what the cluster currently holds.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { RejectedHostname, SkippedWildcard } from "./desired_set.ts";

/**
 * Remembers the refusals already reported.
 *
 * @example
 * ```ts
 * import { logger } from "../util/logging.ts";
 * import type { DesiredSet } from "./desired_set.ts";
 * import { describeRejection, RejectionLog } from "./rejection_log.ts";
 *
 * declare const desired: DesiredSet; // one reconcile's desiredHostnames(…)
 * const rejections = new RejectionLog();
 * for (const entry of rejections.observe(desired.rejected)) {
 *   logger("controller").warn(describeRejection(entry));
 * }
 * ```
 */
export class RejectionLog {
  #reported = new Set<string>();

  /**
   * Takes the full list of current refusals (from {@linkcode desiredHostnames}) and returns those
   * not reported before, in the given order. Refusals absent from `current` are forgotten, so
   * always pass the complete list of one reconcile, never a part of it. A list of skipped
   * wildcards (`DesiredSet.skippedWildcards`) works the same way, in a log of its own.
   */
  observe<T extends SkippedWildcard>(current: readonly T[]): T[] {
    const next = new Set<string>();
    const fresh: T[] = [];
    for (const entry of current) {
      const identity = JSON.stringify([entry.source, entry.key, entry.resourceVersion, entry.value]);
      if (next.has(identity)) continue;
      next.add(identity);
      if (!this.#reported.has(identity)) fresh.push(entry);
    }
    this.#reported = next;
    return fresh;
  }

  /** How many refusals are remembered (the current ones). */
  get size(): number {
    return this.#reported.size;
  }
}

/** The longest part of a refused value that is printed; hostile values can be megabytes. */
export const MAX_LOGGED_VALUE_LENGTH = 256;

/**
 * A value as a JSON string literal in which every character outside printable ASCII is a
 * `\uXXXX` escape: line breaks, ANSI escapes, DEL, C1 controls, bidirectional overrides and
 * invisible characters are all visible, and none can forge a log line or recolour a terminal.
 * Values longer than `maxLength` are cut, and the cut is said.
 *
 * @example
 * ```ts
 * import { formatLoggedValue } from "./rejection_log.ts";
 *
 * formatLoggedValue("evil.com\n}"); // '"evil.com\\n}"': quoted, the line break written as \n
 * formatLoggedValue("bücher.example"); // '"b\\u00fccher.example"'
 * ```
 */
export function formatLoggedValue(value: string, maxLength: number = MAX_LOGGED_VALUE_LENGTH): string {
  const cut = value.length > maxLength;
  const shown = cut ? value.slice(0, maxLength) : value;
  const escaped = JSON.stringify(shown).replace(
    /[^\u0020-\u007e]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  return cut ? `${escaped} (cut, ${value.length - maxLength} more characters)` : escaped;
}

/**
 * A refused value as log fields: `value` raw (the log format escapes what could forge a line or
 * recolour a terminal, so it is never quoted here) and cut to `MAX_LOGGED_VALUE_LENGTH`
 * characters, with `valueCutCharacters` saying how many were left out.
 *
 * @example
 * ```ts
 * import { loggedValueFields } from "./rejection_log.ts";
 *
 * loggedValueFields("Not_Valid!"); // { value: "Not_Valid!" }
 * loggedValueFields("x".repeat(300)).valueCutCharacters; // 44
 * ```
 */
export function loggedValueFields(value: string): { value: string; valueCutCharacters?: number } {
  if (value.length <= MAX_LOGGED_VALUE_LENGTH) return { value };
  return {
    value: value.slice(0, MAX_LOGGED_VALUE_LENGTH),
    valueCutCharacters: value.length - MAX_LOGGED_VALUE_LENGTH,
  };
}

/**
 * One refusal as a log message, the object key and the value escaped.
 *
 * @example
 * ```ts
 * import { describeRejection } from "./rejection_log.ts";
 *
 * describeRejection({
 *   source: "Ingress",
 *   key: "shop/web",
 *   resourceVersion: "42",
 *   value: "a.com#",
 *   reason: "forbidden-character",
 *   text: "contains '#', which has a meaning in DNS configuration",
 * });
 * // `Ingress shop/web (resourceVersion 42): hostname "a.com#" refused: contains '#', …`
 * ```
 */
export function describeRejection(entry: RejectedHostname): string {
  return `${entry.source} ${printableKey(entry.key)} (resourceVersion ${
    printableKey(entry.resourceVersion)
  }): ` +
    `hostname ${formatLoggedValue(entry.value)} refused: ${entry.text}`;
}

/** Object keys are validated by the API server but may come from anywhere: escape if unusual. */
function printableKey(text: string): string {
  return /^[\u0021-\u007e]+$/.test(text) && !/["\\]/.test(text) ? text : formatLoggedValue(text);
}
