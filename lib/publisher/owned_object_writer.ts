/**
 * The one writer of the objects external-dns reads: it makes one namespace hold exactly a set of
 * owned objects of one kind. External-dns mode writes its records through it (create and merge
 * patch); kuberture writes its outputs through it (server-side apply as `kuberture`).
 *
 * A pass, one call at a time: list, plan ({@linkcode planOwnedObjects}), read every name about to
 * be created and plan again, then create, update, delete. Writes are conditional; on a 409 the name
 * is re-read and acted on once more; a 422 refuses the group. Merge patches, not PUTs: decoded
 * objects are narrowed, so a PUT would drop fields no caller models. With server-side apply every
 * wanted object is applied each pass and counts as updated only when the server stored a change.
 *
 * Effects: API calls through {@linkcode OwnedObjectApi}; the decisions are the pure plan's.
 *
 * @module
 */

import { isAlreadyExists, isConflict, isInvalid, isNotFound } from "../kube/errors.ts";
import type { InvolvedObject } from "../resources/event.ts";
import type { JsonObject } from "../resources/json.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Lookup, OwnedObjectApi } from "./owned_object_api.ts";
import type { PlannedWrites } from "./owned_object_diff.ts";
import {
  type DesiredGroup,
  type DesiredObject,
  foreignRefusal,
  type GroupNames,
  type ObjectRefusal,
  type ObservedObject,
  type OwnedObjectPlan,
  type PlanGuard,
  planOwnedObjects,
  updatePatch,
} from "./owned_object_plan.ts";

/** One thing a pass did, in order. `group` is the key of the group the object serves, when known. */
export interface WriteAction {
  /** `left-alone`: an object about to be pruned stopped being ours (relabelled) before the delete. */
  readonly kind: "created" | "updated" | "deleted" | "left-alone";
  readonly name: string;
  readonly group?: string;
}

/** A write or look-up that failed and will be retried, and the object (and group) it was for. */
export interface WriteFailure {
  readonly name: string;
  readonly group?: string;
  readonly error: unknown;
}

/** What one pass did. */
export type WriteResult<O extends ObservedObject> =
  /** The listing or a look-up failed; nothing was written. */
  | { readonly kind: "failed"; readonly error: unknown }
  /** A mass-prune guard held: nothing was written or deleted. */
  | PlanGuard
  | {
    readonly kind: "applied";
    /** Groups in place (built and not refused when planned); the rest as in the plan. */
    readonly groups: number;
    readonly added: number;
    readonly removed: number;
    readonly names: GroupNames;
    readonly actions: readonly WriteAction[];
    /** Groups left alone, planned or found while writing. */
    readonly refused: readonly ObjectRefusal[];
    /** Retryable write failures (the pass did everything else it could). */
    readonly errors: readonly WriteFailure[];
    /** The owned objects listed at the start of the pass. */
    readonly listed: readonly O[];
    /** The writes the pass set out to make (some may have failed or been refused meanwhile). */
    readonly writes: PlannedWrites<O>;
  }
  /** A dry run: what the pass would write (`writes`), and what it would refuse; nothing written. */
  | {
    readonly kind: "planned";
    readonly groups: number;
    readonly added: number;
    readonly removed: number;
    readonly names: GroupNames;
    readonly writes: PlannedWrites<O>;
    readonly refused: readonly ObjectRefusal[];
    readonly listed: readonly O[];
  };

/** What {@linkcode OwnedObjectWriter.pruneAll} did. */
export type PruneAllResult =
  /** The listing failed; nothing was deleted. */
  | { readonly kind: "failed"; readonly error: unknown }
  | {
    readonly kind: "pruned";
    /** Names of the objects deleted. */
    readonly deleted: readonly string[];
    /** Groups no longer in place, and their names (the plan's count). */
    readonly removed: number;
    readonly names: GroupNames;
    /** The deletes that failed; the rest were made. */
    readonly failures: readonly WriteFailure[];
  };

/** "2 could not be deleted, such as a: <why>", for a prune's failures (at least one). */
export function notDeletedMessage(failures: readonly WriteFailure[]): string {
  const first = failures[0]!;
  return `${failures.length} could not be deleted, such as ${first.name}: ${errorMessage(first.error)}`;
}

type ApplyPlan<O extends ObservedObject> = Extract<OwnedObjectPlan<O>, { kind: "apply" }>;

interface PassState {
  readonly actions: WriteAction[];
  readonly refused: ObjectRefusal[];
  readonly errors: WriteFailure[];
}

function rethrowIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

function withGroup(group: string | undefined): { readonly group?: string } {
  return group === undefined ? {} : { group };
}

