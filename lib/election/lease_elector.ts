/**
 * Lease leader election for every subcommand that writes cluster state: one replica leads and
 * writes, the others keep their caches warm and take over when the leader stops renewing.
 *
 * Lifecycle ({@linkcode ElectorState}): a `candidate` tries to acquire the Lease every retry period
 * (jittered); once it holds it, it is the `leader` and renews every retry period; when renewals
 * keep failing until the renew deadline, or someone else took the Lease, it is a candidate again
 * (it keeps running: a warm standby, never a restart). On shutdown a leader releases the Lease so
 * a follower takes over at once (it watches the Lease for that), then the elector is `stopped`.
 *
 * **Fencing.** {@linkcode LeaseElector.fence} is what a writer asks immediately before each write
 * (wired into the API client's `writeFence`): it passes only while this process is the leader and
 * its last successful renewal, by its own monotonic clock, is less than the renew deadline ago. So
 * a leader that is partitioned, paused (SIGSTOP) or slow stops writing at the renew deadline at
 * the latest, whatever its renew loop is doing, and a follower cannot take over before the longer
 * lease duration has passed on its clock. Every Lease write carries a resourceVersion precondition.
 *
 * Effects: the API client, the injected clocks and random source, and log lines (category
 * `election`): an INFO when leadership is gained or lost and when the holder seen changes.
 *
 * @module
 */

import { isAlreadyExists, isConflict, isForbidden, isNotFound, WriteFencedError } from "../kube/errors.ts";
import type { KubeClient } from "../kube/client.ts";
import { LEASE, type Lease, type LeaseSpec } from "../resources/lease.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { errorMessage } from "../util/error_message.ts";
import type { Log } from "../util/logging.ts";
import { type ElectionTiming, RETRY_JITTER } from "./election_timing.ts";
import {
  microTime,
  type Observation,
  observeWritten,
  planLeaseAttempt,
  releasedLeaseSpec,
} from "./lease_plan.ts";

/** Where the elector is. */
export type ElectorState =
  /** Not the leader; `holder` is who holds the Lease as last seen (`""`: nobody, or not read yet). */
  | { readonly kind: "candidate"; readonly holder: string }
  /** The leader since `since`; the last renewal that succeeded was sent at `renewedAt` (own clock). */
  | { readonly kind: "leader"; readonly since: number; readonly renewedAt: number }
  | { readonly kind: "stopped" };

/**
 * The Lease calls the elector makes. `watch` is optional: with it a follower also watches the
 * Lease and retries the moment it is released or deleted, so a hand-over takes milliseconds
 * instead of up to 2.2 retry periods; without it (or when RBAC refuses the watch) it polls.
 */
export type LeaseApi = Pick<KubeClient, "get" | "create" | "update"> & Partial<Pick<KubeClient, "watch">>;

/** What a {@linkcode LeaseElector} needs. */
export interface LeaseElectorOptions {
  /** Reads and writes the Lease. Give it a client without a write fence. */
  readonly api: LeaseApi;
  /** The Lease. */
  readonly lease: { readonly namespace: string; readonly name: string };
  /** This replica's identity, unique among candidates (pod name and a random suffix). */
  readonly identity: string;
  readonly timing: ElectionTiming;
  readonly log: Log;
  /** Monotonic time and timers. @default systemClock */
  readonly clock?: Clock;
  /** Wall-clock time written into the record. @default () => new Date() */
  readonly wallClock?: () => Date;
  /** @default Math.random */
  readonly random?: () => number;
}

/** How long a release on shutdown may take at most. */
const RELEASE_TIMEOUT_MS = 5_000;

/**
 * One candidate in one Lease election.
 *
 * @example
 * ```ts
 * import type { KubeClient } from "../kube/client.ts";
 * import { logger } from "../util/logging.ts";
 * import { DEFAULT_ELECTION_TIMING } from "./election_timing.ts";
 * import { LeaseElector } from "./lease_elector.ts";
 *
 * declare const client: KubeClient;
 * declare const shutdown: AbortSignal;
 * const elector = new LeaseElector({
 *   api: client,
 *   lease: { namespace: "ouroboros", name: "ouroboros-controller" },
 *   identity: "ouroboros-controller-7d9f_3c1a",
 *   timing: DEFAULT_ELECTION_TIMING,
 *   log: logger("election"),
 * });
 * const running = elector.run(shutdown);
 * elector.isLeader(); // false until the Lease is acquired
 * await running;
 * ```
 */
