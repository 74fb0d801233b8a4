/**
 * JSON merge patch (RFC 7386): the patch type `application/merge-patch+json` that kubectl's
 * `patch --type=merge` and most controllers send. Objects merge key by key, `null` deletes a key,
 * and anything that is not an object (arrays included) replaces the target wholesale.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { isJsonMap, type Json, type JsonMap } from "./json.ts";

/**
 * Applies `patch` to `target` and returns the result; neither input is modified.
 *
 * @example
 * ```ts
 * mergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } }); // { a: 1, b: { d: 3 } }
 * ```
 */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isJsonMap(patch)) return patch;
  const result: JsonMap = isJsonMap(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value);
  }
  return result;
}

/**
 * Strategic merge patch, approximated: the fake has no per-field merge keys, so it applies the
 * patch as a JSON merge patch after dropping the `$`-prefixed directives (`$patch`,
 * `$retainKeys`, `$setElementOrder/…`, `$deleteFromPrimitiveList/…`). Lists are replaced, not
 * merged by key. Enough for `kubectl apply` of maps and scalars (ConfigMap data, replicas).
 */
export function strategicMergePatch(target: Json | undefined, patch: Json): Json {
  return mergePatch(target, withoutDirectives(patch));
}

function withoutDirectives(patch: Json): Json {
  if (!isJsonMap(patch)) return patch;
  const result: JsonMap = {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith("$")) continue;
    result[key] = withoutDirectives(value);
  }
  return result;
}
