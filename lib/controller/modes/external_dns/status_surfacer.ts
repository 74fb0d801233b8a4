/**
 * Warns when external-dns seems not to process ouroboros' DNSEndpoints, read from the
 * `status.observedGeneration` of those a pass leaves: `missing` after the grace period
 * (external-dns down, not watching, or without status RBAC), `lagging` behind
 * `metadata.generation` after it, or `invalid` at once. One report per object and problem per
 * repeat window. Age is wall time (the server's `creationTimestamp`); an unreadable creation time
 * counts as past the grace period.
 *
 * Pure: no I/O, time comes in as arguments.
 *
 * @module
 */

import type { ObservedRecord, RecordProgress } from "./observed_record.ts";

/** Objects younger than this (since `creationTimestamp`) are not checked for progress. */
export const STATUS_GRACE_MS = 60_000;
/** One object's problem is reported at most once per this long. */
export const STATUS_REPEAT_MS = 300_000;

/** What is wrong with one DNSEndpoint's status. */
export type StatusProblem = "missing" | "lagging" | "invalid";

/** One warning to log. */
export interface StatusNotice {
  readonly name: string;
  readonly problem: StatusProblem;
  readonly message: string;
  readonly properties: Readonly<Record<string, unknown>>;
}

/** The two clocks the surfacer reads, both in milliseconds. */
export interface SurfacerTime {
  /** Wall time in Unix milliseconds, compared with `creationTimestamp`. */
  readonly wallMs: number;
  /** Monotonic clock time (`Clock.now()`), for the repeat window. */
  readonly clockMs: number;
}

/** One pass's input. */
export interface SurfaceInput {
  readonly namespace: string;
  /** The owned records the pass listed before writing; those without progress are skipped. */
  readonly listed: readonly ObservedRecord[];
  /** Names the pass deleted: neither reported nor remembered. */
  readonly deleted: readonly string[];
  readonly now: SurfacerTime;
  /** The previous pass's `next`: clock time of the last report per object and problem. */
  readonly previous: ReadonlyMap<string, number>;
  /** Names written less than the grace period ago: only an `invalid` status is reported. */
  readonly settling?: ReadonlySet<string>;
}

/** Tuning; the defaults are {@linkcode STATUS_GRACE_MS} and {@linkcode STATUS_REPEAT_MS}. */
export interface SurfacerOptions {
  readonly graceMs?: number;
  readonly repeatMs?: number;
}

/** What to log now, and what to remember for the next pass. */
export interface SurfaceResult {
  readonly notices: readonly StatusNotice[];
  readonly next: Map<string, number>;
}

/** The memory key of one object's problem. */
export function surfacerKey(name: string, problem: StatusProblem): string {
  return `${name}\n${problem}`;
}

function nameOfKey(key: string): string {
  return key.slice(0, key.lastIndexOf("\n"));
}

/** The object's age, or `undefined` when its creation time is missing or unreadable. */
function ageMs(progress: RecordProgress, wallMs: number): number | undefined {
  if (progress.createdAt === undefined) return undefined;
  const created = Date.parse(progress.createdAt);
  return Number.isNaN(created) ? undefined : wallMs - created;
}

function seconds(ms: number): number {
  return Math.round(ms / 1000);
}

/** The problem of one record right now, if any, without the repeat window. */
function diagnose(
  record: ObservedRecord & { readonly progress: RecordProgress },
  namespace: string,
  wallMs: number,
  graceMs: number,
): StatusNotice | undefined {
  const { name, progress } = record;
  const object = `${namespace}/${name}`;
  const observed = progress.observedGeneration;
  const generation = progress.generation;
  const common = {
    dnsEndpoint: object,
    ...(generation === undefined ? {} : { specGeneration: generation }),
  };
  if (observed.kind === "invalid") {
    return {
      name,
      problem: "invalid",
      message: `DNSEndpoint ${object} has status.observedGeneration ${observed.raw}, which is not an ` +
        `integer: external-dns' progress on it cannot be checked`,
      properties: { ...common, problem: "invalid", observedGeneration: observed.raw },
    };
  }
  const age = ageMs(progress, wallMs);
  if (age !== undefined && age < graceMs) return undefined;
  const since = age === undefined ? "" : ` (created ${seconds(age)}s ago)`;
  if (observed.kind === "absent") {
    return {
      name,
      problem: "missing",
      message: `DNSEndpoint ${object} has no status.observedGeneration after ${seconds(graceMs)}s${since}: ` +
        `external-dns may not be running, may not watch namespace ${namespace} or DNSEndpoints ` +
        `(--source=crd), or may lack RBAC to update DNSEndpoint status (dnsendpoints/status)`,
      properties: { ...common, problem: "missing" },
    };
  }
  if (generation !== undefined && observed.value < generation) {
    return {
      name,
      problem: "lagging",
      message: `DNSEndpoint ${object} is at generation ${generation} but external-dns last observed ` +
        `generation ${observed.value}${since}: external-dns may be unhealthy or its DNS provider is ` +
        `rejecting the records`,
      properties: { ...common, problem: "lagging", observedGeneration: observed.value },
    };
  }
  return undefined;
}

/** One pass of the surfacer (see the module documentation). */
export function surfaceStatus(input: SurfaceInput, options: SurfacerOptions = {}): SurfaceResult {
  const graceMs = options.graceMs ?? STATUS_GRACE_MS;
  const repeatMs = options.repeatMs ?? STATUS_REPEAT_MS;
  const { clockMs, wallMs } = input.now;
  const deleted = new Set(input.deleted);
  const live = input.listed.filter((record) => !deleted.has(record.name));
  const liveNames = new Set(live.map((record) => record.name));

  const next = new Map<string, number>();
  for (const [key, at] of input.previous) {
    if (liveNames.has(nameOfKey(key)) && clockMs - at < repeatMs) next.set(key, at);
  }

  const notices: StatusNotice[] = [];
  for (const record of live) {
    const { progress } = record;
    if (progress === undefined) continue;
    const notice = diagnose({ ...record, progress }, input.namespace, wallMs, graceMs);
    if (notice === undefined) continue;
    if (notice.problem !== "invalid" && input.settling?.has(record.name) === true) continue;
    const key = surfacerKey(notice.name, notice.problem);
    if (next.has(key)) continue;
    next.set(key, clockMs);
    notices.push(notice);
  }
  return { notices, next };
}
