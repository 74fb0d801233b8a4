/**
 * Helpers shared by the external-dns sink tests: settings and targets factories, a fake API
 * server with a client and a sink bound to it (its targets in a proxy Service cache the test
 * changes), readers of what an outcome carries (its write notices, the outcome without them),
 * and checks written independently of the code under test (name regexes as Kubernetes states
 * them, the DNSEndpoint shape as external-dns' CRD defines it).
 *
 * @module
 */

import { KubeClient } from "../../../../lib/kube/client.ts";
import type { EventNotice, RecordResult } from "../../../../lib/kube/event_recorder.ts";
import { Store } from "../../../../lib/reflector/store.ts";
import type { Service } from "../../../../lib/resources/service.ts";
import type { RecordSettings } from "../../../../lib/controller/modes/external_dns/build_records.ts";
import { ExternalDnsSink } from "../../../../lib/controller/modes/external_dns/external_dns_sink.ts";
import type { OwnedObjectClient } from "../../../../lib/publisher/owned_object_api.ts";
import type { TargetOrigin } from "../../../../lib/controller/modes/external_dns/proxy_targets.ts";
import type { TargetsResult } from "../../../../lib/controller/modes/external_dns/targets.ts";
import type { Notice, SinkOutcome } from "../../../../lib/controller/modes/sink.ts";
import type { Clock } from "../../../../lib/util/clock.ts";
import { meta } from "../../../hostnames/factories.ts";
import type { AuditEntry, FakeApiServer } from "../../../support/fake_apiserver/mod.ts";

/** The records namespace of every test. */
export const NAMESPACE = "ouroboros";
/** The instance of every test's sink. */
export const INSTANCE = "edge";
/** The ownership selector, spelled out independently of the code. */
export const SELECTOR = `app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=${INSTANCE}`;
/** The default annotation prefix of external-dns. */
export const PREFIX = "external-dns.alpha.kubernetes.io/";
/** The proxy Service the harness's targets come from. */
export const PROXY = { namespace: NAMESPACE, name: "ouroboros-proxy" } as const;

/** A DNS-1035 label (Service names), as Kubernetes' validation states it. */
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 subdomain (most object names), as Kubernetes' validation states it. */
export const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Settings for a test, default output `crd`. */
export function settings(overrides: Partial<RecordSettings> = {}): RecordSettings {
  return {
    output: "crd",
    namespace: NAMESPACE,
    instance: INSTANCE,
    recordTtl: 60,
    annotationPrefix: PREFIX,
    annotations: {},
    labels: {},
    ...overrides,
  };
}

/** Resolved targets (as the proxy Service cache would give them). */
export function resolved(ipv4: readonly string[], ipv6: readonly string[] = []): TargetsResult {
  return { kind: "resolved", targets: { ipv4, ipv6 }, origin: "test" };
}

/** The ownership labels of the test instance, spelled out independently of the code. */
export function ownedLabels(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...extra,
    "app.kubernetes.io/managed-by": "ouroboros",
    "ouroboros.lexfrei.tech/instance": INSTANCE,
  };
}

/** The proxy Service as the controller's cache would hold it; `["None"]` is headless. */
export function proxyService(clusterIPs: readonly string[], resourceVersion = "1"): Service {
  return {
    metadata: meta(`${PROXY.namespace}/${PROXY.name}`, resourceVersion),
    spec: {
      type: "ClusterIP",
      ...(clusterIPs[0] === undefined ? {} : { clusterIP: clusterIPs[0] }),
      clusterIPs,
      ports: [],
      selector: {},
    },
    status: { loadBalancer: { ingress: [] } },
  };
}

/** An Event recorder that keeps what it is asked to record. */
export class RecordedEvents {
  readonly notices: EventNotice[] = [];
  record(notice: EventNotice): Promise<RecordResult> {
    this.notices.push(notice);
    return Promise.resolve({ kind: "created", name: `e${this.notices.length}` });
  }
}

/** A sink bound to a proxy Service cache the test changes; dispose to close the client. */
export interface SinkHarness extends Disposable {
  readonly sink: ExternalDnsSink;
  readonly client: KubeClient;
  readonly events: RecordedEvents;
  /** The proxy Service cache the sink reads its targets from. */
  readonly proxy: Store<Service>;
  /** Gives the proxy Service these cluster IPs from the next pass on. */
  setTargets(ipv4: readonly string[], ipv6?: readonly string[]): void;
  /** Another sink on the same cache and Events, with its own client calls. */
  sinkWith(client: OwnedObjectClient): ExternalDnsSink;
}

/** What {@linkcode harness} binds. */
export interface HarnessOptions {
  readonly settings?: RecordSettings;
  /** The proxy Service's cluster IPs: `[ipv4, ipv6]`. @default [["10.96.0.10"], []] */
  readonly targets?: readonly [readonly string[], readonly string[]];
  readonly clock?: Clock;
  readonly wallClock?: () => Date;
  /** Build the sink as `--dry-run` does. */
  readonly dryRun?: boolean;
}

/** Binds a sink to `server`. */
export function harness(server: FakeApiServer, options: HarnessOptions = {}): SinkHarness {
  const client = new KubeClient({ server: server.url });
  const proxy = new Store<Service>();
  const [ipv4, ipv6] = options.targets ?? [["10.96.0.10"], []];
  let version = 1;
  proxy.replace([proxyService([...ipv4, ...ipv6])]);
  const events = new RecordedEvents();
  const origin: TargetOrigin = { kind: "service", ref: PROXY, store: proxy };
  const sinkWith = (calls: OwnedObjectClient) =>
    new ExternalDnsSink({
      client: calls,
      settings: options.settings ?? settings(),
      targets: origin,
      recorder: events,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
      ...(options.wallClock === undefined ? {} : { wallClock: options.wallClock }),
      dryRun: options.dryRun ?? false,
    });
  return {
    sink: sinkWith(client),
    client,
    events,
    proxy,
    setTargets(nextIpv4, nextIpv6 = []) {
      version++;
      proxy.apply(proxyService([...nextIpv4, ...nextIpv6], String(version)));
    },
    sinkWith,
    [Symbol.dispose]() {
      client.close();
    },
  };
}

