/**
 * `metadata.managedFields`: who owns which field of an object, read from and written to the
 * object as the real server does, and the ownership an ordinary write (create, update, merge
 * patch: operation `Update`) records. Server-side apply (operation `Apply`) is `apply.ts`.
 *
 * One entry per manager, operation and subresource (an `Apply` and an `Update` by the same
 * manager are two entries): `{manager, operation, apiVersion, time, fieldsType: "FieldsV1",
 * fieldsV1, subresource?}`, sorted as the real server sorts them (operation, then time, then
 * manager). An `Update` takes the fields it added or changed away from every other manager and
 * adds them to its own entry; fields it removed leave every entry; an entry left with no field
 * is dropped, and a write that changes nothing records nothing. As the real server does, a write
 * whose body carries non-empty `managedFields` starts from those (that is how a client resets
 * them); otherwise from the stored object's.
 *
 * The fields themselves, and what is approximated about them, are `field_set.ts`.
 *
 * Pure: no I/O. The time is passed in.
 *
 * @module
 */

import { compareObjects, FieldSet, fromFieldsV1, toFieldsV1 } from "./field_set.ts";
import { isJsonMap, type Json, type JsonMap } from "./json.ts";

/** The longest field manager name the real server accepts (and the most of a user agent it keeps). */
export const FIELD_MANAGER_MAX_LENGTH = 128;

/** One `managedFields` entry, its fields decoded. */
export interface ManagedEntry {
  readonly manager: string;
  readonly operation: "Apply" | "Update";
  readonly apiVersion: string;
  /** RFC 3339 to the second; absent on entries a client wrote without one. */
  readonly time?: string;
  /** `"status"`, `"scale"`; absent for the main resource. */
  readonly subresource?: string;
  readonly fields: FieldSet;
}

/** Who is writing: the request's `fieldManager`, or the start of its user agent. */
export interface Writer {
  readonly manager: string;
  readonly subresource?: string;
}

/** The identity of an entry: manager, operation and subresource (the API version is one per kind here). */
export function entryKey(
  entry: { readonly manager: string; readonly operation: string; readonly subresource?: string | undefined },
): string {
  return JSON.stringify([entry.manager, entry.operation, entry.subresource ?? ""]);
}

/**
 * An entry's manager as conflicts name it: `"name"` for an applier, `"name" using v1` for an
 * updater, with `with subresource "status"` after the name when it wrote a subresource.
 */
export function managerLabel(
  entry: Pick<ManagedEntry, "manager" | "operation" | "apiVersion" | "subresource">,
): string {
  const name = entry.subresource === undefined
    ? JSON.stringify(entry.manager)
    : `${JSON.stringify(entry.manager)} with subresource ${JSON.stringify(entry.subresource)}`;
  return entry.operation === "Update" ? `${name} using ${entry.apiVersion}` : name;
}

/**
 * The manager of a write that names none: the user agent up to its first `/`, printable
 * characters only, at most {@linkcode FIELD_MANAGER_MAX_LENGTH} bytes (as the real server derives it).
 *
 * @example
 * ```ts
 * managerFromUserAgent("ouroboros/0.1.0 (linux)"); // "ouroboros"
 * ```
 */
export function managerFromUserAgent(userAgent: string): string {
  let manager = "";
  let bytes = 0;
  for (const char of userAgent.split("/")[0]!) {
    if (/\p{C}/u.test(char)) continue;
    const size = new TextEncoder().encode(char).length;
    if (bytes + size > FIELD_MANAGER_MAX_LENGTH) break;
    manager += char;
    bytes += size;
  }
  return manager;
}

/** The entries of `managedFields`; malformed entries are skipped. */
export function decodeManagedFields(value: Json | undefined): ManagedEntry[] {
  if (!Array.isArray(value)) return [];
  const entries: ManagedEntry[] = [];
  for (const item of value) {
    if (!isJsonMap(item) || typeof item.manager !== "string") continue;
    if (item.operation !== "Apply" && item.operation !== "Update") continue;
    entries.push({
      manager: item.manager,
      operation: item.operation,
      apiVersion: typeof item.apiVersion === "string" ? item.apiVersion : "",
      ...(typeof item.time === "string" ? { time: item.time } : {}),
      ...(typeof item.subresource === "string" && item.subresource !== ""
        ? { subresource: item.subresource }
        : {}),
      fields: fromFieldsV1(item.fieldsV1),
    });
  }
  return entries;
}

