/**
 * Helpers for decoding JSON without `any`, which every decoder builds on.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** A decoder's answer: the typed object, or why the raw value was refused. */
export type Decoded<T> = { readonly ok: true; readonly value: T } | {
  readonly ok: false;
  readonly reason: string;
};

/** Decodes one raw JSON value; never throws. */
export type Decoder<T> = (raw: unknown) => Decoded<T>;

/** A plain JSON object. */
export type JsonObject = Readonly<Record<string, unknown>>;

/** The value as a plain object, or `undefined`. */
export function asObject(value: unknown): JsonObject | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as JsonObject
    : undefined;
}

/** A string-to-string map (absent is `{}`), or `undefined` when any value is not a string. */
export function asStringMap(value: unknown): Readonly<Record<string, string>> | undefined {
  if (value === undefined || value === null) return {};
  const object = asObject(value);
  if (object === undefined) return undefined;
  for (const entry of Object.values(object)) if (typeof entry !== "string") return undefined;
  return object as Readonly<Record<string, string>>;
}
