/**
 * One way to turn anything thrown into text for a log line, an outcome or a status body.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** The message of an `Error`, or the value as a string for anything else that was thrown. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The log fields for one thrown value: see {@linkcode errorFields}. */
export interface ErrorFields {
  readonly [field: string]: string;
}

/**
 * The log fields for a thrown value: `key` (the message), `keyName` and, when there is one,
 * `keyCode`, so a log line never holds an error object and pipelines can filter on name or code.
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
