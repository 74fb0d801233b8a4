/**
 * Field paths and sets of them, the vocabulary of field ownership (`managed_fields.ts`,
 * `apply.ts`): which fields an object has, which changed between two versions, how a set is
 * written as `fieldsV1` (`{"f:spec":{"f:type":{}}}`) and read back, and how a path is printed in
 * a conflict (`.spec.type`).
 *
 * Decisions, where the real server (structured-merge-diff with each type's schema) knows more:
 * - Lists are atomic: a list is one leaf, replaced whole, never merged by key or indexed
 *   (`f:ports: {}` where the real server writes `f:ports: {k:{"port":80,…}: …}`). Reading a
 *   `fieldsV1` that has `k:`, `v:` or `i:` entries therefore collapses them into the list.
 * - Every map below the top level is granular (its keys are separate fields); the real server
 *   treats a few (`Service.spec.selector`) as atomic. The top-level `spec` and `status` are
 *   structs that always exist, so they are never fields themselves (as for built-in kinds; for a
 *   custom resource the real server would also list `.spec` itself).
 * - `null` and an empty map are the same as absent (Go's `omitempty`).
 * - The server's own metadata (`name`, `namespace`, `uid`, `resourceVersion`, `generation`,
 *   `creationTimestamp`, `selfLink`, `managedFields`), `apiVersion` and `kind` are never fields,
 *   as the real server strips them.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { isJsonMap, type Json, jsonEqual, type JsonMap } from "./json.ts";

/** A field: the keys from the object's root. Lists are leaves, so a path never indexes into one. */
export type FieldPath = readonly string[];

const STRIPPED_METADATA = new Set([
  "name",
  "namespace",
  "uid",
  "resourceVersion",
  "generation",
  "creationTimestamp",
  "selfLink",
  "clusterName",
  "managedFields",
]);

/** Orders paths key by key, a parent before its children (the order conflicts are listed in). */
export function comparePaths(a: FieldPath, b: FieldPath): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return a.length - b.length;
}

/**
 * A path as the real server prints it in a conflict: each key after a dot.
 *
 * @example
 * ```ts
 * pathString(["metadata", "labels", "app.kubernetes.io/name"]); // ".metadata.labels.app.kubernetes.io/name"
 * ```
 */
export function pathString(path: FieldPath): string {
  return path.map((key) => `.${key}`).join("");
}

/** An immutable set of field paths. */
export class FieldSet {
  readonly #paths: ReadonlyMap<string, FieldPath>;

  private constructor(paths: ReadonlyMap<string, FieldPath>) {
    this.#paths = paths;
  }

  /** The set of `paths`. */
  static of(paths: Iterable<FieldPath>): FieldSet {
    const map = new Map<string, FieldPath>();
    for (const path of paths) map.set(JSON.stringify(path), path);
    return new FieldSet(map);
  }

  /** The empty set. */
  static readonly EMPTY: FieldSet = FieldSet.of([]);

  /** How many paths. */
  get size(): number {
    return this.#paths.size;
  }

  /** Whether `path` is a member. */
  has(path: FieldPath): boolean {
    return this.#paths.has(JSON.stringify(path));
  }

