/**
 * A leader and a follower, started the one way the election tests start them: `a` first, until it
 * holds the Lease, then `b`, which finds it held.
 *
 * - In memory ({@linkcode leaderAndFollower}): two {@linkcode LeaseElector}s against
 *   {@linkcode MemoryLeases} on one {@linkcode FakeClock}; {@linkcode candidate} starts one alone
 *   (a race, a seeded Lease), {@linkcode stopAll} stops them.
 * - As processes ({@linkcode leaderThenFollower}): two replicas of a subcommand against the fake API
 *   server (the controller, kuberture), the second started once the first leads, returned when it
 *   says whom it follows.
 *
 * Effects: the in-memory part starts electors on the caller's clock; the process part starts what
 * the caller's `start` starts and disposes of it on failure.
 *
 * @module
 */

import assert from "node:assert/strict";
import { DEFAULT_ELECTION_TIMING } from "../../lib/election/election_timing.ts";
import { LeaseElector } from "../../lib/election/lease_elector.ts";
import type { Clock } from "../../lib/util/clock.ts";
import { FakeClock, settle } from "../support/fake_clock.ts";
import { LogRecorder } from "../support/log_recorder.ts";
import type { LogLine } from "../support/ouroboros_process.ts";
import { MemoryLeases } from "./memory_lease_api.ts";

/** A running elector and what the tests read of it. */
export interface Candidate {
  readonly elector: LeaseElector;
  readonly log: LogRecorder;
  /** The state kinds entered, in order. */
  readonly transitions: string[];
  readonly stop: AbortController;
  readonly running: Promise<void>;
}

/**
 * Starts an elector named `name` (its identity too) on the Lease `ns/lease` of `store`, with the
 * client-go durations, `clock` as its clock and the base of its wall clock, and `random` as its
 * jitter (default: the middle).
 */
export function candidate(store: MemoryLeases, name: string, clock: Clock, random = () => 0.5): Candidate {
  const log = new LogRecorder();
  const transitions: string[] = [];
  const elector = new LeaseElector({
    api: store.client(name),
    lease: { namespace: "ns", name: "lease" },
    identity: name,
    timing: DEFAULT_ELECTION_TIMING,
    log,
    clock,
    wallClock: () => new Date(Date.UTC(2026, 11, 3, 12, 0, 0) + clock.now()),
    random,
  });
  elector.subscribe(() => transitions.push(elector.state.kind));
  const stop = new AbortController();
  const running = elector.run(stop.signal);
  return { elector, log, transitions, stop, running };
}

/** Stops every candidate and waits for each to finish (a leader's release included). */
export async function stopAll(...candidates: readonly Candidate[]): Promise<void> {
  for (const { stop } of candidates) stop.abort();
  await Promise.all(candidates.map(({ running }) => running));
}

/** Options for {@linkcode leaderAndFollower}. */
export interface LeaderAndFollowerOptions {
  /** The follower's clock, given the shared one (default: the shared one itself). */
  readonly followerClock?: (clock: FakeClock) => Clock;
  /** The follower's jitter source (default: the middle). */
  readonly followerRandom?: () => number;
}

/** What {@linkcode leaderAndFollower} started. */
export interface LeaderAndFollower {
  readonly clock: FakeClock;
  readonly store: MemoryLeases;
  /** Holds the Lease. */
  readonly a: Candidate;
  /** Started once `a` held the Lease, and not yet given a turn. */
  readonly b: Candidate;
}

/**
 * A fresh clock and Lease store; candidate `a` takes the free Lease (asserted), then candidate `b`
 * starts. Stop both with {@linkcode stopAll}.
 */
export async function leaderAndFollower(options: LeaderAndFollowerOptions = {}): Promise<LeaderAndFollower> {
  const clock = new FakeClock();
  const store = new MemoryLeases(clock);
  const a = candidate(store, "a", clock);
  await settle();
  assert.ok(a.elector.isLeader(), "a took the free Lease");
  const b = candidate(store, "b", options.followerClock?.(clock) ?? clock, options.followerRandom);
  return { clock, store, a, b };
}

/** What {@linkcode leaderThenFollower} needs of a replica process. */
export interface ReplicaProcess extends AsyncDisposable {
  waitForLog(what: string, predicate: (line: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

/** Two replicas: `a` led first, `b` follows it. Disposing of them disposes of `b`, then `a`. */
export interface Replicas<P extends ReplicaProcess> extends AsyncDisposable {
  readonly a: P;
  readonly b: P;
}

/**
 * Starts replica `a` and waits for `leads` (that `a` holds the Lease, and whatever first work the
 * test needs done under it), then starts `b` and waits for its "following the leader" line.
 */
export async function leaderThenFollower<P extends ReplicaProcess>(
  start: (name: "a" | "b") => Promise<P>,
  leads: () => Promise<unknown>,
): Promise<Replicas<P>> {
  await using started = new AsyncDisposableStack();
  const a = started.use(await start("a"));
  await leads();
  const b = started.use(await start("b"));
  await b.waitForLog("b following a", (line) => line.msg.startsWith("following the leader"));
  const owned = started.move();
  return { a, b, [Symbol.asyncDispose]: () => owned.disposeAsync() };
}
