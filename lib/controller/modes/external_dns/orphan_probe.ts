/**
 * Start-up check for owned records of the output kind not in use, left by a switch between `crd`
 * and `service` and still published by external-dns. ouroboros does not delete them (the chart
 * grants no delete on the other kind, and a wrong guess deletes published names): it WARNs with the
 * command. Best effort: a 403, a 404 (no CRD) or any failure is a DEBUG line, never a failed start.
 *
 * Effects: `probeOrphans` lists at most one object; `orphanNotices` is pure.
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

/** Looks for owned records of the kind not in use. Rejects only when `options.signal` aborts. */
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

/** What to say: a WARN with the delete command, a DEBUG line when unsure, nothing when none. */
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
