/**
 * `apps/v1` Deployment as `ouroboros doctor` checks that CoreDNS mounts a ConfigMap. Apart from
 * `deployment.ts` so neither decoder carries fields the other never reads.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Deployment } from "@kubernetes/client-node";
import type { Decoder } from "./json.ts";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** A pod volume backed by a ConfigMap. */
export interface ConfigMapVolume {
  readonly name: string;
  /** The ConfigMap's name. */
  readonly configMap: string;
  /** The keys `items` projects; absent: every key. */
  readonly items?: readonly string[];
}

/** One container's mount of a volume. */
export interface VolumeMount {
  readonly container: string;
  readonly volume: string;
  readonly mountPath: string;
  /** `subPath` or `subPathExpr`: such a mount never sees later changes. */
  readonly subPath?: string;
}

/** A Deployment as seen by the mount check. */
export interface DeploymentVolumes extends KubeObject {
  readonly configMapVolumes: readonly ConfigMapVolume[];
  /** Init containers included: they too may be the only reader. */
  readonly mounts: readonly VolumeMount[];
}

/** The Deployment resource type, read for its volumes and mounts. */
export const DEPLOYMENT_VOLUMES: ResourceType<DeploymentVolumes> = defineResourceType<
  V1Deployment,
  DeploymentVolumes
>(
  { group: "apps", version: "v1", kind: "Deployment", plural: "deployments", namespaced: true },
  (root, metadata) => {
    const podSpec = root.object("spec").object("template").object("spec");
    const configMapVolumes: ConfigMapVolume[] = [];
    for (const volume of podSpec.objects("volumes")) {
      if (!volume.has("configMap")) continue;
      const source = volume.object("configMap");
      configMapVolumes.push({
        name: volume.string("name"),
        configMap: source.optionalString("name") ?? "",
        ...(source.has("items") ? { items: source.objects("items").map((item) => item.string("key")) } : {}),
      });
    }
    const containers = [...podSpec.objects("initContainers"), ...podSpec.objects("containers")];
    const mounts = containers.flatMap((container) =>
      container.objects("volumeMounts").map((mount): VolumeMount => {
        const subPath = mount.optionalString("subPath") || mount.optionalString("subPathExpr") || "";
        return {
          container: container.string("name"),
          volume: mount.string("name"),
          mountPath: mount.string("mountPath"),
          ...(subPath === "" ? {} : { subPath }),
        };
      })
    );
    return { metadata, configMapVolumes, mounts };
  },
);

/** Decodes a raw Deployment for its volumes; never throws. */
export const decodeDeploymentVolumes: Decoder<DeploymentVolumes> = DEPLOYMENT_VOLUMES.decode;
