/**
 * `ouroboros kuberture --cleanup`: deletes every object this instance wrote and exits, as the
 * chart's post-delete hook runs it (kuberture is gone by then, so nothing writes them again). The
 * objects go through the one writer kuberture publishes with, asked to prune everything it owns
 * (its mass-prune guard stops only an ordinary pass), so only objects carrying both ownership
 * labels are touched.
 *
 * Decisions a reader could not guess:
 * - DNSEndpoints are listed too, whatever the outputs said (an earlier `output: crd` may have left
 *   one); where the kind is not served (no CRD) or listing it is refused (kuberture's own chart
 *   grants Services only), there is nothing of that kind to clean: said, not failed.
 *
 * Effects: the API client, logs.
 *
 * @module
 */

import type { Service } from "../daemon/subcommand.ts";
import { connectToCluster } from "../election/cluster_connection.ts";
import { isForbidden, isNotFound } from "../kube/errors.ts";
import { DNS_ENDPOINT } from "../resources/dns_endpoint.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { ResourceType } from "../resources/resource_type.ts";
import { SERVICE } from "../resources/service.ts";
import { ownedObjectApi, type OwnedObjectClient } from "../publisher/owned_object_api.ts";
import { observedMeta } from "../publisher/owned_object_plan.ts";
import { notDeletedMessage, OwnedObjectWriter } from "../publisher/owned_object_writer.ts";
import { errorMessage } from "../util/error_message.ts";
import { logger } from "../util/logging.ts";
import { FIELD_MANAGER, kubertureOwnership } from "./output_object.ts";
import type { KubertureValues } from "./kuberture_settings.ts";

/** What cleaning one kind found. */
export type KindCleanup =
  | { readonly kind: "deleted"; readonly names: readonly string[] }
  | { readonly kind: "not-served" | "not-listable"; readonly reason: string }
  | { readonly kind: "failed"; readonly message: string };

const KINDS: readonly (readonly [string, ResourceType<KubeObject>])[] = [
  ["Service", SERVICE],
  ["DNSEndpoint", DNS_ENDPOINT],
];

/** Deletes this instance's objects of each kind in `namespace`; never rejects but on `signal`. */
export async function cleanupOutputs(
  client: OwnedObjectClient,
  options: { readonly namespace: string; readonly instance: string; readonly signal: AbortSignal },
): Promise<ReadonlyMap<string, KindCleanup>> {
  const found = new Map<string, KindCleanup>();
  for (const [name, type] of KINDS) {
    const writer = new OwnedObjectWriter(
      ownedObjectApi({
        client,
        type,
        namespace: options.namespace,
        ownership: kubertureOwnership(options.instance),
        observe: (object) => ({ ...observedMeta(object.metadata), spec: {} }),
        fieldManager: FIELD_MANAGER,
        serverSideApply: true,
      }),
      { dryRun: false },
    );
    const result = await writer.pruneAll(options.signal);
    if (result.kind === "failed") {
      const reason = errorMessage(result.error);
      if (name === "DNSEndpoint" && isNotFound(result.error)) found.set(name, { kind: "not-served", reason });
      else if (name === "DNSEndpoint" && isForbidden(result.error)) {
        found.set(name, { kind: "not-listable", reason });
      } else found.set(name, { kind: "failed", message: reason });
    } else if (result.failures.length > 0) {
      found.set(name, { kind: "failed", message: notDeletedMessage(result.failures) });
    } else {
      found.set(name, { kind: "deleted", names: result.deleted });
    }
  }
  return found;
}

/** The cleanup run for `values` in `namespace`. */
export async function startKubertureCleanup(values: KubertureValues, namespace: string): Promise<Service> {
  const log = logger("kuberture");
  const cluster = await connectToCluster({
    kubeconfig: values.kubeconfig,
    env: (name) => Deno.env.get(name),
    fieldManager: FIELD_MANAGER,
  });
  return {
    revoke: [{ name: "write" }, { name: "run" }, { name: "ffi" }, { name: "sys" }],
    async run({ signals }) {
      log.info("kuberture cleanup starting", {
        instance: values.instance,
        namespace,
        apiServer: cluster.access.server,
      });
      const found = await cleanupOutputs(cluster.client, {
        namespace,
        instance: values.instance,
        signal: signals.shutdown,
      });
      let code = 0;
      for (const [kind, outcome] of found) {
        switch (outcome.kind) {
          case "deleted":
            log.info(
              outcome.names.length === 0
                ? `no ${kind} of this instance left`
                : `deleted this instance's ${kind}s`,
              {
                namespace,
                ...(outcome.names.length === 0 ? {} : { names: outcome.names.join(",") }),
              },
            );
            break;
          case "not-served":
            log.info(`${kind}s are not served here: none to delete`, { namespace });
            break;
          case "not-listable":
            log.warn(`may not list ${kind}s: one left by an earlier output: crd stays`, {
              namespace,
              reason: outcome.reason,
            });
            break;
          case "failed":
            code = 1;
            log.error(`could not delete this instance's ${kind}s; delete them by hand`, {
              namespace,
              reason: outcome.message,
              command: `kubectl --namespace ${namespace} delete ${
                kind === "Service" ? "services" : "dnsendpoints.externaldns.k8s.io"
              } --selector 'app.kubernetes.io/managed-by=kuberture,kuberture/instance=${values.instance}'`,
            });
            break;
        }
      }
      return code;
    },
    close: () => cluster.close(),
  };
}
