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

/** The log fields for one thrown value: see {@linkcode errorFields}. */
export interface ErrorFields {
  readonly [field: string]: string;
}

/**
 * The log fields for a thrown value under `key`: `key` is the message as a string, `keyName` the
 * error's name and `keyCode` an OS or library error's string code when it has one, so a log line
 * never holds an error object and a pipeline can filter on the name or code. One helper, so the
 * fatal line in `main.ts` and every other line that carries an error agree.
 *
 * @example
 * ```ts
 * import { errorFields } from "./error_message.ts";
 *
 * const refused = Object.assign(new Error("connection refused"), { name: "ConnectionRefused", code: "ECONNREFUSED" });
 * errorFields(refused);
 * // { error: "connection refused", errorName: "ConnectionRefused", errorCode: "ECONNREFUSED" }
 * errorFields("plain text"); // { error: "plain text", errorName: "string" }
 * errorFields(new TypeError("bad"), "cause"); // { cause: "bad", causeName: "TypeError" }
 * ```
 */
export function errorFields(error: unknown, key: string = "error"): ErrorFields {
  const name = error instanceof Error ? error.name : typeof error;
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return {
    [key]: errorMessage(error),
    [`${key}Name`]: name,
    ...(typeof code === "string" && code !== "" ? { [`${key}Code`]: code } : {}),
  };
}
