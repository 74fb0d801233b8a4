/**
 * What one writer pass must do: desired objects, grouped by what wants them, against the owned
 * objects and any foreign ones under wanted names. Rules, in order:
 * 1. No group while owned objects exist: guarded, nothing written or pruned; losing every group at
 *    once is far more often a glitch than an intent (uninstalling is the deliberate path).
 * 2. Groups given but none built: guarded, as pruning would again delete everything.
 * 3. A foreign object, a name clash (both groups refused) or an undecodable owned object refuses
 *    that group only; the others create, patch or leave alone.
 * 4. Prune what no group wants, except undecodable names and names a failed or refused group
 *    may hold (its last good objects stay).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Manifest } from "../kube/client.ts";
import type { JsonObject } from "../resources/json.ts";
import type { ObjectMeta } from "../resources/kube_object.ts";
import { type ObjectOwnership, otherInstance } from "./object_ownership.ts";

/** The parts of an object the writer owns, in the form compared with what the cluster holds. */
export interface OwnedFields {
  /** The whole label map: labels set by anyone else are removed. */
  readonly labels: Readonly<Record<string, string>>;
  /** The whole annotation map, likewise. */
  readonly annotations: Readonly<Record<string, string>>;
  /** The spec fields the writer decides; keys absent must be absent (a Service's selector). */
  readonly spec: JsonObject;
}

/** One object that should exist. */
export interface DesiredObject extends OwnedFields {
  readonly name: string;
  /** The whole object to create (owner references included); updates patch only the owned fields. */
  readonly manifest: Manifest;
}

/** One object as the cluster holds it, reduced to what is compared. */
export interface ObservedObject extends OwnedFields {
  readonly name: string;
  readonly uid: string;
  readonly resourceVersion: string;
  /** The group it serves, when the object says (external-dns: the hostname it publishes). */
  readonly group?: string;
}

/** The identity and maps of a decoded object, as an {@linkcode ObservedObject} starts. */
export function observedMeta(
  metadata: ObjectMeta,
): Pick<ObservedObject, "name" | "uid" | "resourceVersion" | "labels" | "annotations"> {
  const { name, uid, resourceVersion, labels, annotations } = metadata;
  return { name, uid, resourceVersion, labels, annotations };
}

/** What wants some objects: a hostname, a kuberture output. */
export interface DesiredGroup<D extends DesiredObject = DesiredObject> {
  /** Its identity, for refusals and counts. */
  readonly key: string;
  /** Every name its objects may have (both families); kept while the group fails or is refused. */
  readonly names: readonly string[];
  /** The objects wanted now; `undefined` when the group could not be built this pass. */
  readonly objects: readonly D[] | undefined;
}

/** The keys of the groups a plan adds and removes (for records, their hostnames). */
export interface GroupNames {
  readonly added: readonly string[];
  readonly removed: readonly string[];
}

/** Why a group is not written (stable codes, metric labels); `invalid-object` is a 422. */
export type ObjectRefusalProblem =
  | "foreign-object"
  | "name-clash"
  | "unreadable-object"
  | "invalid-object";

/** A group left alone, and which object name it is about. */
export interface ObjectRefusal {
  /** The group's key (external-dns: the hostname). */
  readonly group: string;
  readonly name: string;
  readonly problem: ObjectRefusalProblem;
  /** For `foreign-object` held by another release of the same tool: that release's instance. */
  readonly otherInstance?: string;
  /** For `name-clash`: the other group's key; for `invalid-object`: the server's message. */
  readonly detail?: string;
  /** For `foreign-object`: the uid of the object in the way, for an Event on it. */
  readonly uid?: string;
}

/** An owned object whose owned fields differ, and the merge patch that fixes just those. */
export interface ObjectUpdate<O extends ObservedObject = ObservedObject> {
  readonly desired: DesiredObject;
  readonly observed: O;
  readonly patch: JsonObject;
}

