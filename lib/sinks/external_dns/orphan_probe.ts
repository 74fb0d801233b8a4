/**
 * Startup check for records of the output kind not in use: after a switch from
 * `--external-dns-output=crd` to `service` (or back), the old kind's records stay, and
 * external-dns keeps publishing them next to the new ones. ouroboros does not delete them itself
 * (it would need the other kind's RBAC, and guessing wrong deletes published names); it WARNs
 * with the exact command.
 *
 * Best effort: a 403 (the chart grants RBAC only for the active kind) or a 404 (the DNSEndpoint
 * CRD is not installed) is expected and stays at DEBUG; any other failure too, as the probe must
 * never stop startup.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isForbidden, isNotFound } from "../../kube/errors.ts";
import type { KubeObject } from "../../resources/kube_object.ts";
import { DNS_ENDPOINT } from "../../resources/dns_endpoint.ts";
import type { ResourceType } from "../../resources/resource_type.ts";
import { SERVICE } from "../../resources/service.ts";
import { logger } from "../../util/logging.ts";
import { orphanMessage } from "./messages.ts";
import { deleteCommand, ownershipSelector } from "./ownership.ts";
import type { RecordOutput } from "./record_names.ts";
import { errorMessage } from "../../util/error_message.ts";

/** What the probe found. */
export type OrphanProbeResult =
  /** No owned record of the inactive kind. */
  | { readonly kind: "none" }
  /** At least one; `command` deletes them all. */
  | { readonly kind: "found"; readonly output: RecordOutput; readonly command: string }
  /** The probe could not tell (RBAC, no CRD, an API failure). */
  | {
    readonly kind: "unknown";
    readonly reason: "forbidden" | "not-found" | "error";
    readonly error: string;
  };

async function anyOwned<T extends KubeObject>(
  client: Pick<KubeClient, "list">,
  type: ResourceType<T>,
  namespace: string,
  instance: string,
  signal: AbortSignal,
): Promise<boolean> {
  const page = await client.list(type, {
    namespace,
    labelSelector: ownershipSelector(instance),
    limit: 1,
    signal,
  });
  return page.items.length > 0 || page.rejected.length > 0;
}

/**
 * Looks for owned records of the kind `activeOutput` does not use in `namespace`; WARNs with the
 * ready-to-run delete command when there are some.
 */
export async function probeOrphans(
  client: Pick<KubeClient, "list">,
  where: { readonly activeOutput: RecordOutput; readonly namespace: string; readonly instance: string },
  signal: AbortSignal,
): Promise<OrphanProbeResult> {
  const inactive: RecordOutput = where.activeOutput === "crd" ? "service" : "crd";
  const log = logger("sinks", "external-dns");
  try {
    const found = inactive === "crd"
      ? await anyOwned(client, DNS_ENDPOINT, where.namespace, where.instance, signal)
      : await anyOwned(client, SERVICE, where.namespace, where.instance, signal);
    if (!found) return { kind: "none" };
    const command = deleteCommand(where.namespace, inactive, where.instance);
    log.warn(orphanMessage(where.activeOutput, where), { namespace: where.namespace, command });
    return { kind: "found", output: inactive, command };
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    const reason = isForbidden(error) ? "forbidden" : isNotFound(error) ? "not-found" : "error";
    const text = errorMessage(error);
    log.debug("external-dns orphan probe could not look for records of the inactive output", {
      namespace: where.namespace,
      inactive,
      reason,
      error: text,
    });
    return { kind: "unknown", reason, error: text };
  }
}
