/**
 * The judgements of the external-dns DNS wiring check. Records are planned by the controller's
 * own code, so "the records match" means exactly "its next pass would write nothing"; consumption
 * is the status surfacer's own diagnosis.
 *
 * Pure: no I/O; the time comes in as an argument.
 *
 * @module
 */

import type { HostSource } from "../../hostnames/sources.ts";
import {
  buildRecords,
  type FailedBuild,
  recordGroups,
  type RecordSettings,
} from "../../controller/modes/external_dns/build_records.ts";
import { recordNoun } from "../../controller/modes/external_dns/messages.ts";
import type { ObservedRecord } from "../../controller/modes/external_dns/observed_record.ts";
import type { OwnedFields } from "../../publisher/owned_object_plan.ts";
import { planOwnedObjects } from "../../publisher/owned_object_plan.ts";
import {
  deleteCommand,
  ownershipSelector,
  recordOwnership,
} from "../../controller/modes/external_dns/ownership.ts";
import { describeTargets } from "../../controller/modes/external_dns/proxy_targets.ts";
import { recordNames } from "../../controller/modes/external_dns/record_names.ts";
import { STATUS_GRACE_MS, surfaceStatus } from "../../controller/modes/external_dns/status_surfacer.ts";
import type { TargetsResult } from "../../controller/modes/external_dns/targets.ts";
import type { Finding } from "../doctor_check.ts";
import { finding, sample } from "./dns_wiring_findings.ts";

const HEALTH_TODO = "the controller is not reconciling: check that it is running and ready, and read its " +
  "last reconcile and Warning Events (check 6); every pass re-targets every record";

/** The findings' subject: which records of whose release, where. */
export function recordsSubject(settings: Pick<RecordSettings, "output" | "namespace" | "instance">): string {
  return `${recordNoun(settings.output)}s in ${settings.namespace} (instance ${settings.instance})`;
}

/** What the records are judged from. */
export interface RecordsObservation {
  readonly settings: RecordSettings;
  /** The desired hostnames, sorted. */
  readonly hosts: readonly string[];
  /** The kinds each hostname came from (the source annotation). */
  readonly sources?: ReadonlyMap<string, readonly HostSource[]>;
  readonly targets: TargetsResult;
  /** Listed by the ownership selector, so foreign records are never judged. */
  readonly owned: readonly ObservedRecord[];
  /** Names of listed records that did not decode. */
  readonly unreadable: readonly string[];
}

/** The addresses a record (desired or observed, in the owned-fields form) points at, sorted. */
export function recordTargets(
  record: OwnedFields,
  settings: Pick<RecordSettings, "output" | "annotationPrefix">,
): string[] {
  if (settings.output === "service") {
    const value = record.annotations[`${settings.annotationPrefix}target`] ?? "";
    return value.split(",").filter((target) => target !== "").sort();
  }
  const endpoints = record.spec.endpoints;
  if (!Array.isArray(endpoints)) return [];
  return endpoints.flatMap((endpoint: unknown) => {
    const targets = (endpoint as { targets?: unknown } | null)?.targets;
    return Array.isArray(targets)
      ? targets.filter((target): target is string => typeof target === "string")
      : [];
  }).sort();
}

interface HostStates {
  readonly missing: string[];
  readonly stale: { readonly host: string; readonly have: readonly string[] }[];
  readonly differing: string[];
}

/**
 * Whether the records match the desired set and the proxy's current addresses: missing or stale
 * records are problems; differing fields, unwanted or unreadable records are warnings.
 */
