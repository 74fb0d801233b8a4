/**
 * The `scale` subresource of Deployments (and ReplicaSets) as `autoscaling/v1 Scale`: reading a Deployment as a
 * Scale, and writing a Scale's `spec.replicas` back into the Deployment.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { isJsonMap, type Json, type JsonMap } from "./json.ts";
import type { StoredObject } from "./store.ts";

/** The Scale view of a Deployment. */
export function scaleOf(deployment: StoredObject): JsonMap {
  const object = deployment.object;
  const metadata = object.metadata as JsonMap;
  const spec = isJsonMap(object.spec) ? object.spec : {};
  const status = isJsonMap(object.status) ? object.status : {};
  const selector = isJsonMap(spec.selector) && isJsonMap(spec.selector.matchLabels)
    ? Object.entries(spec.selector.matchLabels).map(([key, value]) => `${key}=${String(value)}`).join(",")
    : "";
  return {
    kind: "Scale",
    apiVersion: "autoscaling/v1",
    metadata: {
      name: deployment.name,
      namespace: deployment.namespace,
      uid: deployment.uid,
      resourceVersion: String(deployment.rv),
      creationTimestamp: metadata.creationTimestamp ?? null,
    },
    spec: { replicas: typeof spec.replicas === "number" ? spec.replicas : 1 },
    status: { replicas: typeof status.replicas === "number" ? status.replicas : 0, selector },
  };
}

/** The replica count a Scale body asks for, or a reason it is not usable. */
export function replicasOf(scale: Json): number | string {
  if (!isJsonMap(scale)) return "the body must be a Scale object";
  if (scale.kind !== undefined && scale.kind !== "Scale") {
    return `the kind in the data (${String(scale.kind)}) is not Scale`;
  }
  const spec = scale.spec;
  const replicas = isJsonMap(spec) ? spec.replicas : undefined;
  if (replicas === undefined || replicas === null) return 0;
  if (typeof replicas !== "number" || !Number.isInteger(replicas) || replicas < 0) {
    return "spec.replicas: Invalid value: must be greater than or equal to 0";
  }
  return replicas;
}

/** The Deployment with `spec.replicas` set, for an update carrying the Scale's resourceVersion precondition. */
export function withReplicas(
  deployment: StoredObject,
  replicas: number,
  resourceVersion: Json | undefined,
): JsonMap {
  const object = deployment.object;
  const spec = isJsonMap(object.spec) ? object.spec : {};
  const metadata: JsonMap = { ...(object.metadata as JsonMap) };
  if (resourceVersion === undefined || resourceVersion === null || resourceVersion === "") {
    delete metadata.resourceVersion;
  } else {
    metadata.resourceVersion = resourceVersion;
  }
  return { ...object, metadata, spec: { ...spec, replicas } };
}
