/**
 * What a pass of the {@linkcode OwnedObjectWriter} writes (or, in a dry run, would write), as a
 * readable unified diff: one file-like section per object, named `<namespace>/<Kind>/<name>`,
 * whose text is the object's owned fields (labels, annotations and the owned spec fields) as
 * YAML with sorted keys. A create diffs from nothing, a delete to nothing, an update from the
 * fields as listed to the desired ones, so an operator sees exactly the record-relevant changes
 * (a DNSEndpoint's targets, TTL and record type; a Service's hostname and target annotations)
 * and nothing the writer never touches (status, server-assigned fields).
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

/**
 * The owned fields as the diff shows them: YAML, keys sorted, lists in their order.
 *
 * @example
 * ```ts
 * import { ownedFieldsText } from "./owned_object_diff.ts";
 *
 * ownedFieldsText({ labels: { b: "2", a: "1" }, annotations: {}, spec: {} });
 * // "labels:\n  a: \"1\"\n  b: \"2\"\nannotations: {}\nspec: {}\n"
 * ```
 */
export function ownedFieldsText(fields: OwnedFields): string {
  return stringify(
    { labels: fields.labels, annotations: fields.annotations, spec: fields.spec },
    { sortMapEntries: true },
  );
}

/**
 * The unified diff of `writes` (creates, then updates, then deletes; `""` when there are none).
 *
 * @example
 * ```ts
 * import { ownedObjectsDiff } from "./owned_object_diff.ts";
 *
 * const gone = { name: "app-a", uid: "u1", resourceVersion: "7", labels: {}, annotations: {}, spec: {} };
 * ownedObjectsDiff({ creates: [], updates: [], deletes: [gone] }, { kind: "DNSEndpoint", namespace: "ouroboros" });
 * // "--- a/ouroboros/DNSEndpoint/app-a\n+++ b/ouroboros/DNSEndpoint/app-a\n@@ -1,3 +0,0 @@\n-labels: {}\n…"
 * ```
 */
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
