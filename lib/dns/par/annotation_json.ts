/**
 * Reads the JSON this server keeps in an annotation. Anyone may edit annotations, so a failure is
 * a reason to report, never an exception.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, type JsonObject } from "../../resources/json.ts";

/**
 * The annotation's text as a JSON object, or why not, worded to follow "its annotation <name>".
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { readAnnotationJson } from "./annotation_json.ts";
 *
 * assert.deepEqual(readAnnotationJson('{"resolver":"10.96.0.53"}'), { resolver: "10.96.0.53" });
 * assert.equal(readAnnotationJson("{"), "is not JSON");
 * ```
 */
export function readAnnotationJson(text: string): JsonObject | string {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return "is not JSON";
  }
  return asObject(raw) ?? "is not a JSON object";
}