/** What the plan needs. */
export interface PlanInput<O extends ObservedObject = ObservedObject> {
  readonly ownership: ObjectOwnership;
  /** One entry per group asked for, built or not. */
  readonly groups: readonly DesiredGroup[];
  /** Objects listed by the ownership selector and re-checked to carry both labels. */
  readonly owned: readonly O[];
  /** Objects found under wanted names that do not carry our ownership labels. */
  readonly foreign?: readonly O[];
  /** Names of objects carrying our labels that could not be decoded: never written, never pruned. */
  readonly unreadable?: readonly string[];
  /**
   * Update every owned object wanted, equal or not (server-side apply: the server decides what
   * changed, and fields dropped from the intent go only by applying it again).
   */
  readonly reapply?: boolean;
  /**
   * The caller means an empty set (an uninstall's cleanup removing everything it owns): the
   * empty-desired guard, which stops a pass that lost every group by accident, does not hold.
   */
  readonly pruneAll?: boolean;
}

/** Why a plan stops everything (see rules 1 and 2 of the module documentation). */
export type PlanGuard =
  | { readonly kind: "guarded"; readonly guard: "empty-desired"; readonly owned: number }
  | { readonly kind: "guarded"; readonly guard: "nothing-built" };

/** The plan: a guard that stops everything, or the writes to make. */
export type OwnedObjectPlan<O extends ObservedObject = ObservedObject> =
  | PlanGuard
  | {
    readonly kind: "apply";
    readonly creates: readonly DesiredObject[];
    readonly updates: readonly ObjectUpdate<O>[];
    readonly deletes: readonly O[];
    readonly unchanged: number;
    readonly refused: readonly ObjectRefusal[];
    /** Groups whose objects will be in place (built and not refused). */
    readonly groups: number;
    /** Groups gaining their first object. */
    readonly added: number;
    /** Groups losing their last object. */
    readonly removed: number;
    /** The keys of the groups counted by `added` and `removed`, sorted (logged, capped). */
    readonly names: GroupNames;
  };

/** Deep equality of JSON values; object key order does not matter, array order does. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, index) => sameJson(item, b[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && sameJson(left[key], right[key]));
}

/** Keys to set to the desired value, and keys the object has that we do not want (`null`). */
function fieldPatch(desired: JsonObject, observed: JsonObject): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(desired)) {
    if (!Object.hasOwn(observed, key) || !sameJson(value, observed[key])) patch[key] = value;
  }
  for (const key of Object.keys(observed)) if (!Object.hasOwn(desired, key)) patch[key] = null;
  return patch;
}

/**
 * The merge patch taking `observed`'s owned fields to `desired`'s (`undefined`: equal); lists
 * are replaced whole.
 */
export function updatePatch(desired: OwnedFields, observed: OwnedFields): JsonObject | undefined {
  const labels = fieldPatch(desired.labels, observed.labels);
  const annotations = fieldPatch(desired.annotations, observed.annotations);
  const spec = fieldPatch(desired.spec, observed.spec);
  const metadata = {
    ...(Object.keys(labels).length === 0 ? {} : { labels }),
    ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
  };
  const patch = {
    ...(Object.keys(metadata).length === 0 ? {} : { metadata }),
    ...(Object.keys(spec).length === 0 ? {} : { spec }),
  };
  return Object.keys(patch).length === 0 ? undefined : patch;
}

/** The refusal of `group` because `holder`, not covered by `ownership`, holds its name. */
export function foreignRefusal(refused: {
  readonly group: string;
  readonly holder: Pick<ObservedObject, "name" | "uid" | "labels">;
  readonly ownership: ObjectOwnership;
}): ObjectRefusal {
  const { group, holder: foreign, ownership } = refused;
  const instance = otherInstance(foreign.labels, ownership);
  return {
    group,
    name: foreign.name,
    problem: "foreign-object",
    ...(instance === undefined ? {} : { otherInstance: instance }),
    ...(foreign.uid === "" ? {} : { uid: foreign.uid }),
  };
}

