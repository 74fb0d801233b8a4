/**
 * The words external-dns mode says to an operator: why a hostname was refused, why nothing was
 * pruned, which leftover records to delete and how; each names the object and what to do.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { FailedBuild } from "./build_records.ts";
import type { ObjectRefusal } from "../../../publisher/owned_object_plan.ts";
import { deleteCommand, ownershipSelector } from "./ownership.ts";
import type { RecordOutput } from "./record_names.ts";

/** What the messages need to know about the sink. */
export interface MessageContext {
  readonly output: RecordOutput;
  readonly namespace: string;
  readonly instance: string;
}

/** `DNSEndpoint` or `Service`. */
export function recordNoun(output: RecordOutput): string {
  return output === "crd" ? "DNSEndpoint" : "Service";
}

/** Why one hostname (the refusal's group) was not written, and what to do about it. */
export function refusalMessage(refusal: ObjectRefusal, context: MessageContext): string {
  const object = `${recordNoun(context.output)} ${context.namespace}/${refusal.name}`;
  const host = refusal.group;
  switch (refusal.problem) {
    case "foreign-object": {
      const owner = refusal.otherInstance === undefined
        ? `lacks ouroboros' ownership labels (${ownershipSelector(context.instance)})`
        : `belongs to another ouroboros release (instance ${JSON.stringify(refusal.otherInstance)})`;
      return `${host} is not published: ${object} already exists and ${owner}, and ouroboros never ` +
        "takes over an object it did not create; rename or delete that object, or write records to another " +
        "--external-dns-namespace";
    }
    case "name-clash":
      return `${host} is not published: ${refusal.detail ?? "another hostname"} maps to the same name ` +
        `${object}, so neither is written (record names should never collide; please report this)`;
    case "unreadable-object":
      return `${host} is not published: ${object} carries ouroboros' labels but cannot be read as a ` +
        `${recordNoun(context.output)}; inspect it, and delete it to let ouroboros re-create it`;
    case "invalid-object":
      return `${host} is not published: the API server refused ${object} as invalid: ` +
        `${refusal.detail ?? "no details"}`;
  }
}

/** Why nothing was pruned when no hostname is wanted, and the two ways forward. */
export function emptyDesiredMessage(owned: number, context: MessageContext): string {
  return `no hostname is wanted, but ${owned} ouroboros-owned ${recordNoun(context.output)}(s) exist in ` +
    `${context.namespace}: pruning nothing, so a glitch (a cache relist, a class-filter change, every Ingress ` +
    "deleted by one command) cannot take every published name down. If removing them all is intended, " +
    `uninstall ouroboros (its cleanup hook deletes them) or run: ${
      deleteCommand(context)
    }; otherwise restore at least one Ingress, Gateway listener or HTTPRoute hostname`;
}

/** Why nothing was written or pruned when no hostname could be built. */
export function nothingBuiltMessage(failed: readonly FailedBuild[]): string {
  const reasons = [...new Set(failed.map((build) => build.message))];
  const shown = reasons.slice(0, 3).join("; ");
  const more = reasons.length > 3 ? `; and ${reasons.length - 3} more reasons` : "";
  return `none of the ${failed.length} hostname(s) could be turned into records (${shown}${more}); ` +
    "pruning nothing, so the records already published stay as they are";
}

/** The WARN for records of the inactive output, which external-dns still publishes. */
export function orphanMessage(activeOutput: RecordOutput, context: Omit<MessageContext, "output">): string {
  const inactive: RecordOutput = activeOutput === "crd" ? "service" : "crd";
  return `--external-dns-output=${activeOutput} is active, but ouroboros-owned ${
    recordNoun(inactive)
  }s from an earlier --external-dns-output=${inactive} are still in ${context.namespace}; ` +
    "external-dns keeps publishing them, so DNS answers may disagree. Delete them with: " +
    deleteCommand({ ...context, output: inactive });
}
