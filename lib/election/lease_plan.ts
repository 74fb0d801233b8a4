/**
 * One acquire-or-renew attempt of Lease leader election, decided without I/O: given the Lease as
 * just read (or its absence), what this candidate last observed and the time, say whether to
 * create the Lease, update it (with the read's resourceVersion as the precondition), or wait.
 *
 * The rules are client-go's:
 * - A record is judged by the candidate's **own** clock: the holder's timestamps are never
 *   compared with local time. The candidate remembers when it last saw the record change
 *   ({@linkcode Observation}); the lease is taken to expire `leaseDurationSeconds` after that.
 * - A Lease held by someone else and not expired by that rule is left alone. A Lease with no
 *   holder (released) may be taken at once.
 * - Renewing keeps `acquireTime` and the transition count; taking over bumps the count.
 * - Every update carries the resourceVersion it was read at, so of two candidates racing for the
 *   same record exactly one wins (the other gets 409 Conflict).
 *
 * Pure: no I/O; time comes in as `now` (a monotonic clock, for expiry) and `wallTime` (the
 * `MicroTime` string written into the record for people to read).
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
  /** This candidate's identity. */
  readonly identity: string;
  /** The Lease as just read; `undefined` when it does not exist. */
  readonly lease: Lease | undefined;
  /** What was observed before this read; `undefined` at first. */
  readonly observed: Observation | undefined;
  /** Own monotonic clock, milliseconds. */
  readonly now: number;
  /** The wall-clock time to write, as a `MicroTime` string. */
  readonly wallTime: string;
  /** The lease duration this candidate writes. */
  readonly leaseDurationMs: number;
}

/** What to do. */
export type LeaseAction =
  | { readonly kind: "create"; readonly spec: LeaseSpec }
  | { readonly kind: "update"; readonly spec: LeaseSpec; readonly resourceVersion: string }
  /** Someone else holds a lease that has not expired by our clock; it may expire in `expiresInMs`. */
  | { readonly kind: "wait"; readonly holder: string; readonly expiresInMs: number };

/** The decision, and what is now observed (kept whatever the action's result). */
export interface LeaseAttempt {
  readonly action: LeaseAction;
  readonly observed: Observation | undefined;
}

/**
 * Decides one attempt (see the module doc).
 *
 * @example
 * ```ts
 * import { planLeaseAttempt } from "./lease_plan.ts";
 *
 * const attempt = planLeaseAttempt({
 *   identity: "pod-a_1f2e",
 *   lease: undefined,
 *   observed: undefined,
 *   now: 0,
 *   wallTime: "2026-12-03T13:37:03.123000Z",
 *   leaseDurationMs: 15_000,
 * });
 * attempt.action.kind; // "create"
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
  if (lease === undefined) return { action: { kind: "create", spec: fresh }, observed: input.observed };
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

/** What is observed after reading `spec` at `now`: the same observation unless the record changed. */
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

/**
 * `MicroTime` as the API server writes it: RFC 3339 in UTC with exactly six fractional digits.
 *
 * @example
 * ```ts
 * import { microTime } from "./lease_plan.ts";
 *
 * microTime(new Date(Date.UTC(2026, 11, 3, 13, 37, 3, 123))); // "2026-12-03T13:37:03.123000Z"
 * ```
 */
export function microTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}
