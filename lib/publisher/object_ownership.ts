/**
 * Who owns an object: two labels, the managing tool and its release, so releases sharing a
 * namespace never touch each other's objects. Missing either label or with another value, an
 * object is foreign: never updated, never deleted.
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

/** The label selector that lists the owned objects. */
export function ownerSelector(ownership: ObjectOwnership): string {
  const { managedBy, instance } = ownership;
  return `${managedBy.label}=${managedBy.value},${instance.label}=${instance.value}`;
}

/** True when `labels` carry both ownership labels with this release's values. */
export function isOwnedBy(labels: Readonly<Record<string, string>>, ownership: ObjectOwnership): boolean {
  return labels[ownership.managedBy.label] === ownership.managedBy.value &&
    labels[ownership.instance.label] === ownership.instance.value;
}

/** The instance of another release of the same tool holding an object, else `undefined`. */
export function otherInstance(
  labels: Readonly<Record<string, string>>,
  ownership: ObjectOwnership,
): string | undefined {
  if (labels[ownership.managedBy.label] !== ownership.managedBy.value) return undefined;
  const instance = labels[ownership.instance.label];
  return instance === ownership.instance.value ? undefined : instance;
}
