/**
 * `controller --cleanup --cleanup-routes-only`: deletes the route table ConfigMap `--routes` wrote,
 * which Helm never owned and so would leave behind on uninstall (the chart's post-delete routing
 * hook runs it, in every mode).
 *
 * Decisions a reader could not guess:
 * - Only a ConfigMap carrying this release's ownership labels goes, and the delete is conditional on
 *   the uid and resourceVersion read, so a relabelling in between is never deleted. One without the
 *   labels (another tool's, another release's) is left alone with a WARN and exit 0: an uninstall
 *   must not fail over an object that was never ours.
 * - A conflict (the ConfigMap changed between the read and the delete) reads it again, a few times.
 *
 * Effects: HTTP through the injected client.
 *
 * @module
 */

import type { KubeClient } from "../../kube/client.ts";
import { isConflict, isNotFound } from "../../kube/errors.ts";
import { isOwnedBy, otherInstance } from "../../publisher/object_ownership.ts";
import { CONFIG_MAP } from "../../resources/config_map.ts";
import { parseRouteTable, ROUTE_TABLE_KEY } from "../../routes/route_table.ts";
import { errorMessage } from "../../util/error_message.ts";
import type { SinkOutcome } from "../modes/sink.ts";
import type { RoutesTarget } from "./routes_sink.ts";

/** How many times a delete that met a conflict reads the ConfigMap again. */
const ATTEMPTS = 3;

/** Deletes `target`'s ConfigMap when it is this release's; the outcome says what was found. */
export async function cleanupRouteTable(
  client: Pick<KubeClient, "get" | "delete">,
  target: RoutesTarget,
  options: { readonly signal: AbortSignal },
): Promise<SinkOutcome> {
  const { signal } = options;
  const where = `${target.namespace}/${target.name}`;
  const byHand = `kubectl --namespace ${target.namespace} delete configmap ${target.name}`;
  const ref = { namespace: target.namespace, name: target.name };
  let lastError = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      const current = await client.get(CONFIG_MAP, ref, { signal });
      if (!isOwnedBy(current.metadata.labels, target.ownership)) {
        const other = otherInstance(current.metadata.labels, target.ownership);
        return {
          kind: "unchanged",
          hosts: 0,
          notices: [{
            level: "warn",
            message: "the route table ConfigMap is not this release's; left alone",
            properties: {
              configMap: where,
              owner: other === undefined ? "not ouroboros" : `release ${other}`,
            },
          }],
        };
      }
      const table = parseRouteTable(current.data[ROUTE_TABLE_KEY] ?? "");
      await client.delete(CONFIG_MAP, ref, {
        signal,
        uid: current.metadata.uid,
        resourceVersion: current.metadata.resourceVersion,
      });
      const hosts = table.ok ? table.table.routes.length : 0;
      return { kind: "written", hosts: 0, added: 0, removed: hosts };
    } catch (error) {
      signal.throwIfAborted();
      if (isNotFound(error)) {
        return {
          kind: "refused",
          problem: "configmap-missing",
          scope: "nothing-written",
          message: `no route table ConfigMap ${where}`,
        };
      }
      if (!isConflict(error)) {
        return {
          kind: "failed",
          message: `cannot delete ConfigMap ${where}: ${errorMessage(error)}; ${byHand}`,
        };
      }
      lastError = errorMessage(error);
    }
  }
  return {
    kind: "failed",
    message: `ConfigMap ${where} kept changing while it was deleted (${lastError}); ${byHand}`,
  };
}
