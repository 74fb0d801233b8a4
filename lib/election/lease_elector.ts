/**
 * Lease leader election for the subcommands that write cluster state: one replica writes, the
 * others keep warm caches and take over when it stops renewing. A leader that loses the Lease
 * becomes a candidate again (never a restart); on shutdown it releases the Lease.
 *
 * Fencing: every write asks {@linkcode LeaseElector.fence} first, which passes only while this
 * replica renewed less than the renew deadline ago (own monotonic clock). So a partitioned or
 * paused leader stops writing before a follower can take over (after the longer lease duration).
 *
 * Effects: the API client, the injected clocks and random source, and INFO lines (`election`).
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
  newerThan,
  type Observation,
  observeWritten,
  planLeaseAttempt,
  releasedLeaseSpec,
} from "./lease_plan.ts";

/** Where the elector is. */
export type ElectorState =
  /** Not the leader; `holder` as last seen (`""`: nobody, or not read yet). */
  | { readonly kind: "candidate"; readonly holder: string }
  /** The leader; the last successful renewal was sent at `renewedAt` (own clock). */
  | { readonly kind: "leader"; readonly since: number; readonly renewedAt: number }
  | { readonly kind: "stopped" };

/**
 * The Lease calls the elector makes. With `watch`, a follower retries the moment the Lease is
 * released (a hand-over in milliseconds); without it, or refused by RBAC, it polls.
 */
export type LeaseApi = Pick<KubeClient, "get" | "create" | "update"> & Partial<Pick<KubeClient, "watch">>;

/** What a {@linkcode LeaseElector} needs. */
export interface LeaseElectorOptions {
  /** Reads and writes the Lease. Give it a client without a write fence. */
  readonly api: LeaseApi;
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
/** Release writes at most (each after a 409 and a fresh read naming this replica). */
const RELEASE_ATTEMPTS = 3;

/** One candidate in one Lease election. */
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
  /**
   * A release seen since the last attempt began: a release that arrives while an attempt is in
   * flight (which read the Lease still held) must not wait for the next retry.
   */
  #releaseSeen = false;
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

  /** True while this replica may write: it leads, renewed within the renew deadline (own clock). */
  isLeader(): boolean {
    const state = this.#state;
    return state.kind === "leader" &&
      this.#clock.now() < state.renewedAt + this.#options.timing.renewDeadlineMs;
  }

  /** The writing client's `writeFence`: throws a {@linkcode WriteFencedError} unless leading. */
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

  /** Leads or waits until `signal` aborts, then releases the Lease. Retries API errors; once. */
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
          this.#releaseSeen = false;
          this.#nudge = new AbortController();
          if (await this.#attempt(signal)) continue;
          if (this.#releaseSeen) continue;
          const wait = retryPeriodMs * (1 + this.#random() * RETRY_JITTER);
          await this.#clock.sleep(wait, AbortSignal.any([signal, this.#nudge.signal]));
        }
      }
    } finally {
      // A fence closed by time means renewals have failed for the renew deadline: a release would
      // fail alike, and only delay the stop.
      const leading = this.isLeader();
      // Writes stop before the Lease is handed back, so no write can follow the release.
      this.#enter({ kind: "stopped" });
      if (leading) await this.#release();
      await watching;
    }
  }

  /**
   * Wakes a waiting candidate when the Lease is released or deleted, and closes a leader's fence at
   * once when its Lease is deleted or written by someone else (not at its next renewal); a 403
   * turns it off.
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
          if (event.type !== "ADDED" && event.type !== "MODIFIED" && event.type !== "DELETED") continue;
          const holder = event.type === "DELETED" ? "" : event.object.spec.holderIdentity ?? "";
          if (this.#state.kind === "leader" && (event.type === "DELETED" || holder !== this.identity)) {
            if (newerThan(event.object, this.#written)) {
              this.#lose(
                event.type === "DELETED" ? "the lease was deleted" : "another replica wrote the lease",
                holder,
              );
              this.#nudge.abort();
            }
            continue;
          }
          // ADDED with no holder: a watch (re)opened after the release.
          if (holder === "" && this.#state.kind === "candidate") {
            this.#releaseSeen = true;
            this.#nudge.abort();
          }
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

  /** A leader's renewal; leadership ends past the renew deadline or when the Lease moved on. */
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

  /**
   * Hands the Lease back (this replica held it until now); best effort, bounded. A renewal cut
   * short by the stop may still have landed, leaving the resourceVersion we know stale: on 409 the
   * Lease is read again and, while it still names this replica, released at the version read.
   */
  async #release(): Promise<void> {
    let current = this.#written;
    const { api, lease, identity, log } = this.#options;
    if (current === undefined) return;
    const deadline = this.#clock.now() + RELEASE_TIMEOUT_MS;
    const call = () => ({ timeoutMs: Math.max(1, deadline - this.#clock.now()) });
    try {
      for (let attempt = 1;; attempt++) {
        try {
          await api.update(LEASE, {
            apiVersion: "coordination.k8s.io/v1",
            kind: "Lease",
            metadata: {
              name: lease.name,
              namespace: lease.namespace,
              resourceVersion: current.metadata.resourceVersion,
            },
            spec: releasedLeaseSpec(current.spec, microTime(this.#wallClock())),
          }, call());
          log.info("leadership released", { lease: this.lease });
          return;
        } catch (error) {
          if (!isConflict(error) || attempt >= RELEASE_ATTEMPTS) throw error;
        }
        current = await api.get(LEASE, lease, call());
        if (current.spec.holderIdentity !== identity) {
          log.debug("the lease names another holder already; nothing to release", {
            lease: this.lease,
            leader: current.spec.holderIdentity ?? "",
          });
          return;
        }
      }
    } catch (error) {
      if (isNotFound(error)) return; // Deleted: nothing left to hand back.
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
