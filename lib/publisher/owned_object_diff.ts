/**
 * A writer pass's writes as a unified diff, one section per object (`<namespace>/<Kind>/<name>`)
 * over its owned fields as sorted YAML: the record-relevant changes and nothing else.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { stringify } from "yaml";
import { unifiedDiff } from "../util/unified_diff.ts";
import type { ObservedObject, OwnedFields, OwnedObjectPlan } from "./owned_object_plan.ts";

/** The writes of a plan, in the order the writer makes them. */
export type PlannedWrites<O extends ObservedObject = ObservedObject> = Pick<
  Extract<OwnedObjectPlan<O>, { kind: "apply" }>,
  "creates" | "updates" | "deletes"
>;

/** Where the objects live, for the section names. */
export interface DiffPlace {
  /** `DNSEndpoint`, `Service`. */
  readonly kind: string;
  readonly namespace: string;
}

/** The owned fields as the diff shows them: YAML, keys sorted, lists in their order. */
export function ownedFieldsText(fields: OwnedFields): string {
  return stringify(
    { labels: fields.labels, annotations: fields.annotations, spec: fields.spec },
    { sortMapEntries: true },
  );
}

/** The unified diff of `writes`: creates, then updates, then deletes; `""` when there are none. */
export function ownedObjectsDiff(writes: PlannedWrites, place: DiffPlace): string {
  const label = (name: string) => `${place.namespace}/${place.kind}/${name}`;
  return [
    ...writes.creates.map((object) =>
      unifiedDiff("", ownedFieldsText(object), { label: label(object.name) })
    ),
    ...writes.updates.map(({ desired, observed }) =>
      unifiedDiff(ownedFieldsText(observed), ownedFieldsText(desired), { label: label(desired.name) })
    ),
    ...writes.deletes.map((object) =>
      unifiedDiff(ownedFieldsText(object), "", { label: label(object.name) })
    ),
  ].join("");
}