export function recordFindings(observation: RecordsObservation): Finding[] {
  const { settings, hosts, targets, owned, unreadable } = observation;
  const subject = recordsSubject(settings);
  const noun = recordNoun(settings.output);
  if (targets.kind === "unusable") {
    return [finding(subject, [
      "problem",
      `the records have no address to point at: ${targets.message}`,
      "fix the proxy Service as said, or set --external-dns-proxy-ip; the controller writes no record until then",
    ])];
  }
  const builds = buildRecords({ hosts, targets, settings, sources: observation.sources });
  const plan = planOwnedObjects({
    ownership: recordOwnership(settings.instance),
    groups: recordGroups(builds, settings.output),
    owned,
    unreadable,
  });
  const failed = builds.filter((build): build is FailedBuild => build.kind === "failed");
  if (plan.kind === "guarded") {
    return [
      plan.guard === "empty-desired"
        ? finding(subject, [
          "warning",
          `no hostname is wanted, but ${plan.owned} ${noun}(s) of this release exist: the controller's ` +
          "mass-prune guard keeps them, and external-dns keeps publishing them",
          `if removing them is intended, run: ${
            deleteCommand(settings)
          }; otherwise restore the Ingress or route hostnames`,
        ])
        : finding(subject, [
          "problem",
          `none of the ${failed.length} wanted hostnames can be turned into records (${
            sample([...new Set(failed.map((build) => `${build.host}: ${build.message}`))])
          })`,
          "fix the settings or hostnames named; the controller writes nothing until then",
        ]),
    ];
  }

  const states = hostStates(observation, builds, plan);
  const findings: Finding[] = [];
  const wanted = new Set(hosts);
  const unwanted = [...new Set(plan.deletes.map((record) => record.group ?? record.name))]
    .filter((host) => !wanted.has(host));
  const now = describeTargets(targets);
  if (states.missing.length > 0) {
    findings.push(finding(subject, [
      "problem",
      `no ${noun} for ${states.missing.length} of the ${hosts.length} wanted hostnames (${
        sample(states.missing)
      })`,
      "check that the ouroboros controller is running and read its log and Warning Events (check 6); a record " +
      "name held by an object without ouroboros' labels is left alone (Event RecordNameTaken on that object)",
    ]));
  }
  if (states.stale.length > 0) {
    const first = states.stale[0] as HostStates["stale"][number];
    findings.push(finding(subject, [
      "problem",
      `the records of ${states.stale.length} hostnames (${
        sample(states.stale.map((state) => state.host))
      }) ` +
      `do not point at the proxy's current addresses ${now}: ${first.host} points at ${
        first.have.join(", ") || "nothing"
      }`,
      HEALTH_TODO,
    ]));
  }
  if (states.differing.length > 0) {
    findings.push(finding(subject, [
      "warning",
      `the records of ${states.differing.length} hostnames (${
        sample(states.differing)
      }) point at the proxy ` +
      "but differ from what the controller writes (TTL, labels or annotations)",
      HEALTH_TODO,
    ]));
  }
  if (unwanted.length > 0) {
    findings.push(finding(subject, [
      "warning",
      `records remain for ${unwanted.length} hostnames no longer wanted (${
        sample(unwanted)
      }); external-dns ` +
      "keeps publishing them until the controller prunes them",
      HEALTH_TODO,
    ]));
  }
  if (failed.length > 0) {
    findings.push(finding(subject, [
      "warning",
      `${failed.length} wanted hostnames cannot be published as records and are skipped, as the controller ` +
      `skips them (${sample(failed.map((build) => `${build.host}: ${build.message}`))})`,
      "fix those hostnames in their Ingress or route",
    ]));
  }
  if (unreadable.length > 0) {
    findings.push(finding(subject, [
      "warning",
      `${unreadable.length} objects carry ouroboros' labels (${ownershipSelector(settings.instance)}) but ` +
      `cannot be read as a ${noun} (${sample(unreadable)}); the controller neither updates nor prunes them`,
      "inspect them, and delete them to let the controller re-create them",
    ]));
  }
  if (states.stale.length + states.missing.length === 0) {
    const built = hosts.length - failed.length;
    findings.unshift(finding(subject, [
      "ok",
      built === 0
        ? `no hostname is wanted and this release has no ${noun}`
        : `every one of the ${built} wanted hostnames has its ${noun} pointing at ${now}`,
    ]));
  }
  return findings;
}

