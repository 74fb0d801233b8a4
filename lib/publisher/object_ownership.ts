/**
 * Who owns an object: two labels, both required. One names the tool that manages it
 * (`app.kubernetes.io/managed-by`), the other the release of that tool (an instance label), so two
 * releases sharing a namespace never update or prune each other's objects. An object missing
 * either label, or carrying another value, is foreign: never updated, never deleted.
 *
 * The definition is data, so each subcommand states its own: external-dns mode
 * `app.kubernetes.io/managed-by=ouroboros` + `ouroboros.lexfrei.tech/instance=<instance>`,
 * kuberture `app.kubernetes.io/managed-by=kuberture` + `kuberture/instance=<instance>`.
 *
 * Pure: no I/O.
 *
 * @module
 */

/** One label and the value it must have. */
export interface LabelValue {
  readonly label: string;
  readonly value: string;
}

/** The two labels that mark an object as this release's. */
export interface ObjectOwnership {
  /** The managing tool: `{ label: "app.kubernetes.io/managed-by", value: "ouroboros" }`. */
  readonly managedBy: LabelValue;
  /** The release of that tool: `{ label: "ouroboros.lexfrei.tech/instance", value: "edge" }`. */
  readonly instance: LabelValue;
}

/** The labels every owned object carries. */
export function ownerLabels(ownership: ObjectOwnership): Record<string, string> {
  return {
    [ownership.managedBy.label]: ownership.managedBy.value,
    [ownership.instance.label]: ownership.instance.value,
  };
}

/**
 * The label selector that lists the owned objects.
 *
 * @example
 * ```ts
 * import { ownerSelector } from "./object_ownership.ts";
 *
 * ownerSelector({
 *   managedBy: { label: "app.kubernetes.io/managed-by", value: "kuberture" },
 *   instance: { label: "kuberture/instance", value: "main" },
 * }); // "app.kubernetes.io/managed-by=kuberture,kuberture/instance=main"
 * ```
 */
export function ownerSelector(ownership: ObjectOwnership): string {
  const { managedBy, instance } = ownership;
  return `${managedBy.label}=${managedBy.value},${instance.label}=${instance.value}`;
}

/** True when `labels` carry both ownership labels with this release's values. */
export function isOwnedBy(labels: Readonly<Record<string, string>>, ownership: ObjectOwnership): boolean {
  return labels[ownership.managedBy.label] === ownership.managedBy.value &&
    labels[ownership.instance.label] === ownership.instance.value;
}

/**
 * The instance of another release of the same tool holding an object, when that is who holds it
 * (the tool's label matches, the instance label names someone else); `undefined` otherwise.
 */
export function otherInstance(
  labels: Readonly<Record<string, string>>,
  ownership: ObjectOwnership,
): string | undefined {
  if (labels[ownership.managedBy.label] !== ownership.managedBy.value) return undefined;
  const instance = labels[ownership.instance.label];
  return instance === ownership.instance.value ? undefined : instance;
}
