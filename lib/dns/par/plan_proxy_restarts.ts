/**
 * par's forward proxy reads its configuration at start, so when the rendered configuration
 * changes its Deployment (label `par.dev/proxy: "true"` in the par namespace) must roll. The
 * rendered text of every proxy ConfigMap is hashed, and the hash is written as a pod-template
 * annotation, `ouroboros.dev/par-config-hash`: a new hash changes the template, and the
 * Deployment controller rolls the pods.
 *
 * Decided: a hash of the content rather than par's `restartedAt` time stamp. The same content
 * gives the same annotation, so a restart of this server, or two replicas of it, never roll the
 * proxy for nothing.
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

/** Hex digits of SHA-256 kept: 64 bits, plenty to tell configurations apart. */
const HASH_LENGTH = 16;

/**
 * The hash of the rendered configuration: `rendered` maps each proxy ConfigMap's
 * `namespace/name` to its rendered keys. Independent of the order of both.
 */
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

/**
 * The proxy Deployments whose pod template does not carry `hash` yet.
 *
 * @example
 * ```ts
 * import type { Deployment } from "../../resources/deployment.ts";
 * import { planProxyRestarts, proxyConfigHash } from "./plan_proxy_restarts.ts";
 *
 * declare const deployments: readonly Deployment[];
 * const hash = proxyConfigHash(new Map([["par/nginx", { "nginx.conf": "resolver 10.96.0.53;" }]]));
 * planProxyRestarts(deployments, { parNamespace: "par", hash }); // the proxy Deployments to roll
 * ```
 */
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