function seconds(entry: ManagedEntry): number {
  return entry.time === undefined ? 0 : Math.floor(Date.parse(entry.time) / 1000);
}

function order(a: ManagedEntry, b: ManagedEntry): number {
  const pairs: [string | number, string | number][] = [
    [a.operation, b.operation],
    [seconds(a), seconds(b)],
    [a.manager, b.manager],
    [a.apiVersion, b.apiVersion],
    [a.subresource ?? "", b.subresource ?? ""],
  ];
  for (const [x, y] of pairs) if (x !== y) return x < y ? -1 : 1;
  return 0;
}

/** Entries as `managedFields`, sorted; empty entries dropped; `undefined` when none is left. */
export function encodeManagedFields(entries: readonly ManagedEntry[]): Json[] | undefined {
  const kept = entries.filter((entry) => entry.fields.size > 0).sort(order);
  if (kept.length === 0) return undefined;
  return kept.map((entry) => ({
    manager: entry.manager,
    operation: entry.operation,
    apiVersion: entry.apiVersion,
    ...(entry.time === undefined ? {} : { time: entry.time }),
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(entry.fields),
    ...(entry.subresource === undefined ? {} : { subresource: entry.subresource }),
  }));
}

function managedFieldsOf(object: JsonMap | undefined): Json | undefined {
  return isJsonMap(object?.metadata) ? object.metadata.managedFields : undefined;
}

/**
 * The `managedFields` an ordinary write stores: starting from those `after` brought when it
 * brought some (else those of `before`), `writer` gains what it added or changed, which every
 * other manager loses, and what it removed leaves every entry. `before` is absent for a create.
 * A write that changes no field leaves the starting `managedFields` exactly as they were;
 * `undefined` means none.
 *
 * @example
 * ```ts
 * updatedManagedFields(undefined, { data: { k: "v" } }, {
 *   writer: { manager: "kubectl-create" },
 *   apiVersion: "v1",
 *   time: "2026-01-02T03:04:05Z",
 * });
 * // [{ manager: "kubectl-create", operation: "Update", apiVersion: "v1", time: "2026-01-02T03:04:05Z",
 * //    fieldsType: "FieldsV1", fieldsV1: { "f:data": { ".": {}, "f:k": {} } } }]
 * ```
 */
export function updatedManagedFields(
  before: JsonMap | undefined,
  after: JsonMap,
  options: { readonly writer: Writer; readonly apiVersion: string; readonly time: string },
): Json[] | undefined {
  const brought = managedFieldsOf(after);
  const start = Array.isArray(brought) && brought.length > 0 ? brought : managedFieldsOf(before);
  const { added, modified, removed } = compareObjects(before ?? {}, after);
  const taken = added.union(modified);
  if (taken.size === 0 && removed.size === 0) return Array.isArray(start) ? start : undefined;
  const { manager, subresource } = options.writer;
  const own = entryKey({ manager, operation: "Update", subresource });
  const entries = decodeManagedFields(start).map((entry) => ({
    ...entry,
    fields: entryKey(entry) === own
      ? entry.fields.difference(removed)
      : entry.fields.difference(taken).difference(removed),
  }));
  if (taken.size === 0) return encodeManagedFields(entries);
  const previous = entries.find((entry) => entryKey(entry) === own)?.fields ?? FieldSet.EMPTY;
  return encodeManagedFields([...entries.filter((entry) => entryKey(entry) !== own), {
    manager,
    operation: "Update",
    apiVersion: options.apiVersion,
    time: options.time,
    ...(subresource === undefined ? {} : { subresource }),
    fields: previous.union(taken),
  }]);
}