export class LeaseElector {
  readonly #options: LeaseElectorOptions;
  readonly #clock: Clock;
  readonly #wallClock: () => Date;
  readonly #random: () => number;
  readonly #listeners = new Set<() => void>();
  #state: ElectorState = { kind: "candidate", holder: "" };
  #observed: Observation | undefined;
  /** The Lease as last written by us (for the release's precondition). */
  #written: Lease | undefined;
  /** True while attempts keep failing, so the failure is said once. */
  #failing = false;
  /** Ends a candidate's wait early: the Lease was released. */
  #nudge = new AbortController();
  #started = false;

  /** Sets up; nothing happens until {@linkcode run}. */
  constructor(options: LeaseElectorOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#wallClock = options.wallClock ?? (() => new Date());
    this.#random = options.random ?? Math.random;
  }

  /** `namespace/name` of the Lease. */
  get lease(): string {
    return `${this.#options.lease.namespace}/${this.#options.lease.name}`;
  }

  /** This candidate's identity. */
  get identity(): string {
    return this.#options.identity;
  }

  /** Where the elector is now. */
  get state(): ElectorState {
    return this.#state;
  }

  /**
   * True while this replica may write: it leads and its last successful renewal is less than the
   * renew deadline ago by its own clock.
   */
  isLeader(): boolean {
    const state = this.#state;
    return state.kind === "leader" &&
      this.#clock.now() < state.renewedAt + this.#options.timing.renewDeadlineMs;
  }

  /**
   * Passes when {@linkcode isLeader}, else throws a {@linkcode WriteFencedError} for `request`.
   * Hand it to the writing client as its `writeFence`.
   */
  fence(request: string): void {
    if (this.isLeader()) return;
    const state = this.#state;
    throw new WriteFencedError(
      request,
      state.kind === "leader"
        ? `this replica has not renewed lease ${this.lease} within the renew deadline`
        : `this replica is not the leader of lease ${this.lease}`,
    );
  }

  /** Calls `listener` after every state change; returns the unsubscribe. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Campaigns, leads and renews until `signal` aborts, then releases the Lease if it holds it.
   * Never rejects for API failures (they are retried). May be called once.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.#started) throw new Error("Cannot run a lease elector twice");
    this.#started = true;
    const { retryPeriodMs } = this.#options.timing;
    const watching = this.#watchForRelease(signal);
    try {
      while (!signal.aborted) {
        if (this.#state.kind === "leader") {
          if (!await this.#clock.sleep(retryPeriodMs, signal)) break;
          await this.#renew(signal);
        } else {
          if (await this.#attempt(signal)) continue;
          const wait = retryPeriodMs * (1 + this.#random() * RETRY_JITTER);
          this.#nudge = new AbortController();
          await this.#clock.sleep(wait, AbortSignal.any([signal, this.#nudge.signal]));
        }
      }
    } finally {
      const leading = this.isLeader();
      // Writes stop before the Lease is handed back, so no write can follow the release.
      this.#enter({ kind: "stopped" });
      if (leading) await this.#release();
      await watching;
    }
  }

  /**
   * While running, watches the Lease and wakes a waiting candidate when it is released (no holder)
   * or deleted. An optimization over polling: any failure pauses it for a retry period, a 403 (no
   * `watch` in the Role) or a client without `watch` turns it off.
   */
  async #watchForRelease(signal: AbortSignal): Promise<void> {
    const { api, lease, timing, log } = this.#options;
    const watch = api.watch?.bind(api);
    if (watch === undefined) return;
    while (!signal.aborted) {
      try {
        const events = watch(LEASE, {
          namespace: lease.namespace,
          fieldSelector: `metadata.name=${lease.name}`,
          resourceVersion: "",
          allowWatchBookmarks: false,
          timeoutSeconds: 300,
          signal,
        });
        for await (const event of events) {
          const released = event.type === "DELETED" ||
            (event.type === "MODIFIED" && (event.object.spec.holderIdentity ?? "") === "");
          if (released && this.#state.kind === "candidate") this.#nudge.abort();
        }
      } catch (error) {
        if (signal.aborted) return;
        if (isForbidden(error)) {
          log.debug("may not watch the lease; a release is noticed at the next retry", { lease: this.lease });
          return;
        }
        log.debug("the lease watch failed; reopening it", { lease: this.lease, error: errorMessage(error) });
      }
      await this.#clock.sleep(timing.retryPeriodMs, signal);
    }
  }

