/**
 * The annotated headless Service external-dns reads with `--source=service`, as a desired object
 * for the writer and as what it compares (external-dns mode's `service` records, kuberture's
 * outputs). No selector (external-dns would publish pod addresses) and no ports; what the API
 * server assigns (cluster IPs, IP families) is neither compared nor overwritten.
 *
 * Pure: no I/O.
 *
 * @module
 */

import type { Service } from "../resources/service.ts";
import { type DesiredObject, observedMeta, type ObservedObject } from "./owned_object_plan.ts";

/** What one Service carries. */
export interface HeadlessServiceInput {
  readonly name: string;
  readonly namespace: string;
  /** Every label, the ownership labels included. */
  readonly labels: Readonly<Record<string, string>>;
  /** Every annotation, the external-dns ones ({@linkcode externalDnsAnnotations}) included. */
  readonly annotations: Readonly<Record<string, string>>;
  /** Set at creation only (kuberture: its Deployment, so uninstalling collects the Service). */
  readonly ownerReferences?: readonly Readonly<Record<string, unknown>>[];
}

/** The Service to write for `input`. */
export function headlessService(input: HeadlessServiceInput): DesiredObject {
  const { name, namespace, labels, annotations } = input;
  const owners = input.ownerReferences === undefined ? {} : { ownerReferences: input.ownerReferences };
  return {
    name,
    labels,
    annotations,
    spec: {},
    manifest: {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name, namespace, labels, annotations, ...owners },
      spec: { type: "ClusterIP", clusterIP: "None" },
    },
  };
}

/** What external-dns publishes from a Service's annotations. */
export interface ExternalDnsRecord {
  /** The annotation prefix of the external-dns instance, ending with `/`. */
  readonly prefix: string;
  /** The names, comma-joined into `<prefix>hostname`. */
  readonly hostnames: readonly string[];
  /** The addresses, in the order given, comma-joined into `<prefix>target`. */
  readonly targets: readonly string[];
  /** Seconds, into `<prefix>ttl`. */
  readonly ttl: number;
}

/** The three annotations external-dns reads. */
export function externalDnsAnnotations(record: ExternalDnsRecord): Record<string, string> {
  return {
    [`${record.prefix}hostname`]: record.hostnames.join(","),
    [`${record.prefix}target`]: record.targets.join(","),
    [`${record.prefix}ttl`]: String(record.ttl),
  };
}

/** A listed Service as compared: its maps, plus a selector or ports only if someone added them. */
export function observeHeadlessService(service: Service): ObservedObject {
  const { selector, ports } = service.spec;
  return {
    ...observedMeta(service.metadata),
    spec: {
      ...(Object.keys(selector).length === 0 ? {} : { selector }),
      ...(ports.length === 0 ? {} : { ports }),
    },
  };
}
