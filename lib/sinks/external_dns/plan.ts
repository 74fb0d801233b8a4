/**
 * What one reconcile must write: desired records against the owned ones (listed by the
 * ownership selector) and any foreign objects found under the names we want.
 *
 * Rules, in order:
 * 1. **Empty desired set, owned records exist** → guarded: nothing at all is written or pruned.
 *    Losing every hostname at once is far more often a glitch (an informer relist, a class
 *    filter typo, every Ingress deleted by one bad `kubectl apply`) than an intent, and pruning
 *    would take every published name down; uninstalling is the deliberate path.
 * 2. **Hostnames given, none could be built** (no proxy address yet, a headless proxy Service)
 *    → guarded: nothing is pruned, as pruning would again delete everything.
 * 3. Otherwise, per hostname: a name held by a foreign object (missing either ownership label,
 *    or another instance's) refuses that hostname only; two hostnames landing on one name (a
 *    hash collision, which the names make practically impossible) refuse both rather than drop
 *    one silently. Other hostnames proceed: create what is missing, update what differs in
 *    the owned fields (a merge patch of just those), leave equal objects alone.
 * 4. Prune: delete owned objects no hostname wants, except those of hostnames that failed to
 *    build or were refused (their last good records stay until the problem is fixed).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { JsonObject } from "../../resources/json.ts";
import type { ObservedRecord } from "./observed.ts";
import { INSTANCE_LABEL, MANAGED_BY_LABEL, MANAGED_BY_VALUE } from "./ownership.ts";
import { recordNames, type RecordOutput } from "./record_names.ts";
import type { DesiredRecord, HostBuild, OwnedFields } from "./records.ts";

/** A hostname that could not be built. */
export type FailedBuild = Extract<HostBuild, { kind: "failed" }>;

/** Why a built hostname is not written; stable codes, usable as metric labels. */
export type RefusalProblem =
  /** An object without our ownership labels holds the name. */
  | "foreign-object"
  /** Another hostname's record has the same name. */
  | "name-clash"
  /** An object with our labels holds the name but could not be decoded. */
  | "unreadable-object"
  /** The API server refused the object as invalid (422). */
  | "invalid-object";

/** A hostname left alone, and which object name it is about. */
export interface HostRefusal {
  readonly host: string;
  readonly name: string;
  readonly problem: RefusalProblem;
  /** For `foreign-object` held by another ouroboros release: that release's instance. */
  readonly foreignInstance?: string;
  /** For `name-clash`: the other hostname; for `invalid-object`: the server's message. */
  readonly detail?: string;
}

/** An owned object whose owned fields differ, and the merge patch that fixes just those. */
export interface RecordUpdate {
  readonly record: DesiredRecord;
  readonly observed: ObservedRecord;
  readonly patch: JsonObject;
}

/** What the plan needs. */
export interface PlanInput {
  readonly output: RecordOutput;
  /** One entry per requested hostname. */
  readonly builds: readonly HostBuild[];
  /** Objects listed by the ownership selector and re-checked to carry both labels. */
  readonly owned: readonly ObservedRecord[];
  /** Objects found under wanted names that do not carry our ownership labels. */
  readonly foreign?: readonly ObservedRecord[];
  /** Names of objects carrying our labels that could not be decoded: never written, never pruned. */
  readonly unreadable?: readonly string[];
}

