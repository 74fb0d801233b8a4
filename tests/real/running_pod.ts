/**
 * Pods of a rendered workload as the real apiserver would hold them once a kubelet ran them: the
 * Deployment's own pod template (its labels, its containers and their named ports) made into a
 * Pod, then its status written as the admin (`pods/status`, as a kubelet does) with a loopback
 * address as the pod IP, where the scenario starts the process that stands for it. There is no
 * kubelet in the stack, so without this a Pod stays Pending with no IP. And the owner chain a
 * Deployment controller leaves (Deployment → ReplicaSet → Pod), which the stack does not run either.
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

/**
 * The rendered Deployment `workload`, a ReplicaSet it controls and a Pod `podName` that ReplicaSet
 * controls, as a Deployment controller would leave them (the stack runs none): what a process
 * that looks up its own Deployment from `HOSTNAME` finds. Returns the Deployment's uid.
 */
export async function deploymentChain(
  stack: Stack,
  release: RenderedRelease,
  workload: string,
  podName: string,
): Promise<string> {
  const deployment = release.objects.find((object) =>
    object.kind === "Deployment" && object.metadata.name === workload
  );
  if (deployment === undefined) throw new Error(`the render has no Deployment named ${workload}`);
  const namespace = release.namespace;
  const uidOf = async (resource: string, name: string) =>
    (await stack.kubectlOk(["get", resource, "-n", namespace, name, "-o", "jsonpath={.metadata.uid}"]))
      .trim();
  await stack.apply([deployment]);
  const controlledBy = (kind: string, name: string, uid: string) => [{
    apiVersion: "apps/v1",
    kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  }];
  const deploymentUid = await uidOf("deployment", workload);
  const spec = deployment.spec as { selector: unknown; template: Record<string, unknown> };
  const replicaSetName = podName.replace(/-[^-]+$/, "");
  await stack.apply([{
    apiVersion: "apps/v1",
    kind: "ReplicaSet",
    metadata: {
      name: replicaSetName,
      namespace,
      ownerReferences: controlledBy("Deployment", workload, deploymentUid),
    },
    spec: { replicas: 1, selector: spec.selector, template: spec.template },
  }]);
  const pod = podFromTemplate(release, workload, podName);
  const metadata = pod.metadata as Record<string, unknown>;
  metadata.ownerReferences = controlledBy(
    "ReplicaSet",
    replicaSetName,
    await uidOf("replicaset", replicaSetName),
  );
  await stack.apply([pod]);
  return deploymentUid;
}
