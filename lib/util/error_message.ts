/**
 * One way to turn anything thrown into text for a log line, an outcome or a status body.
 *
 * Pure: no I/O.
 *
 * @module
 */

/**
 * The message of an `Error`, or the value as a string for anything else that was thrown.
 *
 * @example
 * ```ts
 * import { errorMessage } from "./error_message.ts";
 *
 * errorMessage(new Error("connection refused")); // "connection refused"
 * errorMessage("plain text"); // "plain text"
 * ```
 */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
