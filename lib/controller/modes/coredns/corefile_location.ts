/**
 * Where the ConfigMap the CoreDNS sinks and start-up probes work on is, and the calls they make.
 *
 * Pure: types only.
 *
 * @module
 */

import type { KubeClient } from "../../../kube/client.ts";

/** The client calls the CoreDNS sinks make. */
export type ConfigMapApi = Pick<KubeClient, "get" | "mergePatch">;

/**
 * One data key of one ConfigMap: the Corefile (`kube-system/coredns[Corefile]`) or the key
 * coredns-import mode owns (`kube-system/coredns-custom[ouroboros.override]`).
 */
export interface CorefileLocation {
  readonly namespace: string;
  readonly configmap: string;
  readonly key: string;
}