const byName = (a: { readonly name: string }, b: { readonly name: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

type BuiltGroup = DesiredGroup & { readonly objects: readonly DesiredObject[] };

/** Computes the plan; see the module documentation for the rules. */
export function planOwnedObjects<O extends ObservedObject>(input: PlanInput<O>): OwnedObjectPlan<O> {
  const { groups, owned } = input;
  if (groups.length === 0 && owned.length > 0 && input.pruneAll !== true) {
    return { kind: "guarded", guard: "empty-desired", owned: owned.length };
  }
  const built = groups.filter((group): group is BuiltGroup => group.objects !== undefined);
  if (groups.length > 0 && built.length === 0) return { kind: "guarded", guard: "nothing-built" };

  const keep = new Set<string>(input.unreadable ?? []);
  for (const group of groups) {
    if (group.objects === undefined) { for (const name of group.names) keep.add(name); }
  }

  const groupsByName = new Map<string, string[]>();
  for (const group of built) {
    for (const object of group.objects) {
      groupsByName.set(object.name, [...groupsByName.get(object.name) ?? [], group.key]);
    }
  }
  const ownedByName = new Map(owned.map((object) => [object.name, object]));
  const foreignByName = new Map((input.foreign ?? []).map((object) => [object.name, object]));
  const unreadable = new Set(input.unreadable ?? []);

  const refusalOf = (group: BuiltGroup, object: DesiredObject): ObjectRefusal | undefined => {
    const sharing = (groupsByName.get(object.name) ?? []).find((key) => key !== group.key);
    if (sharing !== undefined) {
      return { group: group.key, name: object.name, problem: "name-clash", detail: sharing };
    }
    const foreign = foreignByName.get(object.name);
    if (foreign !== undefined) {
      return foreignRefusal({ group: group.key, holder: foreign, ownership: input.ownership });
    }
    if (unreadable.has(object.name)) {
      return { group: group.key, name: object.name, problem: "unreadable-object" };
    }
    return undefined;
  };

  const refused: ObjectRefusal[] = [];
  const creates: DesiredObject[] = [];
  const updates: ObjectUpdate<O>[] = [];
  const wanted = new Set<string>();
  const accepted = new Set<string>();
  let unchanged = 0;
  for (const group of built) {
    const refusal = group.objects.map((object) => refusalOf(group, object)).find((found) =>
      found !== undefined
    );
    if (refusal !== undefined) {
      refused.push(refusal);
      for (const name of group.names) keep.add(name);
      continue;
    }
    accepted.add(group.key);
    for (const object of group.objects) {
      wanted.add(object.name);
      const observed = ownedByName.get(object.name);
      if (observed === undefined) {
        creates.push(object);
        continue;
      }
      const patch = updatePatch(object, observed);
      if (patch === undefined && input.reapply !== true) unchanged++;
      else updates.push({ desired: object, observed, patch: patch ?? {} });
    }
  }

  const deletes = owned.filter((object) => !wanted.has(object.name) && !keep.has(object.name));
  const requested = new Set(groups.map((group) => group.key));
  const held = new Set(owned.map((object) => object.group).filter((key) => key !== undefined));
  const removed = new Set(
    deletes.filter((object) => object.group === undefined || !requested.has(object.group))
      .map((object) => object.group ?? object.name),
  );
  return {
    kind: "apply",
    creates: creates.sort(byName),
    updates: updates.sort((a, b) => byName(a.desired, b.desired)),
    deletes: deletes.sort(byName),
    unchanged,
    refused,
    groups: accepted.size,
    added: [...accepted].filter((key) => !held.has(key)).length,
    removed: removed.size,
    names: { added: [...accepted].filter((key) => !held.has(key)).sort(), removed: [...removed].sort() },
  };
}
