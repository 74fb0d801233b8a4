/**
 * What kuberture writes for one output: a headless Service annotated for external-dns's
 * `--source=service` (kuberture's shape: `clusterIP: None`, no selector, no ports,
 * `<prefix>hostname` comma-joined, `<prefix>target` sorted and comma-joined, `<prefix>ttl`), or,
 * for `output: crd`, a DNSEndpoint for `--source=crd` (one A and/or one AAAA endpoint per
 * hostname). Both carry the ownership labels and, when the controller's Deployment is known, an
 * owner reference so the cluster's garbage collector removes them with it.
 *
 * Pure: manifests as data.
 *
 * @module
 */

import type { Manifest } from "../kube/client_options.ts";
import type { KubeObject } from "../resources/kube_object.ts";
import type { KubertureOutput } from "./config/kuberture_config.ts";

/** The label every object kuberture writes carries (kuberture's value, so a switch takes them over). */
export const MANAGED_BY_LABEL = "app.kubernetes.io/managed-by";
/** Its value. */
export const MANAGED_BY = "kuberture";
/** The label naming the installation, so several never prune each other's objects. */
export const INSTANCE_LABEL = "kuberture/instance";
/** The field manager of every server-side apply (kuberture's, so its objects are taken over cleanly). */
export const FIELD_MANAGER = "kuberture";

/** The controller's own Deployment, for owner references. */
export interface Owner {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
}

/** Where and for whom an output's object is written. */
export interface OutputObjectOptions {
  /** The controller's namespace: where every object goes. */
  readonly namespace: string;
  /** `--instance`. */
  readonly instance: string;
  /** The addresses resolved for the output (sorted, unique, at least one). */
  readonly addresses: readonly string[];
  readonly owner: Owner | undefined;
}

/** The label selector of this instance's objects. */
export function ownedSelector(instance: string): string {
  return `${MANAGED_BY_LABEL}=${MANAGED_BY},${INSTANCE_LABEL}=${instance}`;
}

/** True when `object` carries this instance's ownership labels. */
export function ownedBy(object: KubeObject, instance: string): boolean {
  const labels = object.metadata.labels;
  return labels[MANAGED_BY_LABEL] === MANAGED_BY && labels[INSTANCE_LABEL] === instance;
}

/**
 * The object for `output` (a Service, or a DNSEndpoint for `kind: "crd"`), named
 * `output.serviceName`.
 *
 * @example
 * ```ts
 * import { outputObject } from "./output_object.ts";
 *
 * const service = outputObject({
 *   name: "api",
 *   hostnames: ["api.k8s.example.com"],
 *   annotationPrefix: "external-dns.alpha.kubernetes.io/",
 *   serviceName: "kuberture-api",
 *   recordTTL: 60,
 *   addressSource: "endpointslice",
 *   addressType: "IPv4",
 *   kind: "service",
 * }, { namespace: "kuberture", instance: "kuberture", addresses: ["192.0.2.10"], owner: undefined });
 * // service.metadata.annotations: { "external-dns.alpha.kubernetes.io/hostname": "api.k8s.example.com", … }
 * ```
 */
export function outputObject(output: KubertureOutput, options: OutputObjectOptions): Manifest {
  const metadata = {
    name: output.serviceName,
    namespace: options.namespace,
    labels: { [MANAGED_BY_LABEL]: MANAGED_BY, [INSTANCE_LABEL]: options.instance },
    ...(options.owner === undefined ? {} : {
      ownerReferences: [{ ...options.owner, blockOwnerDeletion: true }],
    }),
  };
  if (output.kind === "crd") {
    const families = [
      { recordType: "A", targets: options.addresses.filter((ip) => !ip.includes(":")) },
      { recordType: "AAAA", targets: options.addresses.filter((ip) => ip.includes(":")) },
    ].filter((family) => family.targets.length > 0);
    return {
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata,
      spec: {
        endpoints: output.hostnames.flatMap((hostname) =>
          families.map((family) => ({
            dnsName: hostname.replace(/\.$/, ""),
            recordType: family.recordType,
            recordTTL: output.recordTTL,
            targets: family.targets,
          }))
        ),
      },
    };
  }
  const prefix = output.annotationPrefix;
  return {
    apiVersion: "v1",
    kind: "Service",
    metadata: {
      ...metadata,
      annotations: {
        [`${prefix}hostname`]: output.hostnames.join(","),
        [`${prefix}target`]: options.addresses.join(","),
        [`${prefix}ttl`]: String(output.recordTTL),
      },
    },
    spec: { type: "ClusterIP", clusterIP: "None" },
  };
}
