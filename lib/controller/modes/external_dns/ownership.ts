/**
 * How external-dns mode marks its records and finds them again: one release's ownership labels,
 * the source annotation, and the command that deletes a release's records by hand.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { type ObjectOwnership, ownerLabels, ownerSelector } from "../../../publisher/object_ownership.ts";
import type { RecordOutput } from "./record_names.ts";

/** The label every owned record carries with value {@linkcode MANAGED_BY_VALUE}. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

/** The value of {@linkcode MANAGED_BY_LABEL} on owned records. */
export const MANAGED_BY_VALUE = "ouroboros";

/** The label naming the owning release (`OUROBOROS_INSTANCE`). */
export const INSTANCE_LABEL = "ouroboros.lexfrei.tech/instance";

/** The annotation naming the kinds of objects a hostname came from. */
export const SOURCE_ANNOTATION = "ouroboros.lexfrei.tech/source";

/** The ownership of `instance`'s records. */
export function recordOwnership(instance: string): ObjectOwnership {
  return {
    managedBy: { label: MANAGED_BY_LABEL, value: MANAGED_BY_VALUE },
    instance: { label: INSTANCE_LABEL, value: instance },
  };
}

/** The ownership labels of `instance`'s records. */
export function ownershipLabels(instance: string): Record<string, string> {
  return ownerLabels(recordOwnership(instance));
}

/** The label selector matching `instance`'s records. */
export function ownershipSelector(instance: string): string {
  return ownerSelector(recordOwnership(instance));
}

/** The resource name kubectl takes for an output's kind (qualified, so no short name can clash). */
export function kubectlResource(output: RecordOutput): string {
  return output === "crd" ? "dnsendpoints.externaldns.k8s.io" : "services";
}

/** Whose records of which kind, where. */
export interface RecordsOf {
  readonly namespace: string;
  readonly output: RecordOutput;
  readonly instance: string;
}

/**
 * The ready-to-run command deleting every record `instance` owns in `namespace` for `output`; both
 * are label values or DNS labels, so single quotes around the selector are enough.
 */
export function deleteCommand(records: RecordsOf): string {
  return `kubectl --namespace ${records.namespace} delete ${kubectlResource(records.output)} --selector='${
    ownershipSelector(records.instance)
  }'`;
}