/** Converges a namespace on desired objects. */
export class OwnedObjectWriter<O extends ObservedObject> {
  readonly #api: OwnedObjectApi<O>;
  readonly #dryRun: boolean;

  /** Binds the writer to its calls; with `options.dryRun` it never writes. */
  constructor(api: OwnedObjectApi<O>, options: { readonly dryRun?: boolean } = {}) {
    this.#api = api;
    this.#dryRun = options.dryRun ?? false;
  }

  /** `DNSEndpoint`, `Service`. */
  get kind(): string {
    return this.#api.kind;
  }

  /** The object `name` of this kind and namespace, for an Event; `uid` empty when unknown. */
  reference(name: string, uid = ""): InvolvedObject {
    return {
      apiVersion: this.#api.apiVersion,
      kind: this.#api.kind,
      namespace: this.#api.namespace,
      name,
      uid,
    };
  }

  /** One pass over `groups`; it never logs. Rejects only when `signal` aborts. */
  async write(
    groups: readonly DesiredGroup[],
    signal: AbortSignal,
    options: { readonly pruneAll?: boolean } = {},
  ): Promise<WriteResult<O>> {
    signal.throwIfAborted();
    const ownership = this.#api.ownership;
    let listed: readonly O[];
    let plan: OwnedObjectPlan<O>;
    try {
      const listing = await this.#api.list(signal);
      listed = listing.owned;
      plan = planOwnedObjects({
        ownership,
        groups,
        owned: listing.owned,
        unreadable: listing.unreadable,
        reapply: this.#api.applies,
        ...(options.pruneAll === true ? { pruneAll: true } : {}),
      });
      if (plan.kind === "apply" && plan.creates.length > 0) {
        plan = await this.#replanWithLookups(plan, groups, listing, signal);
      }
    } catch (error) {
      rethrowIfAborted(signal);
      return { kind: "failed", error };
    }
    if (plan.kind === "guarded") return plan;
    const { groups: groupCount, added, removed, names, creates, updates, deletes, refused } = plan;
    const writes = { creates, updates, deletes };
    if (this.#dryRun) {
      return { kind: "planned", groups: groupCount, added, removed, names, writes, refused, listed };
    }

    const state: PassState = { actions: [], refused: [...plan.refused], errors: [] };
    const groupOf = new Map<string, string>();
    for (const group of groups) for (const object of group.objects ?? []) groupOf.set(object.name, group.key);
    const keyOf = (desired: DesiredObject) => groupOf.get(desired.name) ?? desired.name;
    for (const desired of plan.creates) await this.#create(desired, keyOf(desired), state, signal);
    for (const { desired, observed, patch } of plan.updates) {
      await this.#update({ desired, group: keyOf(desired), observed, patch }, state, signal, true);
    }
    for (const observed of plan.deletes) await this.#delete(observed, state, signal, true);
    return {
      kind: "applied",
      groups: plan.groups,
      added: plan.added,
      removed: plan.removed,
      names: plan.names,
      actions: state.actions,
      refused: state.refused,
      errors: state.errors,
      listed,
      writes,
    };
  }

  /** Reads every name about to be created; plans again if any is taken. Rejects on a failed read. */
  /**
   * Deletes every object the ownership covers (an uninstall's cleanup), past the empty-desired
   * guard that stops an ordinary pass from doing so.
   */
  async pruneAll(signal: AbortSignal): Promise<PruneAllResult> {
    const result = await this.write([], signal, { pruneAll: true });
    // With no group asked for and pruneAll, no guard holds: only the listing can fail.
    if (result.kind === "failed" || result.kind === "guarded") {
      return {
        kind: "failed",
        error: result.kind === "failed" ? result.error : new Error("a prune guard held"),
      };
    }
    const applied = result.kind === "applied";
    return {
      kind: "pruned",
      deleted: applied
        ? result.actions.filter((action) => action.kind === "deleted").map((action) => action.name)
        : [],
      removed: result.removed,
      names: result.names,
      failures: applied ? result.errors : [],
    };
  }

