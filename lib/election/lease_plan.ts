/**
 * One acquire-or-renew attempt of Lease leader election: create the Lease, update it, or wait.
 *
 * client-go's rules: a record is judged by the candidate's own clock, never the holder's
 * timestamps (it expires `leaseDurationSeconds` after the record was last seen to change); a
 * released Lease (no holder) may be taken at once; every update carries the resourceVersion read,
 * so of two racing candidates one gets 409 Conflict. Beyond client-go: a Lease that vanishes
 * (deleted by hand) while another's record was unexpired is waited out for one lease duration from
 * when it was seen gone, as its holder may still be inside its renew deadline and writing.
 *
 * Pure: no I/O; `now` is a monotonic clock for expiry, `wallTime` only written for people to read.
 *
 * @module
 */

import type { Lease, LeaseSpec } from "../resources/lease.ts";

/** What a candidate remembers about the record it last saw. */
export interface Observation {
  /** The record's spec, serialised: any difference counts as a change. */
  readonly record: string;
  /** The holder named in it (`""`: none). */
  readonly holder: string;
  /** Its lease duration, in milliseconds. */
  readonly durationMs: number;
  /** When (own monotonic clock) the record was first seen as it is now. */
  readonly since: number;
}

/** The inputs of {@linkcode planLeaseAttempt}. */
export interface LeaseAttemptInput {
  readonly identity: string;
  /** The Lease as just read; `undefined` when it does not exist. */
  readonly lease: Lease | undefined;
  /** What was observed before this read; `undefined` at first. */
  readonly observed: Observation | undefined;
  /** Own monotonic clock, milliseconds. */
  readonly now: number;
  /** The wall-clock time to write, as a `MicroTime` string. */
  readonly wallTime: string;
  readonly leaseDurationMs: number;
}

/** What to do. */
export type LeaseAction =
  | { readonly kind: "create"; readonly spec: LeaseSpec }
  | { readonly kind: "update"; readonly spec: LeaseSpec; readonly resourceVersion: string }
  /** Someone else holds a lease unexpired by our clock; it may expire in `expiresInMs`. */
  | { readonly kind: "wait"; readonly holder: string; readonly expiresInMs: number };

/** The decision, and what is now observed (kept whatever the action's result). */
export interface LeaseAttempt {
  readonly action: LeaseAction;
  readonly observed: Observation | undefined;
}

/**
 * Decides one attempt. Renewing keeps `acquireTime` and the transition count; taking over bumps it.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { planLeaseAttempt } from "./lease_plan.ts";
 *
 * const input = { identity: "a", lease: undefined, observed: undefined, now: 0 };
 * const plan = planLeaseAttempt({ ...input, wallTime: "2026-12-03T13:37:03.123000Z", leaseDurationMs: 15_000 });
 * assert.equal(plan.action.kind, "create");
 * ```
 */
export function planLeaseAttempt(input: LeaseAttemptInput): LeaseAttempt {
  const { identity, lease, now, wallTime } = input;
  const fresh: LeaseSpec = {
    holderIdentity: identity,
    leaseDurationSeconds: Math.round(input.leaseDurationMs / 1000),
    acquireTime: wallTime,
    renewTime: wallTime,
    leaseTransitions: 0,
  };
  if (lease === undefined) {
    const seen = input.observed;
    const holderMayWrite = seen !== undefined && seen.holder !== "" && seen.holder !== identity &&
      (seen.record === VANISHED || now < seen.since + seen.durationMs);
    if (!holderMayWrite) return { action: { kind: "create", spec: fresh }, observed: seen };
    const gone = seen.record === VANISHED
      ? seen
      : { record: VANISHED, holder: seen.holder, durationMs: input.leaseDurationMs, since: now };
    if (now >= gone.since + gone.durationMs) {
      return { action: { kind: "create", spec: fresh }, observed: gone };
    }
    return {
      action: { kind: "wait", holder: gone.holder, expiresInMs: gone.since + gone.durationMs - now },
      observed: gone,
    };
  }
  const observed = observe(lease.spec, { previous: input.observed, now });
  const holder = observed.holder;
  const expiresAt = observed.since + observed.durationMs;
  if (holder !== "" && holder !== identity && now < expiresAt) {
    return { action: { kind: "wait", holder, expiresInMs: expiresAt - now }, observed };
  }
  const transitions = lease.spec.leaseTransitions ?? 0;
  const spec: LeaseSpec = holder === identity
    ? { ...fresh, acquireTime: lease.spec.acquireTime ?? wallTime, leaseTransitions: transitions }
    : { ...fresh, leaseTransitions: transitions + 1 };
  return {
    action: { kind: "update", spec, resourceVersion: lease.metadata.resourceVersion },
    observed,
  };
}

/**
 * The spec that hands a Lease back on shutdown: no holder, a one-second duration, the transition
 * count kept, so a follower takes over at its next retry instead of waiting out the lease.
 */
export function releasedLeaseSpec(held: LeaseSpec, wallTime: string): LeaseSpec {
  return {
    holderIdentity: "",
    leaseDurationSeconds: 1,
    acquireTime: wallTime,
    renewTime: wallTime,
    leaseTransitions: held.leaseTransitions ?? 0,
  };
}

/** The record of a Lease seen missing after another's was seen. */
const VANISHED = "(deleted)";

/** What is observed after reading `spec` at `now`: the same unless the record changed. */
export function observe(
  spec: LeaseSpec,
  options: { readonly previous: Observation | undefined; readonly now: number },
): Observation {
  const { previous, now } = options;
  const record = serialise(spec);
  if (previous !== undefined && previous.record === record) return previous;
  return {
    record,
    holder: spec.holderIdentity ?? "",
    durationMs: Math.max(0, spec.leaseDurationSeconds ?? 0) * 1000,
    since: now,
  };
}

/** What this candidate writes into the record after a successful write of `spec` at `now`. */
export function observeWritten(spec: LeaseSpec, now: number): Observation {
  return observe(spec, { previous: undefined, now });
}

function serialise(spec: LeaseSpec): string {
  return JSON.stringify([
    spec.holderIdentity ?? "",
    spec.leaseDurationSeconds ?? null,
    spec.acquireTime ?? null,
    spec.renewTime ?? null,
    spec.leaseTransitions ?? null,
  ]);
}

/** `MicroTime` as the API server writes it: RFC 3339 in UTC with exactly six fractional digits. */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * Whether `seen` is a later version of the Lease than `written`, by resourceVersion compared as
 * numbers (KEP-5504); a version that is not a number is never taken as later, so a stale event
 * can never end a leadership, and the next renewal decides instead.
 */
export function newerThan(seen: Lease, written: Lease | undefined): boolean {
  if (written === undefined) return false;
  const parse = (version: string) => /^[0-9]+$/.test(version) ? BigInt(version) : undefined;
  const after = parse(seen.metadata.resourceVersion);
  const before = parse(written.metadata.resourceVersion);
  return after !== undefined && before !== undefined && after > before;
}
