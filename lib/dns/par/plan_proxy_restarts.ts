/**
 * par's proxy reads its configuration only at start, so a new rendered configuration must roll
 * it: its hash goes in a pod-template annotation. A content hash, not par's `restartedAt`, so a
 * restart of this server or a second replica never rolls the proxy for nothing.
 *
 * Pure: no I/O (`node:crypto` hashes synchronously).
 *
 * @module
 */

import { createHash } from "node:crypto";
import type { Deployment } from "../../resources/deployment.ts";
import type { JsonObject } from "../../resources/json.ts";
import { PAR_PROXY_LABEL } from "../answer/build_answerer.ts";

/** The pod-template annotation holding the hash of the proxy's rendered configuration. */
export const PAR_CONFIG_HASH_ANNOTATION = "ouroboros.dev/par-config-hash";

/** Hex digits of SHA-256 kept (64 bits). */
const HASH_LENGTH = 16;

/** The hash of the rendered keys by ConfigMap `namespace/name`, whatever their order. */
export function proxyConfigHash(rendered: ReadonlyMap<string, Readonly<Record<string, string>>>): string {
  const canonical = [...rendered].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, data]) => [
    name,
    Object.entries(data).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  ]);
  return createHash("sha256").update(JSON.stringify(canonical), "utf8").digest("hex").slice(0, HASH_LENGTH);
}

/** One proxy Deployment to roll, and the merge patch that does it. */
export interface ProxyRestart {
  readonly deployment: Deployment;
  readonly patch: JsonObject;
}

/** The proxy Deployments whose pod template does not carry `hash` yet. */
export function planProxyRestarts(
  deployments: readonly Deployment[],
  options: { readonly parNamespace: string; readonly hash: string },
): ProxyRestart[] {
  return deployments
    .filter((deployment) =>
      deployment.metadata.namespace === options.parNamespace &&
      deployment.metadata.labels[PAR_PROXY_LABEL] === "true" &&
      deployment.spec.template.metadata.annotations[PAR_CONFIG_HASH_ANNOTATION] !== options.hash
    )
    .map((deployment) => ({
      deployment,
      patch: {
        spec: { template: { metadata: { annotations: { [PAR_CONFIG_HASH_ANNOTATION]: options.hash } } } },
      },
    }));
}