/** The requests that write (POST, PUT, PATCH, DELETE) in `audit` from index `since` on. */
export function writes(audit: readonly AuditEntry[], since = 0): AuditEntry[] {
  return audit.slice(since).filter((entry) => ["POST", "PUT", "PATCH", "DELETE"].includes(entry.method));
}

/** `outcome` without its notices and diff: what the controller counts its result by. */
export function summary(outcome: SinkOutcome): Readonly<Record<string, unknown>> {
  const { notices: _notices, ...rest } = outcome;
  if (rest.kind !== "written" && rest.kind !== "previewed") return rest;
  const { diff: _diff, names, ...counted } = rest;
  if (names !== undefined) {
    if (names.added.length !== rest.added || names.removed.length !== rest.removed) {
      throw new Error(`the names ${JSON.stringify(names)} are not as many as counted`);
    }
  }
  return counted;
}

/** The notices of `outcome` at `level`. */
export function noticesAt(outcome: SinkOutcome, level: Notice["level"]): Notice[] {
  return (outcome.notices ?? []).filter((notice) => notice.level === level);
}

/** The names the pass created, updated and deleted, read from its DEBUG notices. */
export function actions(outcome: SinkOutcome): { created: string[]; updated: string[]; deleted: string[] } {
  const named = (message: string) =>
    noticesAt(outcome, "debug").filter((notice) => notice.message === message)
      .map((notice) => String(notice.properties?.name));
  return {
    created: named("external-dns: record created"),
    updated: named("external-dns: record updated"),
    deleted: named("external-dns: record deleted"),
  };
}

/** The IPv4 pattern the DNSEndpoint checks use: a dotted quad without leading zeros. */
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStringMap(value: unknown): boolean {
  return value === undefined || (isRecord(value) && Object.values(value).every((v) => typeof v === "string"));
}

/**
 * What is wrong with `object` as an external-dns `DNSEndpoint` that ouroboros may emit: the
 * CRD's schema (`spec.endpoints[]` with `dnsName`, `recordType`, `recordTTL` as an integer,
 * `targets` as strings) plus external-dns' own rules for A/AAAA (targets are IP literals of the
 * record's family, no trailing dots) and a valid object name. Empty when valid.
 */
export function dnsEndpointProblems(object: unknown): string[] {
  const problems: string[] = [];
  if (!isRecord(object)) return ["not an object"];
  if (object.apiVersion !== "externaldns.k8s.io/v1alpha1") {
    problems.push(`apiVersion ${String(object.apiVersion)}`);
  }
  if (object.kind !== "DNSEndpoint") problems.push(`kind ${String(object.kind)}`);
  const metadata = object.metadata;
  if (!isRecord(metadata)) return [...problems, "metadata is not an object"];
  const name = metadata.name;
  if (typeof name !== "string" || name.length > 253 || !DNS1123_SUBDOMAIN.test(name)) {
    problems.push(`metadata.name ${JSON.stringify(name)} is not a DNS-1123 subdomain`);
  }
  if (!isStringMap(metadata.labels)) problems.push("metadata.labels is not a map of strings");
  if (!isStringMap(metadata.annotations)) problems.push("metadata.annotations is not a map of strings");
  const spec = object.spec;
  if (!isRecord(spec) || !Array.isArray(spec.endpoints) || spec.endpoints.length === 0) {
    return [...problems, "spec.endpoints is not a non-empty list"];
  }
  for (const [index, endpoint] of spec.endpoints.entries()) {
    const at = `spec.endpoints[${index}]`;
    if (!isRecord(endpoint)) {
      problems.push(`${at} is not an object`);
      continue;
    }
    const { dnsName, recordType, recordTTL, targets } = endpoint;
    if (typeof dnsName !== "string" || dnsName === "" || dnsName.endsWith(".")) {
      problems.push(`${at}.dnsName ${JSON.stringify(dnsName)}`);
    }
    if (recordType !== "A" && recordType !== "AAAA") {
      problems.push(`${at}.recordType ${JSON.stringify(recordType)}`);
    }
    if (!Number.isInteger(recordTTL) || (recordTTL as number) < 1) {
      problems.push(`${at}.recordTTL ${JSON.stringify(recordTTL)}`);
    }
    if (!Array.isArray(targets) || targets.length === 0) {
      problems.push(`${at}.targets is not a non-empty list`);
      continue;
    }
    for (const target of targets) {
      const ok = typeof target === "string" && !target.endsWith(".") &&
        (recordType === "A" ? IPV4.test(target) : target.includes(":") && /^[0-9a-f:.]+$/.test(target));
      if (!ok) {
        problems.push(`${at}.targets has ${JSON.stringify(target)}, not a ${String(recordType)} target`);
      }
    }
    for (const key of Object.keys(endpoint)) {
      if (
        !["dnsName", "recordType", "recordTTL", "targets", "labels", "providerSpecific", "setIdentifier"]
          .includes(key)
      ) {
        problems.push(`${at}.${key} is not a field of the CRD`);
      }
    }
  }
  return problems;
}