/** The plan: a guard that stops everything, or the writes to make. */
export type Plan =
  | { readonly kind: "guarded"; readonly guard: "empty-desired"; readonly owned: number }
  | { readonly kind: "guarded"; readonly guard: "nothing-built"; readonly failed: readonly FailedBuild[] }
  | {
    readonly kind: "apply";
    readonly creates: readonly DesiredRecord[];
    readonly updates: readonly RecordUpdate[];
    readonly deletes: readonly ObservedRecord[];
    /** Owned objects already as desired. */
    readonly unchanged: number;
    readonly refused: readonly HostRefusal[];
    readonly failed: readonly FailedBuild[];
    /** Hostnames whose records will be in place (built and not refused). */
    readonly hosts: number;
    /** Hostnames gaining their first record. */
    readonly added: number;
    /** Hostnames losing their last record. */
    readonly removed: number;
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
 * The JSON merge patch taking `observed`'s owned fields to `desired`'s, or `undefined` when
 * they are equal. Lists (a DNSEndpoint's endpoints) are replaced whole, as merge patch does.
 *
 * @example
 * ```ts
 * updatePatch(
 *   { labels: { a: "1" }, annotations: {}, spec: {} },
 *   { labels: { a: "1", b: "2" }, annotations: {}, spec: { selector: { app: "x" } } },
 * ); // { metadata: { labels: { b: null } }, spec: { selector: null } }
 * ```
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

/** The instance of another ouroboros release holding `observed`, if that is who holds it. */
export function foreignInstance(observed: Pick<ObservedRecord, "labels">): string | undefined {
  return observed.labels[MANAGED_BY_LABEL] === MANAGED_BY_VALUE ? observed.labels[INSTANCE_LABEL] : undefined;
}

const byName = <T extends { readonly name: string }>(a: T, b: T) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Computes the plan; see the module documentation for the rules. */
export function planRecords(input: PlanInput): Plan {
  const { builds, owned } = input;
  if (builds.length === 0) {
    if (owned.length > 0) return { kind: "guarded", guard: "empty-desired", owned: owned.length };
  }
  const failed = builds.filter((build): build is FailedBuild => build.kind === "failed");
  const built = builds.filter((build) => build.kind === "built");
  if (builds.length > 0 && built.length === 0) return { kind: "guarded", guard: "nothing-built", failed };

  const keep = new Set<string>(input.unreadable ?? []);
  for (const build of failed) for (const name of recordNames(build.host, input.output)) keep.add(name);

  const hostsByName = new Map<string, string[]>();
  for (const build of built) {
    for (const record of build.records) {
      hostsByName.set(record.name, [...hostsByName.get(record.name) ?? [], build.host]);
    }
  }
  const ownedByName = new Map(owned.map((record) => [record.name, record]));
  const foreignByName = new Map((input.foreign ?? []).map((record) => [record.name, record]));
  const unreadable = new Set(input.unreadable ?? []);

  const refused: HostRefusal[] = [];
  const creates: DesiredRecord[] = [];
  const updates: RecordUpdate[] = [];
  const wanted = new Set<string>();
  const accepted = new Set<string>();
  let unchanged = 0;
  for (const build of built) {
    const refusal = build.records.map((record): HostRefusal | undefined => {
      const sharing = (hostsByName.get(record.name) ?? []).find((host) => host !== build.host);
      if (sharing !== undefined) {
        return { host: build.host, name: record.name, problem: "name-clash", detail: sharing };
      }
      const foreign = foreignByName.get(record.name);
      if (foreign !== undefined) {
        const instance = foreignInstance(foreign);
        return {
          host: build.host,
          name: record.name,
          problem: "foreign-object",
          ...(instance === undefined ? {} : { foreignInstance: instance }),
        };
      }
      if (unreadable.has(record.name)) {
        return { host: build.host, name: record.name, problem: "unreadable-object" };
      }
      return undefined;
    }).find((found) => found !== undefined);
    if (refusal !== undefined) {
      refused.push(refusal);
      for (const name of recordNames(build.host, input.output)) keep.add(name);
      continue;
    }
    accepted.add(build.host);
    for (const record of build.records) {
      wanted.add(record.name);
      const observed = ownedByName.get(record.name);
      if (observed === undefined) {
        creates.push(record);
        continue;
      }
      const patch = updatePatch(record, observed);
      if (patch === undefined) unchanged++;
      else updates.push({ record, observed, patch });
    }
  }

  const deletes = owned.filter((record) => !wanted.has(record.name) && !keep.has(record.name));
  const requested = new Set(builds.map((build) => build.host));
  const held = new Set(owned.map((record) => record.host).filter((host) => host !== undefined));
  const removedHosts = new Set(
    deletes.filter((record) => record.host === undefined || !requested.has(record.host))
      .map((record) => record.host ?? record.name),
  );
  return {
    kind: "apply",
    creates: creates.sort(byName),
    updates: updates.sort((a, b) => byName(a.record, b.record)),
    deletes: deletes.sort(byName),
    unchanged,
    refused,
    failed,
    hosts: accepted.size,
    added: [...accepted].filter((host) => !held.has(host)).length,
    removed: removedHosts.size,
  };
}
