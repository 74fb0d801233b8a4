/**
 * The objects external-dns mode wants per hostname: one DNSEndpoint per address family (output
 * `crd`), or one annotated headless Service with IPv4 then IPv6 targets (output `service`). Both
 * carry the operator's labels and annotations, with ours applied last so they win. A hostname that
 * cannot be built fails on its own, and the plan keeps what it already has.
 *
 * Pure: no I/O.
 *
 * @module
 */

import { HOST_SOURCES, type HostSource } from "../../../hostnames/sources.ts";
import { externalDnsAnnotations, headlessService } from "../../../publisher/headless_service.ts";
import { dnsEndpointObject } from "../../../publisher/dns_endpoint_object.ts";
import type { DesiredGroup, DesiredObject, OwnedFields } from "../../../publisher/owned_object_plan.ts";
import { ownershipLabels, SOURCE_ANNOTATION } from "./ownership.ts";
import {
  type AddressFamily,
  dnsEndpointName,
  recordNames,
  type RecordOutput,
  serviceName,
} from "./record_names.ts";
import type { TargetsResult } from "./targets.ts";

/** The source annotation's value when the caller did not say where a hostname came from. */
export const UNKNOWN_SOURCE = "unknown";

/** The longest record TTL accepted, in seconds (one day, as `--external-dns-record-ttl`). */
export const MAX_RECORD_TTL = 86_400;

/** What shapes the records; the controller's `ExternalDnsSettings` fits as is. */
export interface RecordSettings {
  readonly output: RecordOutput;
  readonly namespace: string;
  /** The owning release (`OUROBOROS_INSTANCE`). */
  readonly instance: string;
  /** Seconds, in [1, 86400]. */
  readonly recordTtl: number;
  /** Output `service`: the annotation prefix of the external-dns instance, ending with `/`. */
  readonly annotationPrefix: string;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
}

/** One record the sink wants to exist, and the hostname it publishes. */
export interface DesiredRecord extends DesiredObject {
  readonly host: string;
}

/** Why a hostname could not be built (stable codes, metric labels). */
export type BuildProblem =
  | "invalid-hostname"
  | "no-targets"
  | "invalid-settings";

/** The outcome for one hostname. */
export type HostBuild =
  | { readonly kind: "built"; readonly host: string; readonly records: readonly DesiredRecord[] }
  | {
    readonly kind: "failed";
    readonly host: string;
    readonly problem: BuildProblem;
    readonly message: string;
  };

/** A hostname that could not be built. */
export type FailedBuild = Extract<HostBuild, { kind: "failed" }>;

const LABEL = /^[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Why `host` cannot name a record, or `undefined` when it can. */
export function hostnameProblem(host: string): string | undefined {
  if (host === "") return "the hostname is empty";
  if (host.length > 253) return `the hostname has ${host.length} characters, more than DNS allows (253)`;
  // A wildcard record (`*.example.com`) is one whole leading `*` label; external-dns publishes it as is.
  const name = host.startsWith("*.") ? host.slice(2) : host;
  if (/[*?]/.test(name)) {
    return "a '*' or '?' other than one leading '*.' label cannot be published as a record";
  }
  if (!name.includes(".") && name !== host) return "a wildcard needs a domain of at least two labels";
  const bad = name.split(".").find((label) => !LABEL.test(label));
  if (bad !== undefined) {
    return `the label ${JSON.stringify(bad)} is not a lower-case DNS label ` +
      "(letters, digits, '-' and '_', 1 to 63 characters, no '-' at either end)";
  }
  return undefined;
}

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/**
 * Whether `value` may be a label value. The instance also goes into the ownership selector and
 * the printed cleanup command, so this keeps a `,`, `!` or quote from changing what they select.
 */
function isLabelValue(value: string): boolean {
  return value.length <= 63 && LABEL_VALUE.test(value);
}

function settingsProblem(settings: RecordSettings): string | undefined {
  const ttl = settings.recordTtl;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > MAX_RECORD_TTL) {
    return `the record TTL ${ttl} is outside [1, ${MAX_RECORD_TTL}] seconds`;
  }
  if (settings.namespace === "") return "the records' namespace is empty";
  if (settings.instance === "") return "the instance (OUROBOROS_INSTANCE) is empty";
  if (!isLabelValue(settings.instance)) {
    return `the instance ${
      JSON.stringify(settings.instance)
    } (OUROBOROS_INSTANCE) is not a valid label value ` +
      "(at most 63 letters, digits, '-', '_' and '.', starting and ending with a letter or digit)";
  }
  const badLabel = Object.entries(settings.labels).find(([, value]) => !isLabelValue(value));
  if (badLabel !== undefined) {
    return `the value ${JSON.stringify(badLabel[1])} of label ${
      JSON.stringify(badLabel[0])
    } is not a valid label value`;
  }
  if (settings.output === "service" && !settings.annotationPrefix.endsWith("/")) {
    return `the annotation prefix ${JSON.stringify(settings.annotationPrefix)} does not end with '/'`;
  }
  return undefined;
}

