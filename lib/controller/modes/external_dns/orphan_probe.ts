/**
 * Startup check for records of the output kind not in use: after a switch from
 * `--external-dns-output=crd` to `service` (or back), the old kind's records stay, and
 * external-dns keeps publishing them next to the new ones. ouroboros does not delete them itself
 * (it would need to delete the other kind, which the chart does not grant, and guessing wrong
 * deletes published names); it WARNs with the exact command.
 *
 * Best effort: a 404 (the DNSEndpoint CRD is not installed) is expected and is said at DEBUG only;
 * so is a 403 (the chart grants `list` on the inactive kind in the records namespace, so this is
 * hand-made RBAC) and any other failure, as the probe must never stop startup. The probe never
 * logs: {@linkcode orphanNotices} says what it found, and the controller logs that.
 *
 * `probeOrphans` reads the API server (one list of at most one item); `orphanNotices` is pure.
 *
 * @module
 */

import type { KubeClient } from "../../../kube/client.ts";
import { isForbidden, isNotFound } from "../../../kube/errors.ts";
import type { KubeObject } from "../../../resources/kube_object.ts";
import { DNS_ENDPOINT } from "../../../resources/dns_endpoint.ts";
import type { ResourceType } from "../../../resources/resource_type.ts";
import { SERVICE } from "../../../resources/service.ts";
import { errorMessage } from "../../../util/error_message.ts";
import type { Notice } from "../sink.ts";
import { orphanMessage } from "./messages.ts";
import { deleteCommand, ownershipSelector } from "./ownership.ts";
import type { RecordOutput } from "./record_names.ts";

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

/** Where to look, and for whose records. */
export interface OrphanProbeOptions {
  /** The output in use; the probe looks for the other one. */
  readonly activeOutput: RecordOutput;
  readonly namespace: string;
  readonly instance: string;
  /** Bounds the probe; an abort rejects with its reason. */
  readonly signal: AbortSignal;
}

async function anyOwned<T extends KubeObject>(
  client: Pick<KubeClient, "list">,
  type: ResourceType<T>,
  options: OrphanProbeOptions,
): Promise<boolean> {
  const page = await client.list(type, {
    namespace: options.namespace,
    labelSelector: ownershipSelector(options.instance),
    limit: 1,
    signal: options.signal,
  });
  return page.items.length > 0 || page.rejected.length > 0;
}

function inactiveOf(activeOutput: RecordOutput): RecordOutput {
  return activeOutput === "crd" ? "service" : "crd";
}

/**
 * Looks for owned records of the kind `options.activeOutput` does not use. Rejects only when
 * `options.signal` aborts.
 */
export async function probeOrphans(
  client: Pick<KubeClient, "list">,
  options: OrphanProbeOptions,
): Promise<OrphanProbeResult> {
  const inactive = inactiveOf(options.activeOutput);
  try {
    const found = inactive === "crd"
      ? await anyOwned(client, DNS_ENDPOINT, options)
      : await anyOwned(client, SERVICE, options);
    if (!found) return { kind: "none" };
    return { kind: "found", output: inactive, command: deleteCommand({ ...options, output: inactive }) };
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    const reason = isForbidden(error) ? "forbidden" : isNotFound(error) ? "not-found" : "error";
    return { kind: "unknown", reason, error: errorMessage(error) };
  }
}

/**
 * What to say about a probe's result: the WARN with the ready-to-run delete command when records
 * were found, a DEBUG line when the probe could not tell, nothing when there are none.
 */
export function orphanNotices(
  result: OrphanProbeResult,
  where: Omit<OrphanProbeOptions, "signal">,
): Notice[] {
  switch (result.kind) {
    case "none":
      return [];
    case "found":
      return [{
        level: "warn",
        message: orphanMessage(where.activeOutput, where),
        properties: { namespace: where.namespace, command: result.command },
      }];
    case "unknown":
      return [{
        level: "debug",
        message: "external-dns orphan probe could not look for records of the inactive output",
        properties: {
          namespace: where.namespace,
          inactive: inactiveOf(where.activeOutput),
          reason: result.reason,
          error: result.error,
        },
      }];
  }
}
