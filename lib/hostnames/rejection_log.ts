/**
 * Which refused hostnames to WARN about, and how to print them. The desired set is recomputed
 * on every reconcile, so {@linkcode RejectionLog} warns once per (kind, object, resourceVersion,
 * value), remembering only current refusals: memory stays bounded by what the cluster holds.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { RejectedHostname, SkippedWildcard } from "./desired_set.ts";

/** Remembers the refusals already reported. */
export class RejectionLog {
  #reported = new Set<string>();

  /**
   * Returns the refusals (or skipped wildcards) of `current` not reported before. Those absent
   * from `current` are forgotten, so always pass one reconcile's complete list.
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
 * A value as a JSON string literal with everything outside printable ASCII `\uXXXX`-escaped, so
 * it cannot forge a log line or recolour a terminal; cut after `maxLength`, saying so.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { formatLoggedValue } from "./rejection_log.ts";
 *
 * assert.equal(formatLoggedValue("evil.com\n}"), '"evil.com\\n}"'); // quoted, the line break written as \n
 * assert.equal(formatLoggedValue("bücher.example"), '"b\\u00fccher.example"');
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

/** A refused value as log fields, raw (the log format escapes it) and cut, with the cut count. */
export function loggedValueFields(value: string): { value: string; valueCutCharacters?: number } {
  if (value.length <= MAX_LOGGED_VALUE_LENGTH) return { value };
  return {
    value: value.slice(0, MAX_LOGGED_VALUE_LENGTH),
    valueCutCharacters: value.length - MAX_LOGGED_VALUE_LENGTH,
  };
}

/** One refusal as a log message, the object key and the value escaped. */
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
