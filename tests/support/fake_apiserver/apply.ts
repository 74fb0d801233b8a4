/**
 * Server-side apply (`PATCH` with `application/apply-patch+yaml`): merging an applier's
 * configuration into the live object with real field ownership, as `kubectl apply --server-side`
 * and controllers that apply see it.
 *
 * What happens, as on the real server:
 * - The configuration (YAML or JSON) must name the kind's `apiVersion` (400 "Incorrect version
 *   specified in apply patch…") and carry no `managedFields` (400 "metadata.managedFields must
 *   be nil"); the request must name a `fieldManager` (422 `PatchOptions.meta.k8s.io "" is
 *   invalid: fieldManager: Required value: is required for apply patch`).
 * - The configuration is merged into the live object (maps key by key, scalars and lists
 *   replaced); an object that does not exist yet is created from it (201).
 * - The applier's `Apply` entry becomes exactly the configuration's fields. Fields it applied
 *   before and leaves out now are removed from the object, unless another manager owns them.
 * - A field the configuration changes (a different value, or a field the object lacked) that
 *   another manager owns is a conflict: 409 `Conflict` with the real server's message
 *   (`Apply failed with 1 conflict: conflict with "other" using v1: .data.k`, or for several
 *   `Apply failed with N conflicts: conflicts with "a":` then `- .path` lines, managers sorted)
 *   and one `FieldManagerConflict` cause per field. With `force=true` the applier takes those
 *   fields over instead. A field set to the value it already has is shared, not a conflict.
 * - An apply that changes neither the object nor anyone's fields is no write (same
 *   resourceVersion, no event), which is what makes a repeated apply free.
 * - On a kind with a status subresource, `status` in the configuration is ignored; on `/status`,
 *   only `status` is applied.
 *
 * Approximated, where the real server knows each type's schema:
 * - Lists are atomic (replaced whole, owned as one field: `f:ports: {}`), where the real server
 *   merges `ports`, `ownerReferences`, containers… by key; every nested map is granular, where a
 *   few (`Service.spec.selector`) are atomic. See `field_set.ts`.
 * - A dropped field is removed when no other manager owns it or anything below it; the real
 *   server's rule for a field whose parent another manager owns differs in corner cases.
 * - `null` in a configuration means "no opinion"; there is no defaulting, so nobody owns a
 *   default; the `fieldManager`'s length and characters are not checked.
 * - Apply to `/scale` is not served (415); an apply to `/status` of a missing object is 404.
 *
 * Pure: no I/O. The time is passed in.
 *
 * @module
 */

import { parse as parseYaml } from "yaml";
import {
  compareObjects,
  comparePaths,
  type FieldPath,
  FieldSet,
  leafFields,
  mergeConfiguration,
  pathString,
  withoutFields,
  withoutNulls,
} from "./field_set.ts";
import { isJsonMap, type JsonMap } from "./json.ts";
import { decodeManagedFields, entryKey, type ManagedEntry, managerLabel } from "./managed_fields.ts";
import { badRequest, FakeApiError, statusBody, type StatusCause } from "./status.ts";

/** The content type of server-side apply. */
export const APPLY_PATCH = "application/apply-patch+yaml";

/** Who applies, and how. */
export interface ApplyOptions {
  /** The request's `fieldManager`. */
  readonly manager: string;
  /** `force=true`: take conflicting fields over instead of failing. */
  readonly force: boolean;
  /** The kind's group/version (`v1`, `apps/v1`), recorded in the entry. */
  readonly apiVersion: string;
  /** Now, RFC 3339 to the second, for the entry's `time`. */
  readonly time: string;
  /** What the write may touch: the main resource (`status` ignored when `statusSubresource`) or `/status`. */
  readonly subresource?: "status";
  readonly statusSubresource: boolean;
}

/** The object after an apply (without `managedFields`) and its new entries. */
export interface Applied {
  readonly object: JsonMap;
  readonly entries: ManagedEntry[];
}

/**
 * Reads an apply request's body (YAML, of which JSON is a part) and checks it is a configuration
 * of `apiVersion`. Throws the real server's 400s.
 */
export function parseConfiguration(body: string, apiVersion: string): JsonMap {
  let parsed: unknown;
  try {
    parsed = parseYaml(body);
  } catch (error) {
    throw badRequest(`error decoding YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isJsonMap(parsed)) throw badRequest("error decoding YAML: the configuration must be an object");
  if (parsed.apiVersion !== apiVersion) {
    throw badRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${
        typeof parsed.apiVersion === "string" ? parsed.apiVersion : ""
      }, expected: ${apiVersion}`,
    );
  }
  if (isJsonMap(parsed.metadata) && parsed.metadata.managedFields !== undefined) {
    throw badRequest("metadata.managedFields must be nil");
  }
  return parsed;
}

