/**
 * Pods of a rendered workload as the real apiserver would hold them once a kubelet ran them: the
 * Deployment's own pod template (its labels, its containers and their named ports) made into a
 * Pod, then its status written as the admin (`pods/status`, as a kubelet does) with a loopback
 * address as the pod IP, where the scenario starts the process that stands for it. There is no
 * kubelet in the stack, so without this a Pod stays Pending with no IP.
 *
 * Effects: writes Pods and their status through the stack (as the admin).
 *
 * @module
 */

import type { RenderedRelease, Stack } from "./stack.ts";

interface PodTemplateView {
  readonly metadata?: { readonly labels?: Record<string, string> };
  readonly spec: { readonly containers: readonly { readonly name: string }[] } & Record<string, unknown>;
}

/** The pod template of the rendered Deployment `workload`. */
function templateOf(release: RenderedRelease, workload: string): PodTemplateView {
  const found = release.objects.find((object) =>
    object.kind === "Deployment" && object.metadata.name === workload
  );
  if (found === undefined) throw new Error(`the render has no Deployment named ${workload}`);
  return (found.spec as { template: PodTemplateView }).template;
}

/** A Pod named `name` made from the pod template of the rendered Deployment `workload`. */
export function podFromTemplate(
  release: RenderedRelease,
  workload: string,
  name: string,
): Record<string, unknown> {
  const template = templateOf(release, workload);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: release.namespace, labels: { ...(template.metadata?.labels ?? {}) } },
    spec: template.spec,
  };
}

/** The port the pod template's container `container` names `portName`. */
export function templatePort(
  release: RenderedRelease,
  workload: string,
  container: string,
  portName: string,
): number {
  const containers = templateOf(release, workload).spec.containers as readonly {
    name: string;
    ports?: { name?: string; containerPort: number }[];
  }[];
  const port = containers.find((candidate) => candidate.name === container)?.ports?.find((entry) =>
    entry.name === portName
  );
  if (port === undefined) throw new Error(`${workload}/${container} names no port ${portName}`);
  return port.containerPort;
}

/**
 * Writes the status a kubelet writes for a started pod whose containers are all ready: phase
 * Running, `podIP`, the Ready condition, one ready container status per container.
 */
export async function markPodRunning(
  stack: Stack,
  pod: Record<string, unknown>,
  podIP: string,
): Promise<void> {
  const { name, namespace } = pod.metadata as { name: string; namespace: string };
  const containers = (pod.spec as { containers: { name: string; image: string }[] }).containers;
  const now = new Date().toISOString().replace(/\.\d+Z$/, "Z");
  const status = {
    phase: "Running",
    hostIP: "127.0.0.1",
    podIP,
    podIPs: [{ ip: podIP }],
    startTime: now,
    conditions: [
      { type: "Initialized", status: "True", lastTransitionTime: now },
      { type: "ContainersReady", status: "True", lastTransitionTime: now },
      { type: "Ready", status: "True", lastTransitionTime: now },
      { type: "PodScheduled", status: "True", lastTransitionTime: now },
    ],
    containerStatuses: containers.map((container) => ({
      name: container.name,
      image: container.image,
      imageID: "",
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: now } },
    })),
  };
  await stack.kubectlOk([
    "patch",
    "pod",
    "-n",
    namespace,
    name,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status }),
  ]);
}