  /** The members, sorted by {@linkcode comparePaths}. */
  paths(): FieldPath[] {
    return [...this.#paths.values()].sort(comparePaths);
  }

  /** Members of either set. */
  union(other: FieldSet): FieldSet {
    return FieldSet.of([...this.#paths.values(), ...other.paths()]);
  }

  /** Members of this set that are not in `other`. */
  difference(other: FieldSet): FieldSet {
    return FieldSet.of([...this.#paths.values()].filter((path) => !other.has(path)));
  }

  /** Members of both sets. */
  intersection(other: FieldSet): FieldSet {
    return FieldSet.of([...this.#paths.values()].filter((path) => other.has(path)));
  }

  /** Same members. */
  equals(other: FieldSet): boolean {
    return this.size === other.size && this.difference(other).size === 0;
  }
}

/** One field of an object: a map (whose keys are fields too) or a leaf (a scalar or a list). */
interface Field {
  readonly path: FieldPath;
  readonly value: Json;
  readonly map: boolean;
}

/** Whether the value at `path` (a key of its parent) is one the server never tracks. */
function stripped(path: FieldPath): boolean {
  if (path.length === 1) return path[0] === "apiVersion" || path[0] === "kind";
  return path.length === 2 && path[0] === "metadata" && STRIPPED_METADATA.has(path[1]!);
}

/** Whether a map at `path` is a field itself, not only a holder of fields. */
function mapIsField(path: FieldPath): boolean {
  return !(path.length === 1 && (path[0] === "metadata" || path[0] === "spec" || path[0] === "status"));
}

function collect(value: JsonMap, parent: FieldPath, into: Map<string, Field>): boolean {
  let any = false;
  for (const [key, child] of Object.entries(value)) {
    const path = [...parent, key];
    if (child === null || stripped(path)) continue;
    if (isJsonMap(child)) {
      if (!collect(child, path, into)) continue;
      if (mapIsField(path)) into.set(JSON.stringify(path), { path, value: child, map: true });
    } else {
      into.set(JSON.stringify(path), { path, value: child, map: false });
    }
    any = true;
  }
  return any;
}

function fieldsOf(object: JsonMap): Map<string, Field> {
  const fields = new Map<string, Field>();
  collect(object, [], fields);
  return fields;
}

/**
 * The leaves of an applied configuration: what its applier owns (the real server's `ToFieldSet`,
 * which lists maps only through their keys).
 *
 * @example
 * ```ts
 * leafFields({ metadata: { name: "a", labels: { app: "x" } }, data: { k: "v" } }).paths();
 * // [["data", "k"], ["metadata", "labels", "app"]]
 * ```
 */
export function leafFields(object: JsonMap): FieldSet {
  return FieldSet.of([...fieldsOf(object).values()].filter((field) => !field.map).map((field) => field.path));
}

/** What changed from one version of an object to the next, field by field. */
export interface Comparison {
  /** Fields only `after` has, maps included with their keys. */
  readonly added: FieldSet;
  /** Leaves whose value changed, and fields that turned from a map into a leaf or back. */
  readonly modified: FieldSet;
  /** Fields only `before` has. */
  readonly removed: FieldSet;
}

/**
 * Compares two versions of an object.
 *
 * @example
 * ```ts
 * const { added, modified, removed } = compareObjects({ data: { a: "1", b: "2" } }, { data: { a: "2" }, x: 1 });
 * // added: .x; modified: .data.a; removed: .data.b
 * ```
 */
export function compareObjects(before: JsonMap, after: JsonMap): Comparison {
  const old = fieldsOf(before);
  const next = fieldsOf(after);
  const added: FieldPath[] = [];
  const modified: FieldPath[] = [];
  const removed: FieldPath[] = [];
  for (const [key, field] of next) {
    const was = old.get(key);
    if (was === undefined) added.push(field.path);
    else if (was.map !== field.map || (!field.map && !jsonEqual(was.value, field.value))) {
      modified.push(field.path);
    }
  }
  for (const [key, field] of old) if (!next.has(key)) removed.push(field.path);
  return { added: FieldSet.of(added), modified: FieldSet.of(modified), removed: FieldSet.of(removed) };
}

/**
 * `object` without the fields in `paths`; a map left empty by a removal goes too (as Go's
 * `omitempty` drops it), except `metadata`. The input is not modified.
 */
export function withoutFields(object: JsonMap, paths: readonly FieldPath[]): JsonMap {
  const result = structuredClone(object);
  for (const path of paths) {
    const parents: JsonMap[] = [result];
    for (const key of path.slice(0, -1)) {
      const next = parents.at(-1)![key];
      if (!isJsonMap(next)) break;
      parents.push(next);
    }
    if (parents.length !== path.length) continue;
    delete parents.at(-1)![path.at(-1)!];
    for (let depth = parents.length - 1; depth > 0; depth--) {
      if (Object.keys(parents[depth]!).length > 0 || (depth === 1 && path[0] === "metadata")) break;
      delete parents[depth - 1]![path[depth - 1]!];
    }
  }
  return result;
}

/**
 * `config` merged onto `live` as apply merges: maps key by key, everything else (scalars, lists)
 * replaced by the configuration's value. Neither input is modified.
 */
export function mergeConfiguration(live: JsonMap, config: JsonMap): JsonMap {
  const result: JsonMap = { ...live };
  for (const [key, value] of Object.entries(config)) {
    const current = result[key];
    result[key] = isJsonMap(value) && isJsonMap(current) ? mergeConfiguration(current, value) : value;
  }
  return result;
}

/** `config` without its `null` values (an apply configuration's `null` is read as "no opinion"). */
export function withoutNulls(config: JsonMap): JsonMap {
  const result: JsonMap = {};
  for (const [key, value] of Object.entries(config)) {
    if (value === null) continue;
    result[key] = isJsonMap(value) ? withoutNulls(value) : value;
  }
  return result;
}

interface Tree {
  member: boolean;
  readonly children: Map<string, Tree>;
}

/**
 * A set as `fieldsV1`: `f:<key>` per key, `{}` for a member without children, and `".": {}` for a
 * member that also has children; keys sorted, `.` first, as the real server writes it.
 *
 * @example
 * ```ts
 * toFieldsV1(FieldSet.of([["data"], ["data", "k"]])); // { "f:data": { ".": {}, "f:k": {} } }
 * ```
 */
export function toFieldsV1(set: FieldSet): JsonMap {
  const root: Tree = { member: false, children: new Map() };
  for (const path of set.paths()) {
    let node = root;
    for (const key of path) {
      let child = node.children.get(key);
      if (child === undefined) {
        child = { member: false, children: new Map() };
        node.children.set(key, child);
      }
      node = child;
    }
    node.member = true;
  }
  const encode = (node: Tree): JsonMap => {
    const result: JsonMap = {};
    if (node.member && node.children.size > 0) result["."] = {};
    for (const key of [...node.children.keys()].sort()) result[`f:${key}`] = encode(node.children.get(key)!);
    return result;
  };
  return encode(root);
}

/**
 * Reads `fieldsV1` back into a set. Entries for list items (`k:…`, `v:…`, `i:…`) make the list
 * itself the member, since the fake's lists are atomic; anything else unknown is skipped.
 */
export function fromFieldsV1(fields: Json | undefined): FieldSet {
  const paths: FieldPath[] = [];
  const walk = (node: JsonMap, path: FieldPath): void => {
    const keys = Object.keys(node);
    if (path.length > 0 && (keys.length === 0 || keys.includes("."))) paths.push(path);
    if (path.length > 0 && keys.some((key) => /^[kvi]:/.test(key))) {
      paths.push(path);
      return;
    }
    for (const key of keys) {
      const child = node[key];
      if (key.startsWith("f:") && isJsonMap(child)) walk(child, [...path, key.slice(2)]);
    }
  };
  if (isJsonMap(fields)) walk(fields, []);
  return FieldSet.of(paths);
}