/** The part of a configuration a write may touch. */
function scoped(config: JsonMap, options: ApplyOptions): JsonMap {
  const clean = withoutNulls(config);
  if (options.subresource === "status") {
    const { apiVersion, kind, metadata, status } = clean;
    return {
      ...(apiVersion === undefined ? {} : { apiVersion }),
      ...(kind === undefined ? {} : { kind }),
      ...(isJsonMap(metadata) && metadata.name !== undefined ? { metadata: { name: metadata.name } } : {}),
      ...(status === undefined ? {} : { status }),
    };
  }
  if (!options.statusSubresource) return clean;
  const { status: _ignored, ...rest } = clean;
  return rest;
}

/** Whether `path` is `other` or one of its parents. */
function isPrefix(path: FieldPath, other: FieldPath): boolean {
  return path.length <= other.length && path.every((key, i) => other[i] === key);
}

/**
 * Applies `config` to `live` (the stored object, or for a create just its identity) as
 * `options.manager`. Throws a 409 {@linkcode FakeApiError} on conflicts unless `force`.
 */
export function applyConfiguration(live: JsonMap, config: JsonMap, options: ApplyOptions): Applied {
  const applied = scoped(config, options);
  const entries = decodeManagedFields(isJsonMap(live.metadata) ? live.metadata.managedFields : undefined);
  const key = entryKey({ manager: options.manager, operation: "Apply", subresource: options.subresource });
  const previous = entries.find((entry) => entryKey(entry) === key);
  const others = entries.filter((entry) => entryKey(entry) !== key);
  const fields = leafFields(applied);
  const owned = others.reduce((all, entry) => all.union(entry.fields), fields).paths();
  const dropped = (previous?.fields ?? FieldSet.EMPTY).paths().filter((path) =>
    !owned.some((other) => isPrefix(path, other))
  );
  const object = withoutFields(mergeConfiguration(live, applied), dropped);
  if (isJsonMap(object.metadata)) delete object.metadata.managedFields;
  const { added, modified, removed } = compareObjects(live, object);
  const changed = added.union(modified);
  const conflicts = others
    .map((entry) => ({ entry, fields: entry.fields.intersection(changed) }))
    .filter((conflict) => conflict.fields.size > 0);
  if (conflicts.length > 0 && !options.force) throw applyConflict(conflicts);
  const kept = others.map((entry) => ({
    ...entry,
    fields: entry.fields.difference(changed).difference(removed),
  }));
  const unchanged = changed.size === 0 && removed.size === 0 && previous?.fields.equals(fields) === true;
  const mine: ManagedEntry = {
    manager: options.manager,
    operation: "Apply",
    apiVersion: options.apiVersion,
    time: unchanged && previous.time !== undefined ? previous.time : options.time,
    ...(options.subresource === undefined ? {} : { subresource: options.subresource }),
    fields,
  };
  return { object, entries: [...kept, mine] };
}

/** The identity the real server sorts conflicting managers by (its JSON manager identifier). */
function identifier(entry: ManagedEntry): string {
  return JSON.stringify({
    manager: entry.manager,
    operation: entry.operation,
    ...(entry.operation === "Update" ? { apiVersion: entry.apiVersion } : {}),
    ...(entry.subresource === undefined ? {} : { subresource: entry.subresource }),
  });
}

/** The 409 for conflicts, worded and detailed as the real server's. */
export function applyConflict(
  conflicts: readonly { readonly entry: ManagedEntry; readonly fields: FieldSet }[],
): FakeApiError {
  const sorted = [...conflicts].sort((a, b) => identifier(a.entry) < identifier(b.entry) ? -1 : 1);
  const lines = sorted.map(({ entry, fields }) => ({
    label: managerLabel(entry),
    paths: fields.paths().sort(comparePaths).map(pathString),
  }));
  const count = lines.reduce((sum, line) => sum + line.paths.length, 0);
  const causes: StatusCause[] = lines.flatMap(({ label, paths }) =>
    paths.map((field) => ({ reason: "FieldManagerConflict", message: `conflict with ${label}`, field }))
  );
  const message = count === 1
    ? `Apply failed with 1 conflict: conflict with ${lines[0]!.label}: ${lines[0]!.paths[0]}`
    : `Apply failed with ${count} conflicts: ` +
      lines.map(({ label, paths }) =>
        [`conflicts with ${label}:`, ...paths.map((path) => `- ${path}`)].join("\n")
      )
        .join("\n");
  return new FakeApiError(statusBody(409, "Conflict", message, { causes }));
}
