/**
 * Helpers shared by the external-dns sink tests: settings and targets factories, a fake API
 * server with a client and a sink bound to it, log capture, and checks written independently of
 * the code under test (name regexes as Kubernetes states them, the DNSEndpoint shape as
 * external-dns' CRD defines it).
 *
 * @module
 */

import { resetSync } from "@logtape/logtape";
import { KubeClient } from "../../../lib/kube/client.ts";
import { ExternalDnsSink } from "../../../lib/sinks/external_dns/reconciler.ts";
import type { RecordSettings } from "../../../lib/sinks/external_dns/records.ts";
import type { TargetsResult } from "../../../lib/sinks/external_dns/targets.ts";
import { configureLogging } from "../../../lib/util/logging.ts";
import type { AuditEntry, FakeApiServer } from "../../support/fake_apiserver/mod.ts";

/** The records namespace of every test. */
export const NAMESPACE = "ouroboros";
/** The instance of every test's sink. */
export const INSTANCE = "edge";
/** The ownership selector, spelled out independently of the code. */
export const SELECTOR = `app.kubernetes.io/managed-by=ouroboros,ouroboros.lexfrei.tech/instance=${INSTANCE}`;
/** The default annotation prefix of external-dns. */
export const PREFIX = "external-dns.alpha.kubernetes.io/";

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

/** Resolved targets (as the resolver would return them). */
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

/** A sink with its own client against `server`; dispose to close the client. */
export interface SinkHarness extends Disposable {
  readonly sink: ExternalDnsSink;
  readonly client: KubeClient;
  /** Changes what the sink's `targets()` returns from the next pass on. */
  setTargets(targets: TargetsResult | undefined): void;
}

/** Binds a sink to `server`. */
export function harness(
  server: FakeApiServer,
  options: { settings?: RecordSettings; targets?: TargetsResult | undefined } = {},
): SinkHarness {
  const client = new KubeClient({ server: server.url });
  let targets = "targets" in options ? options.targets : resolved(["10.96.0.10"]);
  const sink = new ExternalDnsSink({
    client,
    settings: options.settings ?? settings(),
    targets: () => targets,
  });
  return {
    sink,
    client,
    setTargets(next) {
      targets = next;
    },
    [Symbol.dispose]() {
      client.close();
    },
  };
}

/** The requests that write (POST, PUT, PATCH, DELETE) in `audit` from index `since` on. */
export function writes(audit: readonly AuditEntry[], since = 0): AuditEntry[] {
  return audit.slice(since).filter((entry) => ["POST", "PUT", "PATCH", "DELETE"].includes(entry.method));
}

/** One captured log line, parsed. */
export interface LogLine {
  readonly level: string;
  readonly msg: string;
  readonly [key: string]: unknown;
}

/** Collects every log line (JSON format, level debug) until disposed. */
export interface LogCapture extends Disposable {
  readonly lines: LogLine[];
  /** Lines at `level` (`DEBUG`, `INFO`, `WARN`, `ERROR`). */
  at(level: string): LogLine[];
}

/** Starts capturing logs; disposing resets logging to its unconfigured state. */
export function captureLogs(): LogCapture {
  const lines: LogLine[] = [];
  configureLogging({
    level: "debug",
    format: "json",
    write: (line) => lines.push(JSON.parse(line) as LogLine),
  });
  return {
    lines,
    at: (level) => lines.filter((line) => line.level === level),
    [Symbol.dispose]() {
      resetSync();
    },
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