  /** A leader's renewal; leadership ends when it fails past the renew deadline or the Lease moved on. */
  async #renew(signal: AbortSignal): Promise<void> {
    const state = this.#state;
    if (state.kind !== "leader") return;
    const held = await this.#attempt(signal);
    if (held || signal.aborted) return;
    const current = this.#state;
    if (current.kind !== "leader") return; // someone else took it: already a candidate
    if (this.#clock.now() >= current.renewedAt + this.#options.timing.renewDeadlineMs) {
      this.#lose("renewals failed until the renew deadline", "");
    }
  }

  /** One acquire-or-renew; true when this replica holds the Lease afterwards. */
  async #attempt(signal: AbortSignal): Promise<boolean> {
    const { api, lease, identity, timing, log } = this.#options;
    if (signal.aborted) return false;
    const started = this.#clock.now();
    const state = this.#state;
    const timeoutMs = state.kind === "leader"
      ? Math.max(1, state.renewedAt + timing.renewDeadlineMs - started)
      : timing.renewDeadlineMs;
    const call = { signal, timeoutMs };
    try {
      let current: Lease | undefined;
      try {
        current = await api.get(LEASE, lease, call);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
      const wallTime = microTime(this.#wallClock());
      const plan = planLeaseAttempt({
        identity,
        lease: current,
        observed: this.#observed,
        now: this.#clock.now(),
        wallTime,
        leaseDurationMs: timing.leaseDurationMs,
      });
      this.#observed = plan.observed;
      const action = plan.action;
      if (action.kind === "wait") {
        this.#recovered();
        this.#follow(action.holder);
        return false;
      }
      const manifest = {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name: lease.name,
          namespace: lease.namespace,
          ...(action.kind === "update" ? { resourceVersion: action.resourceVersion } : {}),
        },
        spec: action.spec,
      };
      this.#written = action.kind === "create"
        ? await api.create(LEASE, manifest, call)
        : await api.update(LEASE, manifest, call);
      this.#observed = observeWritten(action.spec, started);
      this.#recovered();
      this.#lead(started, action.spec);
      return true;
    } catch (error) {
      if (signal.aborted) return false;
      if (isConflict(error) || isAlreadyExists(error)) {
        log.debug("another candidate wrote the lease first", { lease: this.lease });
        return false;
      }
      if (!this.#failing) {
        this.#failing = true;
        log.warn("cannot reach the lease; retrying", { lease: this.lease, error: errorMessage(error) });
      } else {
        log.debug("cannot reach the lease; retrying", { lease: this.lease, error: errorMessage(error) });
      }
      return false;
    }
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    this.#options.log.info("the lease is reachable again", { lease: this.lease });
  }

  /** A successful write at `sentAt`: leader from now (or still). */
  #lead(sentAt: number, spec: LeaseSpec): void {
    const state = this.#state;
    if (state.kind === "leader") {
      // A renewal that reopens a fence closed by time (a late renewal) is news to the writers.
      const fenceWasClosed = !this.isLeader();
      this.#state = { ...state, renewedAt: sentAt };
      if (fenceWasClosed && this.isLeader()) this.#enter(this.#state);
      return;
    }
    this.#options.log.info("leadership acquired; this replica writes now", {
      lease: this.lease,
      identity: this.identity,
      transitions: spec.leaseTransitions ?? 0,
    });
    this.#enter({ kind: "leader", since: sentAt, renewedAt: sentAt });
  }

  /** Someone else holds an unexpired Lease. */
  #follow(holder: string): void {
    const state = this.#state;
    if (state.kind === "leader") {
      this.#lose("another replica holds the lease", holder);
      return;
    }
    if (state.kind === "candidate" && state.holder === holder) return;
    this.#options.log.info("following the leader; this replica stands by", {
      lease: this.lease,
      leader: holder,
    });
    this.#enter({ kind: "candidate", holder });
  }

  #lose(reason: string, holder: string): void {
    this.#options.log.info("leadership lost; this replica stops writing and stands by", {
      lease: this.lease,
      reason,
      ...(holder === "" ? {} : { leader: holder }),
    });
    this.#enter({ kind: "candidate", holder });
  }

  /** Hands the Lease back (this replica held it until now); best effort, bounded. */
  async #release(): Promise<void> {
    const written = this.#written;
    const { api, lease, log } = this.#options;
    if (written === undefined) return;
    try {
      await api.update(LEASE, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: {
          name: lease.name,
          namespace: lease.namespace,
          resourceVersion: written.metadata.resourceVersion,
        },
        spec: releasedLeaseSpec(written.spec, microTime(this.#wallClock())),
      }, { timeoutMs: RELEASE_TIMEOUT_MS });
      log.info("leadership released", { lease: this.lease });
    } catch (error) {
      log.warn("could not release the lease; a follower takes over once it expires", {
        lease: this.lease,
        error: errorMessage(error),
      });
    }
  }

  #enter(state: ElectorState): void {
    this.#state = state;
    for (const listener of [...this.#listeners]) listener();
  }
}