function hostStates(
  observation: RecordsObservation,
  builds: ReturnType<typeof buildRecords>,
  plan: Extract<ReturnType<typeof planOwnedObjects>, { kind: "apply" }>,
): HostStates {
  const { settings, owned } = observation;
  const byName = new Map(owned.map((record) => [record.name, record]));
  const updated = new Set([
    ...plan.updates.map((update) => update.desired.name),
    ...plan.creates.map((record) => record.name),
  ]);
  const states: HostStates = { missing: [], stale: [], differing: [] };
  for (const build of builds) {
    if (build.kind !== "built") continue;
    const names = recordNames(build.host, settings.output);
    const have = names.flatMap((name) => {
      const record = byName.get(name);
      return record === undefined ? [] : [record];
    });
    if (have.length === 0) {
      states.missing.push(build.host);
      continue;
    }
    const haveTargets = have.flatMap((record) => recordTargets(record, settings)).sort();
    const wantTargets = build.records.flatMap((record) => recordTargets(record, settings)).sort();
    if (haveTargets.join(",") !== wantTargets.join(",")) {
      states.stale.push({ host: build.host, have: haveTargets });
    } else if (names.some((name) => updated.has(name))) {
      states.differing.push(build.host);
    }
  }
  return states;
}

/** What the consumption finding is judged from. */
export interface ConsumptionObservation {
  readonly settings: Pick<RecordSettings, "output" | "namespace" | "instance">;
  readonly owned: readonly ObservedRecord[];
  /** Wall time, in Unix milliseconds. */
  readonly nowMs: number;
}

/**
 * Whether external-dns consumed the DNSEndpoints (past the grace period); annotated Services have
 * no status, so could-not-check. `undefined` when there is no record.
 */
export function consumptionFinding(observation: ConsumptionObservation): Finding | undefined {
  const { settings, owned, nowMs } = observation;
  const subject = recordsSubject(settings);
  if (owned.length === 0) return undefined;
  if (settings.output === "service") {
    return finding(subject, [
      "could-not-check",
      "annotated Services carry no status, so whether external-dns published them cannot be seen from " +
      "the cluster",
      "check that external-dns runs with --source=service (and that its --annotation-filter or " +
      "--label-filter, if any, matches these Services) and read its log; check 4 resolves the names",
    ]);
  }
  const notices = surfaceStatus({
    namespace: settings.namespace,
    listed: owned,
    deleted: [],
    now: { wallMs: nowMs, clockMs: 0 },
    previous: new Map(),
  }).notices;
  const young = owned.filter((record) => {
    const created = Date.parse(record.progress?.createdAt ?? "");
    return record.progress?.observedGeneration.kind === "absent" && nowMs - created < STATUS_GRACE_MS;
  });
  const pending = young.length === 0
    ? ""
    : `; ${young.length} created less than ${STATUS_GRACE_MS / 1000}s ago, not judged yet`;
  if (notices.length > 0) {
    const count = (problem: string) => notices.filter((notice) => notice.problem === problem).length;
    const parts = [
      `${count("missing")} without status.observedGeneration`,
      `${count("lagging")} behind their generation`,
      `${count("invalid")} with an unreadable one`,
    ].filter((part) => !part.startsWith("0 "));
    return finding(subject, [
      "warning",
      `external-dns has not processed ${notices.length} of ${owned.length} DNSEndpoints (${
        parts.join(", ")
      }): ` +
      `${sample(notices.map((notice) => notice.name))}${pending}`,
      "check that external-dns runs with --source=crd --crd-source-apiversion=externaldns.k8s.io/v1alpha1 " +
      `--crd-source-kind=DNSEndpoint, watches namespace ${settings.namespace}, that its --label-filter or ` +
      "--annotation-filter (if any) matches these records, that it may update dnsendpoints/status, and read its log",
    ]);
  }
  if (young.length === owned.length) {
    return finding(subject, [
      "could-not-check",
      `all ${owned.length} DNSEndpoints were created less than ${STATUS_GRACE_MS / 1000}s ago: ` +
      "external-dns has not had its interval yet",
      "run doctor again in a minute",
    ]);
  }
  return finding(subject, [
    "ok",
    `external-dns has observed the current generation of ${
      owned.length - young.length
    } DNSEndpoints${pending}`,
  ]);
}
