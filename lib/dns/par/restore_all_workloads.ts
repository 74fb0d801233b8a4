/**
 * The uninstall hook: every annotated Deployment gets its DNS settings back. One changed by
 * someone else since keeps their change (only the annotation goes); an unreadable annotation is
 * reported and left, as guessing could break the workload's DNS.
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
 * Restores every opted-in Deployment, one outcome each. A failed list rejects (the hook must fail
 * loudly); a failed write is an outcome, and the others are still tried.
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
