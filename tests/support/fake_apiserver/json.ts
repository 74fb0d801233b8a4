/**
 * Plain JSON values as the fake stores them: the type, a structural equality that ignores key
 * order, a guard for objects, and reading a request body that must be one object.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { badRequest } from "./status.ts";

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonMap = { [key: string]: Json };

/** True for a JSON object (not null, not an array). */
export function isJsonMap(value: unknown): value is JsonMap {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Structural equality of two JSON values; object key order does not matter. */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (!isJsonMap(a) || !isJsonMap(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
}

/** A deep copy of a JSON-serialisable value, refusing anything JSON cannot carry. */
export function toJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** A request body that must be one JSON object; anything else is the real server's 400. */
export function parseJsonObject(text: string): JsonMap {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw badRequest(`the body of the request could not be decoded as JSON: ${String(error)}`);
  }
  if (!isJsonMap(parsed)) throw badRequest("the body of the request must be a JSON object");
  return parsed;
}