  async #replanWithLookups(
    plan: ApplyPlan<O>,
    groups: readonly DesiredGroup[],
    listing: { readonly owned: readonly O[]; readonly unreadable: readonly string[] },
    signal: AbortSignal,
  ): Promise<OwnedObjectPlan<O>> {
    const owned: O[] = [];
    const foreign: O[] = [];
    const unreadable: string[] = [];
    for (const desired of plan.creates) {
      const found = await this.#api.lookup(desired.name, signal);
      if (found.kind === "owned") owned.push(found.object);
      else if (found.kind === "foreign") foreign.push(found.object);
      else if (found.kind === "unreadable") unreadable.push(desired.name);
    }
    if (owned.length + foreign.length + unreadable.length === 0) return plan;
    return planOwnedObjects({
      ownership: this.#api.ownership,
      groups,
      owned: [...listing.owned, ...owned],
      foreign,
      unreadable: [...listing.unreadable, ...unreadable],
      reapply: this.#api.applies,
    });
  }

  /** A lookup whose failure is a retryable error of the pass (`undefined`), not a rejection. */
  async #lookupOrRecord(
    target: { readonly name: string; readonly group?: string },
    state: PassState,
    signal: AbortSignal,
  ): Promise<Lookup<O> | undefined> {
    try {
      return await this.#api.lookup(target.name, signal);
    } catch (error) {
      rethrowIfAborted(signal);
      state.errors.push({ ...target, error });
      return undefined;
    }
  }

  #refuseInvalid(desired: DesiredObject, group: string, error: unknown, state: PassState): void {
    state.refused.push({
      group,
      name: desired.name,
      problem: "invalid-object",
      detail: errorMessage(error),
    });
  }

  async #create(
    desired: DesiredObject,
    group: string,
    state: PassState,
    signal: AbortSignal,
  ): Promise<void> {
    try {
      await this.#api.create(desired.manifest, signal);
      state.actions.push({ kind: "created", name: desired.name, group });
    } catch (error) {
      rethrowIfAborted(signal);
      if (isInvalid(error)) return this.#refuseInvalid(desired, group, error, state);
      if (!isAlreadyExists(error)) {
        state.errors.push({ name: desired.name, group, error });
        return;
      }
      // Created by someone since we looked: ours (another replica) is updated, anything else refused.
      await this.#afterRace(desired, group, state, signal, "the name was taken while creating it");
    }
  }

  /** Re-reads a name after a lost race and acts on what holds it now. */
  async #afterRace(
    desired: DesiredObject,
    group: string,
    state: PassState,
    signal: AbortSignal,
    race: string,
  ): Promise<void> {
    const found = await this.#lookupOrRecord({ name: desired.name, group }, state, signal);
    if (found === undefined) return;
    switch (found.kind) {
      case "absent": {
        const error = new Error(`${this.#api.kind} ${desired.name}: ${race}, then it disappeared`);
        state.errors.push({ name: desired.name, group, error });
        return;
      }
      case "foreign":
        state.refused.push(foreignRefusal({ group, holder: found.object, ownership: this.#api.ownership }));
        return;
      case "unreadable":
        state.refused.push({ group, name: desired.name, problem: "unreadable-object" });
        return;
      case "owned": {
        // With server-side apply the whole intent goes again, whatever the comparison says.
        const patch = updatePatch(desired, found.object) ?? (this.#api.applies ? {} : undefined);
        if (patch !== undefined) {
          await this.#update({ desired, group, observed: found.object, patch }, state, signal, false);
        }
        return;
      }
    }
  }

  async #update(
    update: {
      readonly desired: DesiredObject;
      readonly group: string;
      readonly observed: O;
      readonly patch: JsonObject;
    },
    state: PassState,
    signal: AbortSignal,
    retry: boolean,
  ): Promise<void> {
    const { desired, group } = update;
    try {
      const changed = await this.#api.update(desired, update.observed, update.patch, signal);
      if (changed) state.actions.push({ kind: "updated", name: desired.name, group });
    } catch (error) {
      rethrowIfAborted(signal);
      if (isInvalid(error)) return this.#refuseInvalid(desired, group, error, state);
      if (isNotFound(error)) {
        if (retry) await this.#create(desired, group, state, signal);
        else state.errors.push({ name: desired.name, group, error });
        return;
      }
      if (!isConflict(error) || !retry) {
        state.errors.push({ name: desired.name, group, error });
        return;
      }
      await this.#afterRace(desired, group, state, signal, "it changed while updating it");
    }
  }

  async #delete(observed: O, state: PassState, signal: AbortSignal, retry: boolean): Promise<void> {
    try {
      await this.#api.delete(observed, signal);
      state.actions.push({ kind: "deleted", name: observed.name, ...withGroup(observed.group) });
    } catch (error) {
      rethrowIfAborted(signal);
      if (isNotFound(error)) return; // Already gone: what we wanted.
      const target = { name: observed.name, ...withGroup(observed.group) };
      if (!isConflict(error) || !retry) {
        state.errors.push({ ...target, error });
        return;
      }
      const found = await this.#lookupOrRecord(target, state, signal);
      if (found?.kind === "owned") await this.#delete(found.object, state, signal, false);
      else if (found !== undefined && found.kind !== "absent") {
        state.actions.push({ kind: "left-alone", name: observed.name, ...withGroup(observed.group) });
      }
    }
  }
}
