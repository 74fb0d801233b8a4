/**
 * Reading the JSON this server keeps in an annotation (`ouroboros.dev/original-dns`,
 * `ouroboros.dev/par-template`): annotations are plain text anyone may edit, so the text is
 * parsed without trusting it, and a failure is a reason to report, never an exception.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { asObject, type JsonObject } from "../../resources/json.ts";

/**
 * The annotation's text as a JSON object, or why it is not one (`"is not JSON"`,
 * `"is not a JSON object"`), worded to follow "its annotation <name>".
 *
 * @example
 * ```ts
 * import { readAnnotationJson } from "./annotation_json.ts";
 *
 * readAnnotationJson('{"resolver":"10.96.0.53"}'); // { resolver: "10.96.0.53" }
 * readAnnotationJson("{"); // "is not JSON"
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
