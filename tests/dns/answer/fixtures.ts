/**
 * Objects for the DNS answer and par tests, built through the real decoders so every test works
 * on what the watch would deliver.
 *
 * @module
 */

import { decodeDeployment, type Deployment } from "../../../lib/resources/deployment.ts";
import { decodePod, type Pod } from "../../../lib/resources/pod.ts";
import { decodeRecords, type Records } from "../../../lib/resources/records.ts";

/** What a test says about a pod. */
export interface PodFixture {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Record<string, string>;
  readonly ips?: readonly string[];
  /** Only `status.podIP`, no `podIPs` (as some servers send). */
  readonly podIP?: string;
  readonly phase?: string;
  readonly hostNetwork?: boolean;
  readonly created?: string;
}

/** A decoded Pod. */
export function pod(fixture: PodFixture): Pod {
  const decoded = decodePod({
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: fixture.name,
      namespace: fixture.namespace ?? "shop",
      resourceVersion: "1",
      labels: fixture.labels ?? {},
      ...(fixture.created === undefined ? {} : { creationTimestamp: fixture.created }),
    },
    spec: { hostNetwork: fixture.hostNetwork ?? false, containers: [] },
    status: {
      phase: fixture.phase ?? "Running",
      ...(fixture.podIP === undefined ? {} : { podIP: fixture.podIP }),
      ...(fixture.ips === undefined ? {} : { podIPs: fixture.ips.map((ip) => ({ ip })) }),
    },
  });
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

/** One `spec.a` entry as a user writes it. */
export interface EntryFixture {
  readonly labels?: Record<string, string>;
  readonly hostname?: string;
  readonly ips?: readonly string[];
  readonly type?: string;
  readonly namespaces?: readonly string[];
}

/** The raw entry, in par's field names. */
export function rawEntry(entry: EntryFixture): Record<string, unknown> {
  return {
    labels: entry.labels ?? {},
    ...(entry.hostname === undefined ? {} : { hostname: entry.hostname }),
    "ip-addresses": entry.ips ?? [],
    "forward-type": entry.type ?? "manager",
    ...(entry.namespaces === undefined ? {} : { namespaces: entry.namespaces }),
  };
}

/** A decoded Records object `namespace/name` with `entries` (raw values pass through as they are). */
export function records(namespace: string, name: string, entries: readonly unknown[]): Records {
  const decoded = decodeRecords({
    apiVersion: "dns.par.dev/v1alpha1",
    kind: "Records",
    metadata: { name, namespace, resourceVersion: "1" },
    spec: { a: entries.map((entry) => (isFixture(entry) ? rawEntry(entry) : entry)) },
  });
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}

function isFixture(value: unknown): value is EntryFixture {
  return typeof value === "object" && value !== null && !("forward-type" in value) &&
    !("ip-addresses" in value);
}

/** A raw Deployment manifest whose pod template has `podSpec` merged in. */
export function deploymentManifest(
  name: string,
  options: {
    readonly namespace?: string;
    readonly labels?: Record<string, string>;
    readonly templateLabels?: Record<string, string>;
    readonly podSpec?: Record<string, unknown>;
    readonly annotations?: Record<string, string>;
    readonly resourceVersion?: string;
  } = {},
): Record<string, unknown> {
  const templateLabels = options.templateLabels ?? { app: name };
  return {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: {
      name,
      namespace: options.namespace ?? "shop",
      labels: options.labels ?? {},
      ...(options.annotations === undefined ? {} : { annotations: options.annotations }),
      ...(options.resourceVersion === undefined ? {} : { resourceVersion: options.resourceVersion }),
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: templateLabels },
      template: {
        metadata: { labels: templateLabels },
        spec: { containers: [{ name: "app", image: "example/app:1" }], ...(options.podSpec ?? {}) },
      },
    },
  };
}

/** A decoded Deployment (see {@linkcode deploymentManifest}). */
export function deployment(name: string, options: Parameters<typeof deploymentManifest>[1] = {}): Deployment {
  const decoded = decodeDeployment(deploymentManifest(name, { resourceVersion: "1", ...options }));
  if (!decoded.ok) throw new Error(decoded.reason);
  return decoded.value;
}