/**
 * The source annotation's value: the kinds `host` came from, in {@linkcode HOST_SOURCES} order;
 * {@linkcode UNKNOWN_SOURCE} when nobody said.
 */
export function sourceValue(sources: readonly HostSource[] | undefined): string {
  const known = HOST_SOURCES.filter((source) => sources?.includes(source) === true);
  return known.length === 0 ? UNKNOWN_SOURCE : known.join(",");
}

function metadataFor(
  settings: RecordSettings,
  sources: readonly HostSource[] | undefined,
  extra: Readonly<Record<string, string>>,
): Pick<OwnedFields, "labels" | "annotations"> {
  return {
    labels: { ...settings.labels, ...ownershipLabels(settings.instance) },
    annotations: { ...settings.annotations, [SOURCE_ANNOTATION]: sourceValue(sources), ...extra },
  };
}

function dnsEndpoint(
  host: string,
  family: AddressFamily,
  targets: readonly string[],
  settings: RecordSettings,
  sources: readonly HostSource[] | undefined,
): DesiredRecord {
  const { labels, annotations } = metadataFor(settings, sources, {});
  const endpoint = {
    dnsName: host,
    recordType: family === 4 ? "A" as const : "AAAA" as const,
    recordTTL: settings.recordTtl,
    targets,
  };
  return {
    host,
    ...dnsEndpointObject({
      name: dnsEndpointName(host, family),
      namespace: settings.namespace,
      labels,
      annotations,
      endpoints: [endpoint],
    }),
  };
}

function serviceRecord(
  host: string,
  targets: readonly string[],
  settings: RecordSettings,
  sources: readonly HostSource[] | undefined,
): DesiredRecord {
  const extra = externalDnsAnnotations({
    prefix: settings.annotationPrefix,
    hostnames: [host],
    targets,
    ttl: settings.recordTtl,
  });
  const { labels, annotations } = metadataFor(settings, sources, extra);
  return {
    host,
    ...headlessService({ name: serviceName(host), namespace: settings.namespace, labels, annotations }),
  };
}

/** What {@linkcode buildRecords} turns into records. */
export interface BuildInput {
  /** The wanted hostnames (duplicates are built once). */
  readonly hosts: readonly string[];
  /** Where the records point; `undefined` while unknown (every hostname then fails). */
  readonly targets: TargetsResult | undefined;
  readonly settings: RecordSettings;
  /** The kinds each hostname came from, for the source annotation; absent: unknown. */
  readonly sources?: ReadonlyMap<string, readonly HostSource[]> | undefined;
}

/** Builds the records of every hostname (de-duplicated, sorted). */
export function buildRecords(input: BuildInput): HostBuild[] {
  const { hosts, targets, settings, sources } = input;
  const unique = [...new Set(hosts)].sort();
  const shared: { problem: BuildProblem; message: string } | undefined = (() => {
    const problem = settingsProblem(settings);
    if (problem !== undefined) return { problem: "invalid-settings", message: problem };
    if (targets === undefined) {
      return { problem: "no-targets", message: "the proxy's addresses have not been resolved yet" };
    }
    if (targets.kind === "unusable") return { problem: "no-targets", message: targets.message };
    if (targets.targets.ipv4.length === 0 && targets.targets.ipv6.length === 0) {
      return { problem: "no-targets", message: `${targets.origin}: no address to point at` };
    }
    return undefined;
  })();
  return unique.map((host): HostBuild => {
    if (shared !== undefined) return { kind: "failed", host, ...shared };
    const problem = hostnameProblem(host);
    if (problem !== undefined) return { kind: "failed", host, problem: "invalid-hostname", message: problem };
    const resolved = targets?.kind === "resolved" ? targets.targets : { ipv4: [], ipv6: [] };
    const from = sources?.get(host);
    if (settings.output === "service") {
      return {
        kind: "built",
        host,
        records: [serviceRecord(host, [...resolved.ipv4, ...resolved.ipv6], settings, from)],
      };
    }
    const records: DesiredRecord[] = [];
    if (resolved.ipv4.length > 0) records.push(dnsEndpoint(host, 4, resolved.ipv4, settings, from));
    if (resolved.ipv6.length > 0) records.push(dnsEndpoint(host, 6, resolved.ipv6, settings, from));
    return { kind: "built", host, records };
  });
}

/**
 * The writer's groups: one per hostname, holding every name its records may have in `output`, so a
 * hostname that failed or is refused keeps what it has.
 */
export function recordGroups(
  builds: readonly HostBuild[],
  output: RecordOutput,
): DesiredGroup<DesiredRecord>[] {
  return builds.map((build) => ({
    key: build.host,
    names: recordNames(build.host, output),
    objects: build.kind === "built" ? build.records : undefined,
  }));
}
