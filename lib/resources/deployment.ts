/**
 * `apps/v1` Deployment, narrowed to its desired and current replica counts (enough to check and
 * scale the demo's workloads).
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Deployment } from "@kubernetes/client-node";
import type { Decoded } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { decodeKubeObject } from "./fields.ts";
import type { ResourceType } from "./resource_type.ts";

/** A Deployment as the controller sees it. */
export interface Deployment extends KubeObject {
  /** `spec.replicas`; the API defaults an absent value to 1. */
  readonly spec: { readonly replicas: number };
  /** `status.replicas`: pods currently targeted; 0 before the controller reports. */
  readonly status: { readonly replicas: number };
}

const DEPLOYMENT_KIND = { apiVersion: "apps/v1", kind: "Deployment" } as const;

/** Decodes a raw Deployment; never throws. */
export function decodeDeployment(raw: unknown): Decoded<Deployment> {
  return decodeKubeObject<V1Deployment, Deployment>(raw, DEPLOYMENT_KIND, (root, metadata) => ({
    metadata,
    spec: { replicas: root.object("spec").optionalInteger("replicas") ?? 1 },
    status: { replicas: root.object("status").optionalInteger("replicas") ?? 0 },
  }));
}

/** The Deployment resource type. */
export const DEPLOYMENT: ResourceType<Deployment> = {
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  namespaced: true,
  decode: decodeDeployment,
};
