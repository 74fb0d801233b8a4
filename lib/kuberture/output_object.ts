/**
 * What kuberture writes for one output: an annotated headless Service for external-dns's
 * `--source=service`, or, with `output: crd`, a DNSEndpoint (one A and/or AAAA endpoint per
 * hostname). Both carry kuberture's own ownership labels, so a switch from kuberture takes its
 * objects over, and an owner reference to our Deployment when it is known.
 *
 * Pure: manifests as data.
 *
 * @module
 */

import { dnsEndpointObject } from "../publisher/dns_endpoint_object.ts";
import { externalDnsAnnotations, headlessService } from "../publisher/headless_service.ts";
import { type ObjectOwnership, ownerLabels } from "../publisher/object_ownership.ts";
import type { DesiredObject } from "../publisher/owned_object_plan.ts";
import type { KubertureOutput } from "./config/kuberture_config.ts";

/** The field manager of every server-side apply (kuberture's, so its objects are taken over cleanly). */
export const FIELD_MANAGER = "kuberture";

/** The two labels marking an instance's objects (kuberture's names and values). */
export function kubertureOwnership(instance: string): ObjectOwnership {
  return {
    managedBy: { label: "app.kubernetes.io/managed-by", value: "kuberture" },
    instance: { label: "kuberture/instance", value: instance },
  };
}

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

/** The object for `output` (a Service, or a DNSEndpoint for `crd`), named `output.serviceName`. */
export function outputObject(output: KubertureOutput, options: OutputObjectOptions): DesiredObject {
  const common = {
    name: output.serviceName,
    namespace: options.namespace,
    labels: ownerLabels(kubertureOwnership(options.instance)),
    ...(options.owner === undefined
      ? {}
      : { ownerReferences: [{ ...options.owner, blockOwnerDeletion: true }] }),
  };
  if (output.kind === "crd") {
    const families = [
      { recordType: "A" as const, targets: options.addresses.filter((ip) => !ip.includes(":")) },
      { recordType: "AAAA" as const, targets: options.addresses.filter((ip) => ip.includes(":")) },
    ].filter((family) => family.targets.length > 0);
    const endpoints = output.hostnames.flatMap((hostname) =>
      families.map((family) => ({
        dnsName: hostname.replace(/\.$/, ""),
        recordTTL: output.recordTTL,
        ...family,
      }))
    );
    return dnsEndpointObject({ ...common, annotations: {}, endpoints });
  }
  const annotations = externalDnsAnnotations({
    prefix: output.annotationPrefix,
    hostnames: output.hostnames,
    targets: options.addresses,
    ttl: output.recordTTL,
  });
  return headlessService({ ...common, annotations });
}
