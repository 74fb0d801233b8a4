/**
 * How ouroboros marks the records it owns and finds them again: two labels, both required. The
 * instance label scopes ownership to one release, so two releases sharing a records namespace
 * never update or prune each other's objects. An object missing either label (or carrying
 * another instance) is foreign: never updated, never deleted.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { RecordOutput } from "./record_names.ts";

/** The label every owned record carries with value {@linkcode MANAGED_BY_VALUE}. */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";

/** The value of {@linkcode MANAGED_BY_LABEL} on owned records. */
export const MANAGED_BY_VALUE = "ouroboros";

/** The label naming the owning release (`OUROBOROS_INSTANCE`). */
export const INSTANCE_LABEL = "ouroboros.lexfrei.tech/instance";

/** The annotation naming the kinds of objects a hostname came from. */
export const SOURCE_ANNOTATION = "ouroboros.lexfrei.tech/source";

/** The ownership labels of `instance`'s records. */
export function ownershipLabels(instance: string): Record<string, string> {
  return { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [INSTANCE_LABEL]: instance };
}

/**
 * The label selector matching `instance`'s records.
 *
 * @example
 * ```ts
 * ownershipSelector("ouroboros");
 * // "app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=ouroboros"
 * ```
 */
export function ownershipSelector(instance: string): string {
  return `${MANAGED_BY_LABEL}=${MANAGED_BY_VALUE},${INSTANCE_LABEL}=${instance}`;
}

/** True when `labels` carry both ownership labels of `instance`. */
export function isOwned(labels: Readonly<Record<string, string>>, instance: string): boolean {
  return labels[MANAGED_BY_LABEL] === MANAGED_BY_VALUE && labels[INSTANCE_LABEL] === instance;
}

/** The resource name kubectl takes for an output's kind (qualified, so no short name can clash). */
export function kubectlResource(output: RecordOutput): string {
  return output === "crd" ? "dnsendpoints.externaldns.k8s.io" : "services";
}

/**
 * The ready-to-run command deleting every record `instance` owns in `namespace` for `output`
 * (for the orphan WARN and the mass-prune guard's remedy). Namespace and instance are label
 * values or DNS labels, so single quotes around the selector are enough.
 *
 * @example
 * ```ts
 * deleteCommand("ouroboros", "crd", "ouroboros");
 * // "kubectl --namespace ouroboros delete dnsendpoints.externaldns.k8s.io --selector='app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=ouroboros'"
 * ```
 */
export function deleteCommand(namespace: string, output: RecordOutput, instance: string): string {
  return `kubectl --namespace ${namespace} delete ${kubectlResource(output)} --selector='${
    ownershipSelector(instance)
  }'`;
}
