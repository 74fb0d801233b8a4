/**
 * What both CoreDNS sinks and the start-up probes share about the ConfigMap they work on: where
 * it is, and the client calls they make on it.
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
  /** The ConfigMap's namespace. */
  readonly namespace: string;
  /** The ConfigMap's name. */
  readonly configmap: string;
  /** The data key. */
  readonly key: string;
}
