/**
 * The DNSEndpoint external-dns reads with `--source=crd` (external-dns mode's `crd` records,
 * kuberture's `output: crd`), as a desired object; the writer owns its whole endpoint list.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { DesiredObject } from "./owned_object_plan.ts";

/** One record of a DNSEndpoint. */
export interface EndpointRecord {
  /** The name, without a trailing dot. */
  readonly dnsName: string;
  readonly recordType: "A" | "AAAA";
  /** Seconds. */
  readonly recordTTL: number;
  readonly targets: readonly string[];
}

/** What one DNSEndpoint carries. */
export interface DnsEndpointInput {
  readonly name: string;
  readonly namespace: string;
  /** Every label, the ownership labels included. */
  readonly labels: Readonly<Record<string, string>>;
  /** Left out of the manifest when empty. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Set at creation only (kuberture: its Deployment, so uninstalling collects the object). */
  readonly ownerReferences?: readonly Readonly<Record<string, unknown>>[];
  readonly endpoints: readonly EndpointRecord[];
}

/** The DNSEndpoint to write for `input`. */
export function dnsEndpointObject(input: DnsEndpointInput): DesiredObject {
  const { name, namespace, labels, annotations } = input;
  const owners = input.ownerReferences === undefined ? {} : { ownerReferences: input.ownerReferences };
  const spec = {
    endpoints: input.endpoints.map((endpoint) => ({ ...endpoint, targets: [...endpoint.targets] })),
  };
  return {
    name,
    labels,
    annotations,
    spec,
    manifest: {
      apiVersion: "externaldns.k8s.io/v1alpha1",
      kind: "DNSEndpoint",
      metadata: {
        name,
        namespace,
        labels,
        ...(Object.keys(annotations).length === 0 ? {} : { annotations }),
        ...owners,
      },
      spec,
    },
  };
}
