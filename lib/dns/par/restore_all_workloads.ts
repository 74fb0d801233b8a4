/**
 * The uninstall hook's part of the workload opt-in: every Deployment in the cluster that carries
 * `ouroboros.dev/original-dns` gets its pod template's DNS settings back and loses the
 * annotation, so no workload is left pointing at a DNS server that is going away.
 *
 * Decided: a Deployment whose DNS settings someone changed since the opt-in (`changedByOthers`)
 * no longer depends on this server; only the annotation is removed (`release`), their change
 * stays. An annotation that cannot be read is reported and left: guessing could break the
 * workload's DNS.
 *
 * Effects: lists and writes Deployments through the API client.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { DEPLOYMENT } from "../../resources/deployment.ts";
import {
  changedByOthers,
  decodeOriginalDns,
  ORIGINAL_DNS_ANNOTATION,
  releasePatch,
  restorePatch,
} from "./original_dns.ts";
import { type ParOutcome, patchObject, targetName } from "./par_outcome.ts";

/**
 * Restores every opted-in Deployment; one outcome each. A failed list rejects (the hook must
 * fail loudly); a failed write is an outcome, and the others are still tried.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../../kube/client.ts";
 * import { restoreAllWorkloads } from "./restore_all_workloads.ts";
 *
 * declare const client: KubeClient;
 * const outcomes = await restoreAllWorkloads(client, AbortSignal.timeout(60_000));
 * const failed = outcomes.filter((outcome) => outcome.kind === "failed");
 * ```
 */
export async function restoreAllWorkloads(
  api: Pick<KubeClient, "listAll" | "mergePatch">,
  signal: AbortSignal,
): Promise<ParOutcome[]> {
  const page = await api.listAll(DEPLOYMENT, { signal });
  const outcomes: ParOutcome[] = [];
  for (const deployment of page.items) {
    const annotation = deployment.metadata.annotations[ORIGINAL_DNS_ANNOTATION];
    if (annotation === undefined) continue;
    signal.throwIfAborted();
    const stored = decodeOriginalDns(annotation);
    if (typeof stored === "string") {
      outcomes.push({
        kind: "skipped",
        target: targetName("Deployment", deployment),
        reason: `its annotation ${ORIGINAL_DNS_ANNOTATION} ${stored}; restore its DNS settings by hand`,
      });
      continue;
    }
    const changed = changedByOthers(deployment.spec.template.spec, stored);
    outcomes.push(
      await patchObject(api, {
        type: DEPLOYMENT,
        object: deployment,
        patch: changed === undefined ? restorePatch(stored) : releasePatch(),
        action: changed === undefined ? "restore" : "release",
        detail: changed === undefined
          ? "its original DNS settings are back"
          : `${changed}: changed since the opt-in, so only the annotation is removed`,
        signal,
      }),
    );
  }
  return outcomes;
}
