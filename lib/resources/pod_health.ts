/**
 * Core `v1` Pod as `ouroboros doctor` judges our pods' health: ports, `Ready`, restarts. Apart
 * from `pod.ts` so neither decoder carries fields the other never reads.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { V1Pod } from "@kubernetes/client-node";
import type { KubeObject } from "./kube_object.ts";
import { defineResourceType, type ResourceType } from "./resource_type.ts";

/** One declared container port. */
export interface PodHealthPort {
  readonly name?: string;
  readonly containerPort: number;
}

/** One container's status as far as health goes. */
export interface ContainerHealth {
  readonly name: string;
  readonly ready: boolean;
  readonly restartCount: number;
  /** `CrashLoopBackOff`, … while the container waits. */
  readonly waitingReason?: string;
  /** How the previous run ended (`OOMKilled`, `Error`). */
  readonly lastTermination?: { readonly reason: string; readonly finishedAt?: string };
}

/** A Pod as the doctor's health check sees it. */
export interface PodHealth extends KubeObject {
  readonly ports: readonly PodHealthPort[];
  readonly status: {
    readonly phase?: string;
    readonly podIP?: string;
    /** The `Ready` condition; absent before the kubelet reports one. */
    readonly ready?: { readonly status: string; readonly reason?: string; readonly message?: string };
    readonly containers: readonly ContainerHealth[];
  };
}

/** The Pod resource type, read for health. */
export const POD_HEALTH: ResourceType<PodHealth> = defineResourceType<V1Pod, PodHealth>(
  { group: "", version: "v1", kind: "Pod", plural: "pods", namespaced: true },
  (root, metadata) => {
    const ports = root.object("spec").objects("containers").flatMap((container) =>
      container.objects("ports").map((port) => {
        const name = port.optionalString("name");
        return { ...(name ? { name } : {}), containerPort: port.port("containerPort") };
      })
    );
    const status = root.object("status");
    const phase = status.optionalString("phase");
    const podIP = status.optionalString("podIP");
    const condition = status.objects("conditions").find((entry) => entry.optionalString("type") === "Ready");
    const reason = condition?.optionalString("reason");
    const message = condition?.optionalString("message");
    const containers = status.objects("containerStatuses").map((entry): ContainerHealth => {
      const waitingReason = entry.object("state").object("waiting").optionalString("reason");
      const terminated = entry.object("lastState").object("terminated");
      const lastReason = terminated.optionalString("reason");
      const finishedAt = terminated.optionalString("finishedAt");
      return {
        name: entry.optionalString("name") ?? "",
        ready: entry.optionalBoolean("ready") ?? false,
        restartCount: entry.optionalInteger("restartCount") ?? 0,
        ...(waitingReason ? { waitingReason } : {}),
        ...(lastReason
          ? { lastTermination: { reason: lastReason, ...(finishedAt ? { finishedAt } : {}) } }
          : {}),
      };
    });
    return {
      metadata,
      ports,
      status: {
        ...(phase ? { phase } : {}),
        ...(podIP ? { podIP } : {}),
        ...(condition === undefined ? {} : {
          ready: {
            status: condition.optionalString("status") ?? "Unknown",
            ...(reason ? { reason } : {}),
            ...(message ? { message } : {}),
          },
        }),
        containers,
      },
    };
  },
);
